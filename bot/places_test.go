package bot_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot"
	"github.com/connectn/connectn/bot/discordtest"
	"github.com/connectn/connectn/locale"
)

// place is where interactions come from in a test: a channel, and how
// each member's interaction there reads (guild or none, context, install,
// locale, permissions).
type place struct {
	e       *env
	channel string
	// shape edits the envelope of u's interaction.
	shape func(u user, en *discordtest.Envelope)
}

func (p *place) envelope(u user) discordtest.Envelope {
	en := from(u)
	en.ChannelID = p.channel
	if p.shape != nil {
		p.shape(u, &en)
	}
	return en
}

// slash sends /connectn sub by u here.
func (p *place) slash(u user, sub string, args ...discordtest.Arg) *discordgo.InteractionResponse {
	p.e.t.Helper()
	return p.e.send(discordtest.Slash(p.envelope(u), "connectn", sub, args...))
}

// messages returns the channel's messages everyone sees, oldest first.
func (p *place) messages() []*discordgo.Message { return p.e.fake.ChannelMessages(p.channel) }

// board returns the channel's newest public message.
func (p *place) board() *discordgo.Message {
	p.e.t.Helper()
	msgs := p.messages()
	if len(msgs) == 0 {
		p.e.t.Fatalf("no message in channel %s", p.channel)
	}
	return msgs[len(msgs)-1]
}

// click clicks the enabled button labelled label on msg as u.
func (p *place) click(u user, msg *discordgo.Message, label string) *discordgo.InteractionResponse {
	p.e.t.Helper()
	b := findButton(p.e.t, msg.Components, label)
	if b.Disabled {
		p.e.t.Fatalf("button %q is disabled", label)
	}
	return p.e.send(discordtest.Click(p.envelope(u), msg, b.CustomID))
}

// play drops discs on the newest message, first and second taking turns
// (mustMove).
func (p *place) play(first, second user, columns ...string) {
	p.e.t.Helper()
	for k, c := range columns {
		who := first
		if k%2 == 1 {
			who = second
		}
		mustMove(p.e.t, p.click(who, p.board(), c))
	}
}

// head returns message id of l up to where its field first shows: the
// text a test can look for whatever the field holds.
func head(l *locale.Localizer, id, field string) string {
	return strings.SplitN(l.T(id, field, "\x00"), "\x00", 2)[0]
}

func boolArg(name string, v bool) discordtest.Arg {
	return discordtest.Arg{Name: name, Type: discordgo.ApplicationCommandOptionBoolean, Value: v}
}

var (
	de = locale.Default().Localizer("de")
	ja = locale.Default().Localizer("ja")
	en = locale.English()
)

// groupDM is a group DM where the bot is no member: a member installed the
// app for themselves. Alice's client speaks German, Bob's Japanese.
func groupDM(e *env) *place {
	const dm = "1300000000000000077"
	e.fake.KeepBotOut(dm)
	return &place{e: e, channel: dm, shape: func(u user, en *discordtest.Envelope) {
		en.GuildID, en.Context, en.UserInstall = "", discordgo.InteractionContextPrivateChannel, true
		en.Locale = map[string]string{aliceID: "de", bobID: "ja"}[u.ID]
	}}
}

