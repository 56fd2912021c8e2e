package sessions

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/connectn/connectn/game"
)

// Sentinel errors returned (wrapped with the channel or session concerned)
// by the Store. Check them with errors.Is.
var (
	// ErrNotFound means the channel has no session at all (Get, Update), or
	// no active one (Abandon).
	ErrNotFound = errors.New("no session in this channel")
	// ErrActiveSession means the channel already has a challenge or a match
	// in progress, so another one cannot start there.
	ErrActiveSession = errors.New("channel already has a challenge or match in progress")
	// ErrInvalidSession means a session passed to Create, or left by an
	// Update function, breaks a rule: an empty channel ID, a player without
	// an ID, the same member on both sides, an unknown phase, an invalid
	// configuration, a match whose configuration differs from Config, or
	// (in Update) a nil match or a change to ID, ChannelID, GuildID, Config
	// or CreatedAt.
	ErrInvalidSession = errors.New("invalid session")
	// ErrCorrupt means a stored row cannot be turned back into a session:
	// its configuration is not valid JSON, its actions cannot be read (in
	// neither of their stored forms) or no longer replay (the game error is
	// wrapped too), or a timestamp or phase is unreadable. Abandon is the
	// way out for such a row.
	ErrCorrupt = errors.New("corrupt session record")
	// ErrConflict means Update found the session changed by another
	// process every time it tried to write it back (Update retries on a
	// fresh copy several times first, so this takes a storm of writes to
	// one channel from several processes). Nothing was written; the
	// caller may retry.
	ErrConflict = errors.New("session changed concurrently")
)

// Phase is where a session stands in its life: a challenge, a match being
// played, or over.
type Phase string

// The phases of a session. A session starts as a challenge (or directly as
// playing, for a match against the bot), and ends finished or cancelled.
const (
	// PhaseChallenge means the challenge is posted and waits for the
	// opponent to accept or decline.
	PhaseChallenge Phase = "challenge"
	// PhasePlaying means the match is being played.
	PhasePlaying Phase = "playing"
	// PhaseFinished means the match is over, by a win or a forfeit.
	PhaseFinished Phase = "finished"
	// PhaseCancelled means the challenge was declined (or expired, or the
	// session was abandoned) before the match ended.
	PhaseCancelled Phase = "cancelled"
)

// Active reports whether p is PhaseChallenge or PhasePlaying: a channel can
// hold only one session in an active phase.
func (p Phase) Active() bool { return p == PhaseChallenge || p == PhasePlaying }

// Valid reports whether p is one of the four phases.
func (p Phase) Valid() bool { return p.Active() || p == PhaseFinished || p == PhaseCancelled }

// Member is a Discord user taking part in a session.
type Member struct {
	// ID is the Discord user ID (a snowflake as text); never empty in a
	// stored session.
	ID string
	// Name is the display name shown on the board; it may be empty.
	Name string
}

