package bot_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot"
	"github.com/connectn/connectn/bot/discordtest"
)

// Permission strings of members: an admin (Manage Server), a moderator
// (Manage Messages), a member with neither.
const (
	adminPerms     = "32"
	moderatorPerms = "8192"
	memberPerms    = "2248473465835073"
)

const playerRole = "1800000000000000001"

// adminSlash sends /connectn-admin <group> <sub> (sub "" for a
// subcommand without group) by u with permissions perms, in channel.
func (e *env) adminSlash(u user, perms, channel, group, sub string, args ...discordtest.Arg) *discordgo.InteractionResponse {
	e.t.Helper()
	en := from(u)
	en.ChannelID, en.MemberPermissions = channel, perms
	if sub == "" {
		return e.send(discordtest.Slash(en, "connectn-admin", group, args...))
	}
	return e.send(groupSlash(en, group, sub, args...))
}

// groupSlash returns /connectn-admin group sub with args.
func groupSlash(en discordtest.Envelope, group, sub string, args ...discordtest.Arg) []byte {
	return discordtest.SlashGroup(en, "connectn-admin", group, sub, args...)
}

func strArg(name, v string) discordtest.Arg {
	return discordtest.Arg{Name: name, Type: discordgo.ApplicationCommandOptionString, Value: v}
}

// TestSettings sets every setting a server has with
// /connectn-admin settings set, shows them, restarts the bot, shows them
// again, and plays the next challenge under them; then resets them.
func TestSettings(t *testing.T) {
	e := newEnv(t)
	const games = "1300000000000000005"
	resp := e.adminSlash(carol, adminPerms, channelID, "settings", "set",
		discordtest.IntArg("rows", 5), discordtest.IntArg("columns", 5), discordtest.IntArg("connect", 4), discordtest.IntArg("wins", 1),
		strArg("theme", "forest"), strArg("level", "easy"), strArg("challenge-timeout", "90s"), strArg("turn-timeout", "2m"),
		discordtest.Arg{Name: "allow-channel", Type: discordgo.ApplicationCommandOptionChannel, Value: games},
		discordtest.Arg{Name: "role", Type: discordgo.ApplicationCommandOptionRole, Value: playerRole},
		strArg("cooldown", "30s"), strArg("language", "de"), boolArg("threads", false), boolArg("rated", false))
	if resp.Data == nil || resp.Data.Flags&discordgo.MessageFlagsEphemeral == 0 {
		t.Fatalf("settings set answered %+v, want a private message", resp)
	}
	mustContain(t, "saved", text(resp), "✅ Saved: Rows, Columns, Discs in a line to win, Rounds to win the match, Theme, The bot's level, "+
		"Time to answer a challenge, Time for a move, Time between two challenges, Channels for challenges, Role needed to play, "+
		"Language of public messages, A thread per match, Rated matches.")
	want := []string{
		"**Rows:** 5 · set here", "**Columns:** 5 · set here", "**Discs in a line to win:** 4 · set here",
		"**Rounds to win the match:** 1 · set here", "**Theme:** Forest: purple and green on wood · set here",
		"**The bot's level:** easy · set here", "**Time to answer a challenge:** 90 seconds · set here",
		"**Time for a move:** 2 minutes · set here", "**Channels for challenges:** <#" + games + "> · set here",
		"**Role needed to play:** <@&" + playerRole + "> · set here", "**Time between two challenges:** 30 seconds · set here",
		"**Language of public messages:** Deutsch · set here", "**A thread per match:** off · set here", "**Rated matches:** off · set here",
	}
	mustContain(t, "settings after set", text(resp), want...)

	e.restart()
	shown := text(e.adminSlash(carol, adminPerms, channelID, "settings", "show"))
	mustContain(t, "settings after a restart", shown, want...)

	// The next challenge follows them: in the allowed channel only, by a
	// member with the role, against one with the role, in German, on the
	// server's board and theme, expiring after 90 seconds.
	p := &place{e: e, channel: games, shape: func(u user, en *discordtest.Envelope) { en.Roles = []string{playerRole} }}
	p.slash(alice, "challenge", discordtest.MemberArg("opponent", bob, playerRole))
	challenge := messageText(p.board())
	mustContain(t, "challenge under the settings", challenge, de.T("challenge_title", "Connect", 4), de.N("settings_rows", 5), "🟣",
		fmt.Sprintf("<t:%d:R>", e.clock.Now().Add(90*time.Second).Unix()))
	mustUpdate(t, p.click(bob, p.board(), de.T("button_accept")))
	if s, _ := e.store.Get(context.Background(), games); !s.Deadline.Equal(e.clock.Now().Add(2 * time.Minute)) {
		t.Errorf("the first turn runs out at %v, want the server's 2 minutes", s.Deadline.Sub(e.clock.Now()))
	}

	// Reset one, then all.
	resp = e.adminSlash(carol, adminPerms, channelID, "settings", "reset", strArg("setting", "rows"))
	mustContain(t, "reset rows", text(resp), "✅ Back to the bot's default: Rows.", "**Rows:** 6 · bot default", "**Columns:** 5 · set here")
	resp = e.adminSlash(carol, adminPerms, channelID, "settings", "reset", strArg("setting", "all"))
	mustContain(t, "reset all", text(resp), "**Columns:** 7 · bot default", "**Channels for challenges:** every channel · bot default",
		"**Language of public messages:** the server's (English (US)) · bot default", "**Rated matches:** on · bot default")
	if strings.Contains(text(resp), "set here") {
		t.Errorf("after resetting all, a setting is still set here:\n%s", text(resp))
	}
}