// TestGroupDMMatchWithoutTheBotToken plays a whole match of two rounds in
// a group DM where the bot is no member, with a bot that has a token:
// every board, round record and next round goes through the interaction
// responses and their webhooks (the next round's board is the response to
// the click that ends a round, the record an edit through the webhook), and not one bot-token call is made there.
// The public messages speak the challenger's language (German), each
// private reply the clicker's (Japanese for Bob); the match counts in the
// direct messages' record. A turn that runs out after the last token died
// is shown, and said, at the next click.
func TestGroupDMMatchWithoutTheBotToken(t *testing.T) {
	e := newEnv(t, bot.WithTimeouts(0, 30*time.Minute))
	e.withBotToken(true)
	p := groupDM(e)

	resp := p.slash(alice, "challenge", discordtest.UserArg("opponent", bob))
	mustContain(t, "challenge", text(resp), de.T("challenge_title", "Connect", 4), de.N("settings_rows", 6))
	mustUpdate(t, p.click(bob, p.board(), de.T("button_accept")))

	// Bob clicks out of turn: told privately, in Japanese.
	mustPrivate(t, p.click(bob, p.board(), "4"), ja.T("refusal_not_your_turn"))

	// Round 1: Alice, who opens, connects four in column 1.
	p.play(alice, bob, "1", "2", "1", "2", "1", "2", "1")
	msgs := p.messages()
	if len(msgs) != 2 {
		t.Fatalf("after round 1 the group DM shows %d messages, want the round record and round 2's board", len(msgs))
	}
	mustContain(t, "round record", messageText(msgs[0]), de.T("record_title", "Connect", 4, "Round", 1))
	mustContain(t, "round 2", messageText(msgs[1]), de.T("board_title", "Connect", 4, "Round", 2))
	var kinds []discordtest.MessageKind
	for _, m := range e.fake.Messages() {
		if m.Message.ID == msgs[1].ID {
			kinds = append(kinds, m.Kind)
		}
	}
	if len(kinds) != 1 || kinds[0] != discordtest.InteractionResponseMessage {
		t.Errorf("round 2's board came as %v, want the response to the click that ended round 1", kinds)
	}

	// Round 2: Bob opens; Alice connects four in column 2 and takes the match.
	p.play(bob, alice, "1", "2", "1", "2", "1", "2", "3", "2")
	final := p.board()
	over := messageText(final)
	mustContain(t, "match over", over, de.T("match_title", "Connect", 4), "**Alice**", head(de, "match_pair_dm", "Player1"))

	// The record counts in direct messages, apart from any server.
	stats := text(p.slash(alice, "stats"))
	mustContain(t, "stats in the group DM", stats, de.T("stats_title_dm", "Name", "Alice"), de.T("stats_footer_dm"))
	if s := text(e.send(slash(alice, "stats"))); strings.Contains(s, de.T("stats_footer_dm")) || !strings.Contains(s, en.T("stats_none")) {
		t.Errorf("the server's stats show the group DM's match:\n%s", s)
	}

	// A rematch whose turn runs out half an hour later, when the last
	// interaction token (15 minutes) is long dead: the scheduler records
	// the result but cannot show it; the next click on the board does.
	mustContain(t, "rematch", text(p.click(bob, final, de.T("button_rematch"))), "Bob")
	mustUpdate(t, p.click(alice, p.board(), de.T("button_accept")))
	p.play(bob, alice, "4")
	stale := p.board()
	e.clock.Advance(30 * time.Minute)
	if n := e.runDue(); n != 1 {
		t.Fatalf("RunDue settled %d, want the turn that ran out", n)
	}
	if got := p.board(); messageText(got) != messageText(stale) {
		t.Fatalf("the board changed without a click: the bot reached the group DM after the token died:\n%s", messageText(got))
	}
	resp = p.click(bob, stale, "5")
	mustUpdate(t, resp)
	mustContain(t, "the board at the next click", text(resp), de.T("match_won_timeout", "Winner", "🔴 **Bob**", "Loser", "🟡 **Alice**"),
		head(de, "board_settled_late", "When"))

	if calls := e.fake.BotTokenCalls(p.channel); len(calls) != 0 {
		t.Fatalf("%d bot-token calls in the group DM, want none; the first: %s %s", len(calls), calls[0].Method, calls[0].Path)
	}
}