// Session is one challenge and match in one Discord channel. Values returned
// by the Store are fresh copies owned by the caller: changing one changes
// nothing stored; only Update writes.
type Session struct {
	// ID identifies the session among all sessions of all channels. Create
	// assigns it, from 1 upwards, and never reuses one, even after the
	// session ends, so it can go into button custom_ids.
	ID int64
	// ChannelID is the Discord channel the session lives in; never empty.
	ChannelID string
	// GuildID is the Discord server; empty for a direct message.
	GuildID string
	// Players are the two members: Players[0] is game.Player1 (the
	// challenger), Players[1] is game.Player2 (the opponent).
	Players [2]Member
	// Config is the match configuration, fixed at creation.
	Config game.Config
	// Match is the match, built from Config by the caller at challenge
	// time. It is stored as Config plus Match.Actions() and rebuilt with
	// game.Replay on load.
	Match *game.Match
	// Phase is where the session stands.
	Phase Phase
	// MessageID is the Discord message the board lives on, "" until known.
	MessageID string
	// Theme names the emoji set the board is drawn with; "" means the
	// default. The bot decides which names exist.
	Theme string
	// AI is the level of the bot's play when Players[1] is the bot itself,
	// and "" for a match between two members. Stats of matches against the
	// bot are kept apart and stay off the leaderboard.
	AI string
	// End says how the session ended; EndNone while it is active.
	End End
	// Deadline is when the session expires unless someone acts: the
	// opponent's answer to a challenge, or the current turn of a match.
	// The zero time means no deadline. Due lists sessions whose deadline
	// has passed.
	Deadline time.Time
	// PostSeq counts the board messages posted for the match: 0 is the
	// challenge message (which becomes round 1's board), and each board
	// posted anew (the next round's, a rematch's, or one reposted on
	// request) adds 1. Buttons carry it, so a click on an older board
	// message is recognised.
	PostSeq int
	// PostDue is when the board message numbered PostSeq still has to be
	// posted (as a follow-up through Webhook); the zero time means nothing
	// is pending. Due lists sessions whose PostDue has passed, so a post
	// that failed, or that a crash interrupted, is tried again.
	PostDue time.Time
	// Webhook is the latest interaction webhook that can reach the board
	// message, for edits and follow-ups after the response.
	Webhook Webhook
	// Place is where the session is played, as the interaction that made
	// it told; fixed at creation.
	Place Place
	// EndedBy is the user ID of the moderator who ended the session
	// (EndEnded); "" otherwise.
	EndedBy string
	// Rated is set for a match whose result changes the two members'
	// ratings in its server (RatingChange): asked for by the challenge (or
	// the server's setting), on the standard board (Rateable), between
	// two members. The bot settles it when the match starts. A match
	// forfeited before its first disc is not rated however it is set.
	Rated bool
	// RatedCapped is set when the match was to be rated but is played
	// unrated: the two members had played RatedPerDay rated matches with
	// each other in the 24 hours before it started.
	RatedCapped bool
	// Ratings is what the match did to the players' ratings, written by
	// the Store in the transaction that records a rated match's result;
	// nil for every other session.
	Ratings *RatingChange
	// Tournament names the tournament game the session plays (its
	// tournament, round and board), fixed at creation; the zero value for
	// any other session. The Store records the session on the pairing in
	// the transaction that creates it, and the game's result
	// (TournamentResult) in the one that ends it.
	Tournament TournamentLink
	// CreatedAt and UpdatedAt come from the Store's clock, in UTC.
	// CreatedAt is set by Create; UpdatedAt by Create and every Update.
	CreatedAt, UpdatedAt time.Time
}

// Place is where a session is played, as the interaction that opened it
// tells (Discord sends its guild_locale, locale, context and
// authorizing_integration_owners with every interaction).
type Place struct {
	// Locale is the language of the session's public messages (boards,
	// round records, results): the server's guild_locale, or outside a
	// server the challenger's locale. A Discord locale code ("de",
	// "es-419"); "" reads as English.
	Locale string `json:"locale,omitempty"`
	// WebhookOnly is set where the bot is not a member: a group DM, or a
	// server where only a member installed the app for themselves. There
	// the bot token can neither post nor edit; only the interaction's
	// response and its webhook reach the channel.
	WebhookOnly bool `json:"webhook_only,omitempty"`
	// Thread is set when the channel is a thread the bot opened for the
	// session (the challenge's thread option); the bot archives it after
	// the match.
	Thread bool `json:"thread,omitempty"`
	// Open is set for an open challenge (/connectn open): its second seat
	// (OpenSeat) goes to the first member who accepts.
	Open bool `json:"open,omitempty"`
	// ChallengeTimeout and TurnTimeout are the server's timeouts when the
	// session was opened, in place of the Policy's; zero: the Policy's.
	ChallengeTimeout time.Duration `json:"challenge_timeout,omitempty"`
	TurnTimeout      time.Duration `json:"turn_timeout,omitempty"`
}

// Webhook is an interaction's webhook, through which the bot can post
// follow-up messages and edit its messages for a while after the
// interaction (Discord's limit, which the bot knows), without a bot token.
// The token is a secret: never log it.
type Webhook struct {
	// AppID is the application the interaction was sent to.
	AppID string `json:"app_id,omitempty"`
	// Token is the interaction token.
	Token string `json:"token,omitempty"`
	// Message is how the board message is named through this webhook:
	// "@original" when the interaction's own response is (or updated) the
	// board message, or the ID of a follow-up message it posted.
	Message string `json:"message,omitempty"`
	// At is when the interaction arrived, in UTC; the token's lifetime
	// counts from it.
	At time.Time `json:"at,omitzero"`
}

// End is how a session ended.
type End string