// TestSettingsRefused: the admins' command checks the member's
// permissions from the interaction on every use (a member who crafts the
// request is refused), each setting's bounds, and the board the settings
// leave; a refused change saves nothing.
func TestSettingsRefused(t *testing.T) {
	e := newEnv(t)
	for _, tt := range []struct {
		name, perms, sub string
		args             []discordtest.Arg
		want             string
	}{
		{"show without Manage Server", memberPerms, "show", nil, "need the **Manage Server** permission"},
		{"show by a moderator", moderatorPerms, "show", nil, "need the **Manage Server** permission"},
		{"set without Manage Server", memberPerms, "set", []discordtest.Arg{discordtest.IntArg("rows", 5)}, "need the **Manage Server** permission"},
		{"reset without Manage Server", memberPerms, "reset", []discordtest.Arg{strArg("setting", "all")}, "need the **Manage Server** permission"},
		{"rows out of bounds", adminPerms, "set", []discordtest.Arg{discordtest.IntArg("rows", 13)}, "`rows` must be a whole number from 4 to 12"},
		{"a timeout too short", adminPerms, "set", []discordtest.Arg{strArg("turn-timeout", "10s")}, "`turn-timeout` must be a duration from 30 seconds to 24 hours"},
		{"a timeout too long", adminPerms, "set", []discordtest.Arg{strArg("challenge-timeout", "25h")}, "`challenge-timeout` must be a duration from 30 seconds to 24 hours"},
		{"not a duration", adminPerms, "set", []discordtest.Arg{strArg("cooldown", "soon")}, "`cooldown` must be a duration from 0 seconds to 24 hours"},
		{"a line longer than the board", adminPerms, "set", []discordtest.Arg{discordtest.IntArg("rows", 4), discordtest.IntArg("columns", 4), discordtest.IntArg("connect", 5)},
			"Nobody could connect 5 on 4 rows × 4 columns"},
		{"a language not offered", adminPerms, "set", []discordtest.Arg{strArg("language", "xx")}, "Pick `language` from the list"},
		{"a crafted channel", adminPerms, "set", []discordtest.Arg{{Name: "allow-channel", Type: discordgo.ApplicationCommandOptionChannel, Value: "general"}}, "couldn't understand"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			mustPrivate(t, e.adminSlash(carol, tt.perms, channelID, "settings", tt.sub, tt.args...), tt.want)
		})
	}
	shown := text(e.adminSlash(carol, adminPerms, channelID, "settings", "show"))
	if strings.Contains(shown, "set here") {
		t.Errorf("a refused change was saved:\n%s", shown)
	}
	// In a DM, the admins' command is refused.
	dm := from(carol)
	dm.GuildID, dm.Context = "", discordgo.InteractionContextBotDM
	mustPrivate(t, e.send(groupSlash(dm, "settings", "show")), "works in a server only")
}