// TestMatchesInLanguages plays a match in a server whose language is
// Japanese, challenged by a member whose client speaks English: the
// board everyone reads is in Japanese, the challenger's private replies in
// English. And a German server's challenge reads German.
func TestMatchesInLanguages(t *testing.T) {
	e := newEnv(t)
	p := &place{e: e, channel: channelID, shape: func(u user, en *discordtest.Envelope) { en.GuildLocale = "ja" }}
	p.slash(alice, "challenge", discordtest.UserArg("opponent", bob), discordtest.IntArg("wins", 1))
	mustContain(t, "challenge", messageText(p.board()), ja.T("challenge_title", "Connect", 4))
	mustUpdate(t, p.click(bob, p.board(), ja.T("button_accept")))
	mustPrivate(t, p.click(bob, p.board(), "1"), en.T("refusal_not_your_turn"))
	p.play(alice, bob, "1", "2", "1", "2", "1", "2", "1")
	mustContain(t, "match over", messageText(p.board()), ja.T("match_title", "Connect", 4), ja.T("match_won", "Winner", "🔴 **Alice**"))

	german := &place{e: e, channel: "1300000000000000002", shape: func(u user, en *discordtest.Envelope) { en.GuildLocale, en.Locale = "de", "ja" }}
	german.slash(carol, "challenge", discordtest.UserArg("opponent", bob))
	mustContain(t, "German challenge", messageText(german.board()), de.T("challenge_title", "Connect", 4), head(de, "challenge_expires", "When"))
	help := text(german.slash(carol, "help"))
	mustContain(t, "help for a Japanese client in a German server", help, ja.T("help_title"))
}

// TestMatchPerThread opens three matches in threads of one channel, and
// plays a fourth in the channel itself, all at once: each thread is named
// after its players, holds its challenge (which pings the opponent) and
// its match; the channel keeps a line linking each thread. The thread of
// the match that ends is archived five minutes later, the others not.
func TestMatchPerThread(t *testing.T) {
	e := newEnv(t)
	e.withBotToken(true)
	p := &place{e: e, channel: channelID}
	dave := user{ID: "1400000000000000004", Username: "dave", GlobalName: "Dave"}
	erin := user{ID: "1400000000000000005", Username: "erin", GlobalName: "Erin"}
	frank := user{ID: "1400000000000000006", Username: "frank", GlobalName: "Frank"}
	pairs := [][2]user{{alice, bob}, {carol, dave}, {erin, frank}}

	var threads []*place
	for k, pair := range pairs {
		resp := p.slash(pair[0], "challenge", discordtest.UserArg("opponent", pair[1]), discordtest.IntArg("wins", 1), boolArg("thread", true))
		if resp.Type != discordgo.InteractionResponseDeferredChannelMessageWithSource {
			t.Fatalf("challenge %d with a thread answered type %d, want a deferred public message", k, resp.Type)
		}
		all := e.fake.Threads()
		if len(all) != k+1 {
			t.Fatalf("after %d challenges with a thread, %d threads", k+1, len(all))
		}
		th := all[k]
		if want := "Connect 4: " + pair[0].GlobalName + " vs " + pair[1].GlobalName; th.Name != want || th.ParentID != channelID {
			t.Errorf("thread %q in %s, want %q in %s", th.Name, th.ParentID, want, channelID)
		}
		link := messageText(p.board())
		mustContain(t, "the channel's line", link, "<#"+th.ID+">", "**"+pair[0].GlobalName+"**")
		tp := &place{e: e, channel: th.ID, shape: func(u user, en *discordtest.Envelope) {
			en.ChannelType, en.ParentID = discordgo.ChannelTypeGuildPublicThread, channelID
		}}
		challenge := tp.board()
		if !strings.Contains(challenge.Content, "<@"+pair[1].ID+">") {
			t.Errorf("the challenge in the thread does not ping the opponent: %q", challenge.Content)
		}
		threads = append(threads, tp)
	}
	// A fourth match in the channel itself.
	p.slash(alice, "challenge", discordtest.UserArg("opponent", carol), discordtest.IntArg("wins", 1))
	mustUpdate(t, p.click(carol, p.board(), "Accept"))

	// All four at once, move by move.
	for k, tp := range threads {
		mustUpdate(t, tp.click(pairs[k][1], tp.board(), "Accept"))
	}
	for range 3 {
		for k, tp := range threads {
			tp.play(pairs[k][0], pairs[k][1], "1", "2")
		}
		p.play(alice, carol, "1", "2")
	}
	threads[0].play(alice, bob, "1") // Alice connects four in column 1: the match ends
	mustContain(t, "the thread's last board", messageText(threads[0].board()), "🏆", "🗄️")
	for k, tp := range threads[1:] {
		mustContain(t, "a thread still playing", messageText(tp.board()), pairs[k+1][0].GlobalName+"** to play")
	}
	mustContain(t, "the channel's match", messageText(p.board()), "**Alice** to play")

	e.clock.Advance(4 * time.Minute)
	e.runDue()
	if th, _ := e.fake.Thread(e.fake.Threads()[0].ID); th.Archived {
		t.Fatal("the thread was archived before five minutes had passed")
	}
	e.clock.Advance(time.Minute)
	e.runDue()
	for k, th := range e.fake.Threads() {
		if th.Archived != (k == 0) {
			t.Errorf("thread %d (%s) archived %t", k, th.Name, th.Archived)
		}
	}
}