// The ways a session ends. A finished match ends EndWon, EndForfeit or
// EndTimeout; a cancelled session EndDeclined, EndWithdrawn, EndExpired,
// EndAbandoned or EndEnded.
const (
	// EndNone: the session is still active.
	EndNone End = ""
	// EndWon: a player reached the round wins the match asks for.
	EndWon End = "won"
	// EndForfeit: a player forfeited the match.
	EndForfeit End = "forfeit"
	// EndTimeout: the player to move let the turn's deadline pass and
	// forfeited the match by it.
	EndTimeout End = "timeout"
	// EndDeclined: the opponent declined the challenge.
	EndDeclined End = "declined"
	// EndWithdrawn: the challenger withdrew the challenge.
	EndWithdrawn End = "withdrawn"
	// EndExpired: nobody answered the challenge before its deadline.
	EndExpired End = "expired"
	// EndAbandoned: the session was given up without a result (its stored
	// row could no longer be read, or the store abandoned it).
	EndAbandoned End = "abandoned"
	// EndEnded: a moderator ended the challenge or the match without a
	// result (Session.EndedBy names them); nothing counts in the stats.
	EndEnded End = "ended"
)

// Valid reports whether e is one of the ends above.
func (e End) Valid() bool {
	switch e {
	case EndNone, EndWon, EndForfeit, EndTimeout, EndDeclined, EndWithdrawn, EndExpired, EndAbandoned, EndEnded:
		return true
	}
	return false
}

// PlayerOf returns game.Player1 or game.Player2 for the member with the
// given Discord user ID, and game.NoPlayer when userID is empty or belongs
// to neither player.
func (s *Session) PlayerOf(userID string) game.Player {
	switch {
	case userID == "":
		return game.NoPlayer
	case userID == s.Players[0].ID:
		return game.Player1
	case userID == s.Players[1].ID:
		return game.Player2
	}
	return game.NoPlayer
}

// Member returns the member playing p, or the zero Member when p is not
// game.Player1 or game.Player2.
func (s *Session) Member(p game.Player) Member {
	if !p.Valid() {
		return Member{}
	}
	return s.Players[p-1]
}

// Clone returns a deep copy of s: its Match is cloned (game.Match.Clone),
// so playing on one changes nothing in the other, and so are its Ratings.
// A nil Match or Ratings stays nil.
func (s *Session) Clone() *Session {
	c := *s
	if s.Match != nil {
		c.Match = s.Match.Clone()
	}
	if s.Ratings != nil {
		r := *s.Ratings
		c.Ratings = &r
	}
	return &c
}

// CloneOwned returns a deep copy of s, as Clone, whose strings share no
// memory with the caller's: each one equal to the same field of prev (nil:
// none) is prev's, any other is copied. A Store that keeps decoded sessions
// in memory keeps such copies: the bot decodes an interaction's strings as
// views into one copy of its request body (about 1 KiB for a click, the
// message it was clicked on left out), so that a session holding its
// channel, its players' names or its webhook token as they were decoded
// would keep every such body alive for as long as it is kept.
// Reusing prev's strings makes a move copy only what it changed (the
// interaction token, mostly).
func (s *Session) CloneOwned(prev *Session) *Session {
	c := s.Clone()
	var p Session
	if prev != nil {
		p = *prev
	}
	own := func(v *string, old string) {
		switch {
		case *v == old:
			*v = old
		case *v != "":
			*v = strings.Clone(*v)
		}
	}
	own(&c.ChannelID, p.ChannelID)
	own(&c.GuildID, p.GuildID)
	for i := range c.Players {
		own(&c.Players[i].ID, p.Players[i].ID)
		own(&c.Players[i].Name, p.Players[i].Name)
	}
	own(&c.MessageID, p.MessageID)
	own(&c.Theme, p.Theme)
	own(&c.AI, p.AI)
	own(&c.EndedBy, p.EndedBy)
	own(&c.Webhook.AppID, p.Webhook.AppID)
	own(&c.Webhook.Token, p.Webhook.Token)
	own(&c.Webhook.Message, p.Webhook.Message)
	own(&c.Place.Locale, p.Place.Locale)
	return c
}

// normalConfig fills in the defaults game.NewMatch fills in, so that a
// Config and the Config() of the match built from it compare equal.
func normalConfig(c game.Config) game.Config {
	if c.FirstOpener == game.NoPlayer {
		c.FirstOpener = game.Player1
	}
	return c
}