// TestChallengeRules: a challenge outside the allowed channels, by a
// member without the role, against a member without it, or within the
// cooldown is refused privately with the rule and what to do; an Accept
// by a member without the role too.
func TestChallengeRules(t *testing.T) {
	e := newEnv(t)
	e.adminSlash(carol, adminPerms, channelID, "settings", "set",
		discordtest.Arg{Name: "allow-channel", Type: discordgo.ApplicationCommandOptionChannel, Value: channelID},
		discordtest.Arg{Name: "role", Type: discordgo.ApplicationCommandOptionRole, Value: playerRole},
		strArg("cooldown", "10m"))
	other := &place{e: e, channel: "1300000000000000009", shape: func(u user, en *discordtest.Envelope) { en.Roles = []string{playerRole} }}
	mustPrivate(t, other.slash(alice, "challenge", discordtest.UserArg("opponent", bob)),
		"Challenges are made in <#"+channelID+"> on this server: try there.")

	here := &place{e: e, channel: channelID}
	mustPrivate(t, here.slash(alice, "challenge", discordtest.UserArg("opponent", bob)),
		"Playing Connect N here needs the <@&"+playerRole+"> role")

	withRole := &place{e: e, channel: channelID, shape: func(u user, en *discordtest.Envelope) {
		if u.ID != carolID {
			en.Roles = []string{playerRole}
		}
	}}
	mustPrivate(t, withRole.slash(alice, "challenge", discordtest.UserArg("opponent", bob)),
		"**Bob** does not have the <@&"+playerRole+"> role")
	withRole.slash(alice, "challenge", discordtest.MemberArg("opponent", bob, playerRole))
	mustContain(t, "challenge", messageText(withRole.board()), "challenges you")
	withRole.click(bob, withRole.board(), "Decline")

	e.clock.Advance(9 * time.Minute)
	mustPrivate(t, withRole.slash(alice, "challenge", discordtest.MemberArg("opponent", bob, playerRole)),
		fmt.Sprintf("You can challenge again <t:%d:R>: this server asks for 10 minutes between one member's challenges.",
			e.clock.Now().Add(time.Minute).Unix()))
	e.clock.Advance(time.Minute)
	withRole.slash(alice, "open")
	mustPrivate(t, withRole.click(carol, withRole.board(), "Accept"), "needs the <@&"+playerRole+"> role")
	mustUpdate(t, withRole.click(bob, withRole.board(), "Accept"))
}

// TestEndByAModerator: a moderator ends a match under way; the board says
// who, nothing counts, the log names the moderator; a member without
// Manage Messages is refused; nothing left to end is said so.
func TestEndByAModerator(t *testing.T) {
	var logs syncBuffer
	e := newEnvLog(t, slog.New(slog.NewTextHandler(&logs, nil)))
	e.startMatch(map[string]int{"wins": 2})
	e.play(alice, bob, "1", "2")
	board := e.board()

	mustPrivate(t, e.adminSlash(carol, memberPerms, channelID, "end", ""), "needs the **Manage Messages** permission")
	mustPrivate(t, e.adminSlash(carol, moderatorPerms, channelID, "end", ""), "Ended: no result counts")
	ended := messageText(e.message(board.ID))
	mustContain(t, "ended board", ended, "🛑 Ended by <@"+carolID+">: no result counts.")
	// Its title says the match is over, as every other ending's does,
	// not the live board's "Connect 4 · Round 1".
	if got := e.message(board.ID).Embeds[0].Title; got != "Connect 4 · Match stopped in round 1" {
		t.Errorf("the ended board's title is %q, want %q", got, "Connect 4 · Match stopped in round 1")
	}
	if len(e.message(board.ID).Components) != 0 {
		t.Error("the ended board keeps its buttons")
	}
	mustContain(t, "log", logs.String(), "ended by a moderator", "moderator="+carolID)
	mustContain(t, "stats", text(e.send(slash(alice, "stats"))), "No match against members finished yet.")
	mustPrivate(t, e.adminSlash(carol, moderatorPerms, channelID, "end", ""), "There is no challenge or match in this channel to end.")
	resp := e.click(bob, board, "3")
	mustUpdate(t, resp)
	mustContain(t, "a click on the ended board", text(resp), "🛑 Ended by <@"+carolID+">")
}

