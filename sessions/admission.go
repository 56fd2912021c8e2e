package sessions

import (
	"slices"
	"strings"
	"time"
)

// The arguments of refusals that the bot shows in its own way.
type (
	// Channels are channels by ID; the bot lists them as mentions.
	Channels []string
	// Role is a role by ID; the bot shows it as a mention.
	Role string
	// OptionName is the name of a command's option a member set; the bot
	// shows it in the reader's language.
	OptionName string
)

// The bounds of the durations a server sets: its timeouts and the
// cooldown between one member's challenges.
const (
	MinTimeout, MaxTimeout = 30 * time.Second, 24 * time.Hour
	MaxCooldown            = 24 * time.Hour
)

// Entrant is a member in a challenge as the server sees them: with their
// roles (by ID).
type Entrant struct {
	Member
	Roles []string
}

// Admission is a challenge asked for, as admission judges it: where, by
// whom, against whom, on which board.
type Admission struct {
	// ChannelID is where it is asked.
	ChannelID string
	// Challenger asks; Opponent is the member challenged, nil when none
	// is (an open challenge, or a match against the bot).
	Challenger Entrant
	Opponent   *Entrant
	// Rows, Columns and Connect are the board it asks for.
	Rows, Columns, Connect int
	// LastChallenge tells when the challenger last opened a challenge in
	// the server (Store.LastChallenge); it is called only when the server
	// sets a cooldown.
	LastChallenge func() (time.Time, error)
}

// Admit decides, at now, whether the server of settings gs lets a opens
// its challenge. It refuses, checked in this order: a line longer than
// both sides of the board (ReasonConnectTooLong), a channel outside the
// allowed ones (ReasonChannelNotAllowed), a challenger without the role to
// play (ReasonRoleRequired), a challenge within the cooldown since the
// challenger's last (ReasonCooldown), and an opponent without the role
// (ReasonRoleOpponent). It returns LastChallenge's error as it is.
func Admit(gs GuildSettings, a Admission, now time.Time) error {
	if err := CheckBoard(a.Rows, a.Columns, a.Connect); err != nil {
		return err
	}
	if len(gs.Channels) > 0 && !slices.Contains(gs.Channels, a.ChannelID) {
		return Refuse(ReasonChannelNotAllowed, "Channels", Channels(gs.Channels))
	}
	if err := gs.MayPlay(a.Challenger.Roles); err != nil {
		return err
	}
	if gs.Cooldown != nil && *gs.Cooldown > 0 {
		last, err := a.LastChallenge()
		if err != nil {
			return err
		}
		if again := last.Add(*gs.Cooldown); !last.IsZero() && now.Before(again) {
			return Refuse(ReasonCooldown, "When", again, "Cooldown", *gs.Cooldown)
		}
	}
	if o := a.Opponent; o != nil && gs.Role != nil && !slices.Contains(o.Roles, *gs.Role) {
		return Refuse(ReasonRoleOpponent, "Opponent", o.Member, "Role", Role(*gs.Role))
	}
	return nil
}

// MayPlay refuses ReasonRoleRequired when the server asks for a role to
// play and roles (a member's) lack it: to open a challenge, or to accept
// one.
func (gs GuildSettings) MayPlay(roles []string) error {
	if gs.Role != nil && !slices.Contains(roles, *gs.Role) {
		return Refuse(ReasonRoleRequired, "Role", Role(*gs.Role))
	}
	return nil
}

// CheckBoard refuses ReasonConnectTooLong for a line of connect longer
// than both sides of a board of rows and columns.
func CheckBoard(rows, columns, connect int) error {
	if connect > rows && connect > columns {
		return Refuse(ReasonConnectTooLong, "Connect", connect, "Rows", rows, "Columns", columns, "Max", max(rows, columns))
	}
	return nil
}

// CheckBoardSettings refuses ReasonSettingsConnect when a server's
// default board (rows, columns, connect: its settings over the bot's
// defaults) would have a line longer than both its sides.
func CheckBoardSettings(rows, columns, connect int) error {
	if connect > rows && connect > columns {
		return Refuse(ReasonSettingsConnect, "Connect", connect, "Rows", rows, "Columns", columns)
	}
	return nil
}

// ParseDuration reads a duration a member sets for option ("90s", "5m",
// "1h30m", spaces around ignored), from lo to hi; anything else is
// refused with ReasonDuration.
func ParseDuration(option OptionName, v string, lo, hi time.Duration) (time.Duration, error) {
	d, err := time.ParseDuration(strings.TrimSpace(v))
	if err != nil || d < lo || d > hi {
		return 0, Refuse(ReasonDuration, "Option", option, "Min", lo, "Max", hi)
	}
	return d, nil
}

// RatedCapReached reports whether two members who played n rated matches
// with each other in the last 24 hours reached RatedPerDay: their next
// match is played unrated.
func RatedCapReached(n int) bool { return n >= RatedPerDay }