// Validate checks the rules every stored session obeys: a channel, two
// distinct players with IDs, a known phase and end that agree with each
// other, a match of the session's configuration (over when finished), a
// post sequence of at least 0. It returns an error wrapping
// ErrInvalidSession naming the broken rule. Store backends call it before
// every write.
func (s *Session) Validate() error {
	switch {
	case s.ChannelID == "":
		return fmt.Errorf("empty channel id: %w", ErrInvalidSession)
	case s.Players[0].ID == "" || s.Players[1].ID == "":
		return fmt.Errorf("player without a user id: %w", ErrInvalidSession)
	case s.Players[0].ID == s.Players[1].ID:
		return fmt.Errorf("user %s on both sides: %w", s.Players[0].ID, ErrInvalidSession)
	case !s.Phase.Valid():
		return fmt.Errorf("unknown phase %q: %w", s.Phase, ErrInvalidSession)
	case s.Match == nil:
		return fmt.Errorf("nil match: %w", ErrInvalidSession)
	case s.Match.Config() != normalConfig(s.Config):
		return fmt.Errorf("match configuration %+v differs from session configuration %+v: %w", s.Match.Config(), s.Config, ErrInvalidSession)
	case s.Phase == PhaseFinished && !s.Match.Over():
		return fmt.Errorf("finished session whose match is not over: %w", ErrInvalidSession)
	case !s.End.Valid():
		return fmt.Errorf("unknown end %q: %w", s.End, ErrInvalidSession)
	case s.Phase.Active() && s.End != EndNone,
		s.Phase == PhaseFinished && s.End != EndWon && s.End != EndForfeit && s.End != EndTimeout,
		s.Phase == PhaseCancelled && s.End != EndDeclined && s.End != EndWithdrawn && s.End != EndExpired && s.End != EndAbandoned && s.End != EndEnded:
		return fmt.Errorf("phase %q with end %q: %w", s.Phase, s.End, ErrInvalidSession)
	case s.PostSeq < 0:
		return fmt.Errorf("negative post sequence %d: %w", s.PostSeq, ErrInvalidSession)
	}
	return nil
}

// Settle moves an active session whose match is over to PhaseFinished,
// fills in the End of a session that is no longer active (EndAbandoned for
// a cancelled one, EndForfeit or EndWon for a finished one), and clears its
// Deadline and PostDue. Store backends call it before Validate.
func (s *Session) Settle() {
	if s.Phase.Active() && s.Match != nil && s.Match.Over() {
		s.Phase = PhaseFinished
	}
	if s.Phase.Active() {
		return
	}
	if s.End == EndNone {
		switch {
		case s.Phase == PhaseCancelled:
			s.End = EndAbandoned
		case s.Match != nil && s.Match.Forfeited():
			s.End = EndForfeit
		default:
			s.End = EndWon
		}
	}
	s.Deadline, s.PostDue = time.Time{}, time.Time{}
}

// PrepareNew returns the copy of sess that Create stores, before the store
// assigns ID, CreatedAt and UpdatedAt: an empty Phase becomes
// PhaseChallenge, a nil Match a new match built from Config, the session
// is settled (Settle) and validated (Validate), and its match is rebuilt
// with game.Replay from its actions, so that the stored copy owns a match
// known to replay from what is stored. sess itself is not changed. It
// returns an error wrapping ErrInvalidSession (and game.ErrInvalidConfig
// for a bad configuration) when sess breaks a rule. For store backends.
func PrepareNew(sess *Session) (*Session, error) {
	if sess == nil {
		return nil, fmt.Errorf("nil session: %w", ErrInvalidSession)
	}
	c := *sess
	if c.Phase == "" {
		c.Phase = PhaseChallenge
	}
	if c.Match == nil {
		m, err := game.NewMatch(c.Config)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalidSession, err)
		}
		c.Match = m
	}
	c.Settle()
	if err := c.Validate(); err != nil {
		return nil, err
	}
	m, err := game.Replay(c.Config, c.Match.Actions())
	if err != nil {
		return nil, fmt.Errorf("match does not replay: %w: %w", ErrInvalidSession, err)
	}
	c.Match = m
	return &c, nil
}

// CheckChange settles after (Settle) and checks what an Update function
// left in it against the session it was given, before: ID, ChannelID,
// GuildID, Config, Place, Tournament and CreatedAt must not change, and after must pass
// Validate. It returns an error wrapping ErrInvalidSession otherwise. For
// store backends.
func CheckChange(before, after *Session) error {
	switch {
	case after.ID != before.ID, after.ChannelID != before.ChannelID, after.GuildID != before.GuildID,
		after.Config != before.Config, !after.CreatedAt.Equal(before.CreatedAt), after.Place != before.Place,
		after.Tournament != before.Tournament:
		return fmt.Errorf("ID, ChannelID, GuildID, Config, Place, Tournament and CreatedAt cannot change: %w", ErrInvalidSession)
	}
	after.Settle()
	return after.Validate()
}