// TestOpenChallengeRace: an open challenge that five members accept at
// the same instant gives exactly one match; the four others are told,
// privately, that the seat is taken or the message moved on.
func TestOpenChallengeRace(t *testing.T) {
	e := newEnv(t)
	e.send(slash(alice, "open", "wins", 1))
	open := e.board()
	mustContain(t, "open challenge", messageText(open), "**Alice** challenges anyone here to a match of Connect 4!", "*whoever accepts*",
		"Anyone but **Alice** may accept; **Alice** may withdraw it.")
	if strings.Contains(open.Content, "<@") {
		t.Errorf("an open challenge mentions someone: %q", open.Content)
	}
	mustPrivate(t, e.click(alice, open, "Accept"), "This is your own open challenge: anyone else here may accept it. To take it back, click **Withdraw**.")
	mustPrivate(t, e.click(bob, open, "Withdraw"), "Only **Alice** can withdraw this challenge. To play them, click **Accept**.")

	takers := []user{bob, carol, {ID: "1400000000000000004", GlobalName: "Dave"}, {ID: "1400000000000000005", GlobalName: "Erin"},
		{ID: "1400000000000000006", GlobalName: "Frank"}}
	accept := findButton(t, open.Components, "Accept").CustomID
	responses := make([]*discordgo.InteractionResponse, len(takers))
	var wg sync.WaitGroup
	for k, u := range takers {
		body := componentClick(u, open, accept)
		wg.Go(func() { responses[k] = e.deliver(body) })
	}
	wg.Wait()
	e.idle()
	updates := 0
	for k, r := range responses {
		if r.Type == discordgo.InteractionResponseUpdateMessage {
			updates++
			continue
		}
		if r.Data == nil || r.Data.Flags&discordgo.MessageFlagsEphemeral == 0 || !strings.Contains(r.Data.Content, "took the seat first") {
			t.Errorf("%s's Accept got %q, want a private 'took the seat first'", takers[k].GlobalName, text(r))
		}
	}
	if updates != 1 {
		t.Fatalf("%d Accepts started the match, want exactly one", updates)
	}
	s := e.session()
	if s.Players[1].ID == "open" || s.Players[1].ID == aliceID {
		t.Fatalf("the seat went to %q", s.Players[1].ID)
	}
}

// syncBuffer is a bytes.Buffer safe for the logger's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer changed.notify()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

var _ = bot.DefaultTurnTimeout

// TestSettingsDefaultsOfTheNextChallenge: the bot's level and the thread
// a server sets apply to the next challenge that leaves them out, and a
// challenge's own options still win over them.
func TestSettingsDefaultsOfTheNextChallenge(t *testing.T) {
	e := newAIEnv(t, &scriptedAI{})
	e.withBotToken(true)
	e.adminSlash(carol, adminPerms, channelID, "settings", "set", strArg("level", "easy"), boolArg("threads", true))

	// Against the bot, no level: the server's.
	p := &place{e: e, channel: "1300000000000000004"}
	p.slash(alice, "challenge", boolArg("thread", false))
	mustContain(t, "against the bot", messageText(p.board()), "against the bot (easy)")

	// Against a member, no thread option: a thread, as the server asks.
	resp := e.send(slash(alice, "challenge", "opponent", bob))
	if resp.Type != discordgo.InteractionResponseDeferredChannelMessageWithSource || len(e.fake.Threads()) != 1 {
		t.Fatalf("the server's threads setting did not open a thread: response %d, %d threads", resp.Type, len(e.fake.Threads()))
	}
}