// TestThreadRefusals: a thread asked for where none can be opened, or
// without the permissions, is refused privately and leaves nothing; a
// thread Discord refuses after the response gives way to a private reply;
// the bot's default (CONNECTN_THREADS) in a thread plays the match there.
func TestThreadRefusals(t *testing.T) {
	e := newEnv(t, bot.WithThreads(true))
	e.withBotToken(true)

	noPerms := &place{e: e, channel: channelID, shape: func(u user, en *discordtest.Envelope) { en.AppPermissions = "274877926400" }}
	mustPrivate(t, noPerms.slash(alice, "challenge", discordtest.UserArg("opponent", bob), boolArg("thread", true)),
		en.T("refusal_thread_permission")[:40])
	mustPrivate(t, noPerms.slash(alice, "challenge", discordtest.UserArg("opponent", bob)), en.T("refusal_thread_permission")[:40])

	mustPrivate(t, groupDM(e).slash(alice, "challenge", discordtest.UserArg("opponent", bob), boolArg("thread", true)),
		de.T("refusal_no_thread_here")[:20])

	denied := "1300000000000000003"
	e.fake.DenyThreads(denied)
	dp := &place{e: e, channel: denied}
	resp := dp.slash(alice, "challenge", discordtest.UserArg("opponent", bob))
	if resp.Type != discordgo.InteractionResponseDeferredChannelMessageWithSource {
		t.Fatalf("answered type %d, want a deferred message", resp.Type)
	}
	if len(dp.messages()) != 0 {
		t.Errorf("the refused thread left %d messages in the channel: %s", len(dp.messages()), messageText(dp.board()))
	}
	mustContain(t, "private reply", e.lastPrivate().Content, en.T("refusal_thread_failed"))
	if len(e.fake.Threads()) != 0 {
		t.Errorf("threads: %+v", e.fake.Threads())
	}

	// In a thread, the default plays the match in it.
	const existing = "1300000000000000099"
	e.fake.MarkThread(existing, channelID)
	tp := &place{e: e, channel: existing, shape: func(u user, en *discordtest.Envelope) {
		en.ChannelType, en.ParentID = discordgo.ChannelTypeGuildPublicThread, channelID
	}}
	tp.slash(alice, "challenge", discordtest.UserArg("opponent", bob))
	challenge := tp.board()
	mustContain(t, "challenge in the thread", messageText(challenge), "<@"+bobID+">", "Connect 4 challenge")
	mustUpdate(t, tp.click(bob, challenge, "Accept"))
	tp.play(alice, bob, "1")
	mustContain(t, "the match in the thread", messageText(tp.board()), "**Bob** to play")
	if _, err := e.store.Get(context.Background(), existing); err != nil {
		t.Fatalf("no session in the thread: %v", err)
	}
}
