package bot_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"image/png"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot"
	"github.com/connectn/connectn/bot/discordtest"
	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/sessions"
)

func TestChallengeRefused(t *testing.T) {
	edit := func(f func(m map[string]any)) []byte {
		var m map[string]any
		json.Unmarshal(slashChallenge(alice, bob, nil), &m)
		f(m)
		return mustJSON(m)
	}
	tests := []struct {
		name string
		body []byte
		want string
	}{
		{"yourself", slashChallenge(alice, alice, nil), "can't challenge yourself"},
		{"a bot", slashChallenge(alice, robot, nil), "Bots can't accept"},
		{"connect longer than rows and columns", slashChallenge(alice, bob, map[string]int{"rows": 5, "columns": 6, "connect": 7}), "Nobody could ever connect 7"},
		{"rows below Discord's minimum", slashChallenge(alice, bob, map[string]int{"rows": 3}), "`rows` must be a whole number from 4 to 12"},
		{"columns above Discord's maximum", slashChallenge(alice, bob, map[string]int{"columns": 13}), "`columns` must be a whole number from 4 to 12"},
		{"connect below minimum", slashChallenge(alice, bob, map[string]int{"connect": 2}), "`connect` must be a whole number from 3 to 12"},
		{"wins zero", slashChallenge(alice, bob, map[string]int{"wins": 0}), "`wins` must be a whole number from 1 to 9"},
		{"wins ten", slashChallenge(alice, bob, map[string]int{"wins": 10}), "`wins` must be a whole number from 1 to 9"},
		{"first not a choice", slash(alice, "challenge", "opponent", bob, "first", "whoever"), "Pick `first` from the list"},
		{"theme not a choice", slash(alice, "challenge", "opponent", bob, "theme", "neon"), "Pick `theme` from the list"},
		{"theme as a number", slash(alice, "challenge", "opponent", bob, "theme", 3), "Pick `theme` from the list"},
		{"the bot, on a bot without AI", slash(alice, "challenge"), "Playing against the bot is not enabled here"},
		{"unknown option", slash(alice, "challenge", "opponent", bob, "speed", 3), "couldn't understand"},
		{"opponent not resolved", edit(func(m map[string]any) { delete(m["data"].(map[string]any), "resolved") }), "couldn't understand"},
		{"a thread in a DM", edit(func(m map[string]any) {
			delete(m, "guild_id")
			delete(m, "member")
			m["user"] = userJSON(alice)
			sub := m["data"].(map[string]any)["options"].([]any)[0].(map[string]any)
			sub["options"] = append(sub["options"].([]any), map[string]any{"name": "thread", "type": 5, "value": true})
		}), "Threads can't be opened here"},
		{"a thread option that is not a boolean", edit(func(m map[string]any) {
			sub := m["data"].(map[string]any)["options"].([]any)[0].(map[string]any)
			sub["options"] = append(sub["options"].([]any), map[string]any{"name": "thread", "type": 5, "value": "yes"})
		}), "couldn't understand"},
		{"no member and no user", edit(func(m map[string]any) { delete(m, "member") }), "couldn't understand"},
		{"another command", edit(func(m map[string]any) { m["data"].(map[string]any)["name"] = "chess" }), "don't know that command"},
		{"unknown subcommand", slash(alice, "undo"), "don't know that command"},
		{"a modal submit", func() []byte {
			var i map[string]any
			json.Unmarshal(componentClick(alice, &discordgo.Message{ID: "1700000000000000001"}, "cn:accept:1"), &i)
			delete(i, "message")
			i["type"] = 5
			i["data"] = map[string]any{"custom_id": "cn:accept:1", "components": []any{}}
			return mustJSON(i)
		}(), "couldn't understand"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			mustPrivate(t, e.send(tt.body), tt.want)
			if _, err := e.store.Get(context.Background(), channelID); !errors.Is(err, sessions.ErrNotFound) {
				t.Fatalf("a refused challenge left a session behind: %v", err)
			}
			if n := len(e.public()); n != 0 {
				t.Fatalf("a refused challenge posted %d messages", n)
			}
		})
	}
}

func TestAutocompleteGetsNoChoices(t *testing.T) {
	e := newEnv(t)
	var m map[string]any
	json.Unmarshal(slashChallenge(alice, bob, nil), &m)
	m["type"] = 4
	resp := e.send(mustJSON(m))
	if resp.Type != discordgo.InteractionApplicationCommandAutocompleteResult {
		t.Fatalf("got response type %d, want 8", resp.Type)
	}
	if _, err := e.store.Get(context.Background(), channelID); err == nil {
		t.Fatal("an autocomplete request created a session")
	}
}

func TestChallengeOptions(t *testing.T) {
	tests := []struct {
		name       string
		body       []byte
		wantConfig game.Config
		wantTheme  string
		opens      string
	}{
		{"defaults", slash(alice, "challenge", "opponent", bob),
			game.Config{Rows: 6, Columns: 7, Connect: 4, Wins: 2, FirstOpener: game.Player1}, "classic", "Alice"},
		{"every option", slash(alice, "challenge", "opponent", bob, "rows", 4, "columns", 12, "connect", 12, "wins", 9, "first", "opponent", "theme", "colorblind"),
			game.Config{Rows: 4, Columns: 12, Connect: 12, Wins: 9, FirstOpener: game.Player2}, "colorblind", "Bob"},
		{"challenger first, forest", slash(alice, "challenge", "opponent", bob, "first", "challenger", "theme", "forest"),
			game.Config{Rows: 6, Columns: 7, Connect: 4, Wins: 2, FirstOpener: game.Player1}, "forest", "Alice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			e.send(tt.body)
			s := e.session()
			got := s.Config
			got.Openers = 0
			if got != tt.wantConfig {
				t.Fatalf("config %+v, want %+v", got, tt.wantConfig)
			}
			if s.Theme != tt.wantTheme || s.Phase != sessions.PhaseChallenge || s.Players[1].Name != "Bob" {
				t.Fatalf("theme %q phase %q opponent %q", s.Theme, s.Phase, s.Players[1].Name)
			}
			mustContain(t, "challenge", messageText(e.board()), "**"+tt.opens+"** opens round 1")
			resp := e.click(bob, e.board(), "Accept")
			mustContain(t, "board", text(resp), "**"+tt.opens+"** to play")
		})
	}
}

// TestFirstRandom: with first:random, the seeded handler picks both
// openers over a few challenges, and the opener alternates from there.
func TestFirstRandom(t *testing.T) {
	seen := map[game.Player]bool{}
	for n := 0; n < 8; n++ {
		e := newEnv(t, bot.WithSeed(uint64(n)))
		e.send(slash(alice, "challenge", "opponent", bob, "first", "random"))
		s := e.session()
		seen[s.Config.FirstOpener] = true
		if s.Config.OpenerOf(2) != s.Config.FirstOpener.Other() {
			t.Fatalf("round 2 opener %v after %v, want the other", s.Config.OpenerOf(2), s.Config.FirstOpener)
		}
	}
	if !seen[game.Player1] || !seen[game.Player2] {
		t.Fatalf("random first player over 8 seeds: %v, want both", seen)
	}
}

func TestSecondChallengeInChannel(t *testing.T) {
	e := newEnv(t)
	e.send(slashChallenge(alice, bob, nil))
	mustPrivate(t, e.send(slashChallenge(carol, alice, nil)), "already has a challenge or a match")
	e.click(bob, e.board(), "Accept")
	mustPrivate(t, e.send(slashChallenge(carol, bob, nil)), "already has a challenge or a match")
	e.click(alice, e.board(), "Forfeit match")
	e.click(alice, e.lastPrivate(), "Forfeit match") // the private confirmation
	resp := e.send(slashChallenge(carol, bob, nil))
	if resp.Data.Flags&discordgo.MessageFlagsEphemeral != 0 {
		t.Fatalf("after the match ended a new challenge was refused: %q", resp.Data.Content)
	}
}

func TestDecline(t *testing.T) {
	for _, tt := range []struct {
		name string
		who  user
		want string
		end  sessions.End
	}{
		{"by the opponent", bob, "Connect 4 challenge declined\n🔴 **Alice** vs 🟡 **Bob**\n6 rows × 7 columns · first to win 2 rounds\n\n🟡 **Bob** declined.", sessions.EndDeclined},
		{"by the challenger", alice, "Connect 4 challenge withdrawn\n🔴 **Alice** vs 🟡 **Bob**\n6 rows × 7 columns · first to win 2 rounds\n\n🔴 **Alice** withdrew it.", sessions.EndWithdrawn},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			e.send(slashChallenge(alice, bob, nil))
			challenge := e.board()
			mustPrivate(t, e.click(carol, challenge, "Decline"), "between two other players")
			resp := e.click(tt.who, challenge, "Decline")
			mustUpdate(t, resp)
			if !strings.Contains(text(resp), tt.want) || len(buttons(resp.Data.Components)) != 0 {
				t.Fatalf("got %q with %d buttons, want %q and none", text(resp), len(buttons(resp.Data.Components)), tt.want)
			}
			if resp.Data.Content != "" || resp.Data.Embeds[0].Color != 0x80848E {
				t.Errorf("content %q, colour %#x; want none, grey", resp.Data.Content, resp.Data.Embeds[0].Color)
			}
			// A client still showing the old buttons: Accept starts
			// nothing and shows how the challenge ended.
			late := e.click(bob, challenge, "Accept")
			mustUpdate(t, late)
			if !strings.Contains(text(late), tt.want) || len(buttons(late.Data.Components)) != 0 {
				t.Fatalf("late Accept: got %q with %d buttons, want %q and none", text(late), len(buttons(late.Data.Components)), tt.want)
			}
			if s := e.session(); s.Phase != sessions.PhaseCancelled || s.End != tt.end {
				t.Fatalf("got phase %q end %q, want cancelled, %q", s.Phase, s.End, tt.end)
			}
		})
	}
}

func TestForfeitNeedsConfirmation(t *testing.T) {
	for _, how := range []string{"button", "command"} {
		t.Run(how, func(t *testing.T) {
			e := newEnv(t)
			e.startMatch(map[string]int{"wins": 3})
			e.play(alice, bob, "4")
			board := e.board()
			ask := func(who user) *discordgo.InteractionResponse {
				if how == "button" {
					return e.click(who, board, "Forfeit match")
				}
				return e.send(slash(who, "forfeit"))
			}
			mustPrivate(t, ask(carol), "not playing in this match")
			resp := ask(bob)
			mustPrivate(t, resp, "Forfeit the match?")
			if got := labels(resp.Data.Components); got != "Forfeit match Keep playing" {
				t.Fatalf("confirmation buttons %q", got)
			}
			if got := e.message(board.ID); got.Content != board.Content || e.session().Match.Over() {
				t.Fatal("asking to forfeit changed the match")
			}
			resp = e.click(bob, e.lastPrivate(), "Keep playing")
			mustUpdate(t, resp)
			mustContain(t, "cancelled forfeit", text(resp), "the match goes on")
			if e.session().Match.Over() {
				t.Fatal("Keep playing ended the match")
			}

			ask(bob)
			prompt := e.lastPrivate()
			mustPrivate(t, e.click(carol, prompt, "Forfeit match"), "not playing in this match")
			resp = e.click(bob, prompt, "Forfeit match")
			mustUpdate(t, resp)
			mustContain(t, "confirmation", text(resp), "You forfeited the match: 🔴 **Alice** wins it.")
			got := e.message(board.ID)
			mustContain(t, "board after the forfeit", messageText(got), "🏳️ 🔴 **Alice** wins by forfeit: 🟡 **Bob** gave up the match.")
			if strings.Count(messageText(got), "wins") != 1 {
				t.Errorf("the board after the forfeit says who wins more than once:\n%s", messageText(got))
			}
			if labels(got.Components) != "Rematch Picture" {
				t.Errorf("board buttons after the forfeit %q, want Rematch Picture", labels(got.Components))
			}
			s := e.session()
			if s.Phase != sessions.PhaseFinished || s.End != sessions.EndForfeit || s.Match.Winner() != game.Player1 {
				t.Fatalf("phase %q end %q winner %v", s.Phase, s.End, s.Match.Winner())
			}
			st, _ := e.store.Stats(context.Background(), guildID, bobID, false)
			if st.Losses != 1 {
				t.Errorf("Bob's stats %+v, want the forfeit as a loss", st)
			}
			mustPrivate(t, e.click(bob, prompt, "Forfeit match"), "match is over")
			mustPrivate(t, e.send(slash(bob, "forfeit")), "no match being played")
		})
	}
}

func TestBoardCommand(t *testing.T) {
	e := newEnv(t)
	mustPrivate(t, e.send(slash(carol, "board")), "no match being played")
	e.send(slashChallenge(alice, bob, nil))
	mustPrivate(t, e.send(slash(carol, "board")), "no match being played")
	e.click(bob, e.board(), "Accept")
	e.play(alice, bob, "4")
	old := e.board()
	resp := e.send(slash(carol, "board"))
	if resp.Type != discordgo.InteractionResponseChannelMessageWithSource || resp.Data.Flags != 0 {
		t.Fatalf("/connectn board answered type %d flags %d, want a public message", resp.Type, resp.Data.Flags)
	}
	mustContain(t, "reposted board", text(resp), "Round 1", "Bob** to play", "⬇️ Last disc: 🔴 column 4")
	fresh := e.board()
	if fresh.ID == old.ID {
		t.Fatal("no new message")
	}
	if s := e.session(); s.MessageID != fresh.ID {
		t.Errorf("session's board message %q, want the new %q", s.MessageID, fresh.ID)
	}
	// The old message is retired: no button left, a masked link to the
	// live board.
	link := "https://discord.com/channels/" + guildID + "/" + channelID + "/" + fresh.ID
	retired := e.fake.Message(old.ID)
	if retired == nil || len(retired.Components) != 0 {
		t.Fatalf("the old board message keeps its buttons: %+v", retired)
	}
	mustContain(t, "retired board", messageText(retired), "This board moved: play on [the live board]("+link+")", "0 – 0 **Bob**")
	// A click that left before the edit reached the player's client is
	// refused privately, with the same masked link.
	mustPrivate(t, e.click(bob, old, "3"), "This board moved: play on [the live board]("+link+").")
	mustUpdate(t, e.click(bob, fresh, "3"))
	if s := e.session(); s.Match.Plies() != 2 {
		t.Fatalf("%d plies, want 2", s.Match.Plies())
	}
}

func TestRematch(t *testing.T) {
	e := newEnv(t)
	e.send(slash(alice, "challenge", "opponent", bob, "rows", 4, "columns", 4, "connect", 3, "wins", 1, "theme", "forest"))
	e.click(bob, e.board(), "Accept")
	e.play(alice, bob, "1", "2", "1", "2", "1")
	finished := e.board()
	old := e.session()
	mustPrivate(t, e.click(carol, finished, "Rematch"), "not playing in this match")
	resp := e.click(bob, finished, "Rematch")
	mustUpdate(t, resp)
	mustContain(t, "finished match", text(resp), "🔁 🟢 **Bob** asked for a rematch: the invitation is in a new message below.")
	if b := findButton(t, resp.Data.Components, "Rematch"); !b.Disabled {
		t.Errorf("the finished match's Rematch is still enabled")
	}
	// An invitation, not a match: Alice's clock does not run yet.
	s := e.session()
	if s.ID == old.ID || s.Phase != sessions.PhaseChallenge || !s.Invitation() || s.Theme != "forest" || s.Config.Rows != 4 || s.Config.Connect != 3 {
		t.Fatalf("rematch session %+v", s)
	}
	invite := e.board()
	mustContain(t, "invitation", messageText(invite), "<@"+aliceID+">, **Bob** asks you for a rematch of Connect 3!", "may accept")
	if got := labels(invite.Components); got != "Accept Decline" {
		t.Errorf("invitation buttons %q, want Accept Decline", got)
	}
	// A second click, by either player, makes no second invitation.
	mustPrivate(t, e.click(bob, finished, "Rematch"), "You asked **Alice** for a rematch already")
	mustPrivate(t, e.click(alice, finished, "Rematch"), "**Bob** asked for a rematch already: click **Accept** on the invitation below.")
	mustPrivate(t, e.click(bob, invite, "Accept"), "can't accept your own challenge")
	if n := len(e.public()); n != 2 {
		t.Fatalf("%d public messages, want the finished match and one invitation", n)
	}
	mustUpdate(t, e.click(alice, invite, "Accept"))
	s = e.session()
	if s.Phase != sessions.PhasePlaying || s.Config.OpenerOf(1) != s.PlayerOf(bobID) {
		t.Fatalf("after Accept: phase %s, opener %v; want playing, Bob (who did not open the finished match)", s.Phase, s.Config.OpenerOf(1))
	}
	mustContain(t, "rematch board", messageText(e.board()), "Round 1", "🟣 **Bob** to play", "🟣 **Bob** 0 – 0 **Alice** 🟢")
	e.play(bob, alice, "1")
	if s := e.session(); s.Match.Plies() != 1 {
		t.Fatalf("%d plies after Bob's first move, want 1", s.Match.Plies())
	}
}

// TestRematchDeclined: the invited player declines; the invitation reads
// so and nothing starts.
func TestRematchDeclined(t *testing.T) {
	e := newEnv(t)
	e.startMatch(map[string]int{"rows": 4, "columns": 4, "connect": 3, "wins": 1})
	e.play(alice, bob, "1", "2", "1", "2", "1")
	e.click(alice, e.board(), "Rematch")
	mustUpdate(t, e.click(bob, e.board(), "Decline"))
	if s := e.session(); s.Phase != sessions.PhaseCancelled || s.End != sessions.EndDeclined {
		t.Fatalf("after Decline: %s %s, want cancelled, declined", s.Phase, s.End)
	}
	mustContain(t, "declined invitation", messageText(e.board()), "challenge declined", "**Bob** declined.")
}

// TestRematchExpires: an invitation nobody answers runs out like a
// challenge, and its message says so; nobody lost anything.
func TestRematchExpires(t *testing.T) {
	e := newEnv(t)
	e.startMatch(map[string]int{"rows": 4, "columns": 4, "connect": 3, "wins": 1})
	e.play(alice, bob, "1", "2", "1", "2", "1")
	e.click(bob, e.board(), "Rematch")
	invite := e.board()
	e.clock.Advance(bot.DefaultChallengeTimeout + time.Second)
	if n := e.runDue(); n != 1 {
		t.Fatalf("RunDue settled %d sessions, want the invitation", n)
	}
	if s := e.session(); s.Phase != sessions.PhaseCancelled || s.End != sessions.EndExpired {
		t.Fatalf("after the deadline: %s %s, want cancelled, expired", s.Phase, s.End)
	}
	mustContain(t, "expired invitation", messageText(e.fake.Message(invite.ID)), "challenge expired", "⌛ Nobody accepted it in time.")
	for _, who := range []user{alice, bob} {
		if st, _ := e.store.Stats(context.Background(), guildID, who.ID, false); st.Matches != 1 {
			t.Errorf("%s has %d matches, want 1 (the invitation counts for nothing)", who.Username, st.Matches)
		}
	}
}

// TestRematchRace: both players click Rematch at the same instant, each
// many times: exactly one invitation, and every other click is told
// privately.
func TestRematchRace(t *testing.T) {
	e := newEnv(t)
	e.startMatch(map[string]int{"rows": 4, "columns": 4, "connect": 3, "wins": 1})
	e.play(alice, bob, "1", "2", "1", "2", "1")
	finished := e.board()
	var (
		wg        sync.WaitGroup
		mu        sync.Mutex
		updates   int
		privately int
	)
	for k := range 8 {
		wg.Go(func() {
			who := alice
			if k%2 == 1 {
				who = bob
			}
			resp := e.deliver(componentClick(who, finished, findButton(t, finished.Components, "Rematch").CustomID))
			mu.Lock()
			defer mu.Unlock()
			switch {
			case resp.Type == discordgo.InteractionResponseUpdateMessage:
				updates++
			case resp.Data != nil && resp.Data.Flags&discordgo.MessageFlagsEphemeral != 0 && strings.Contains(resp.Data.Content, "for a rematch already"):
				privately++
			default:
				t.Errorf("a racing click answered %d %q", resp.Type, text(resp))
			}
		})
	}
	wg.Wait()
	e.idle()
	if updates != 1 || privately != 7 {
		t.Fatalf("%d clicks made an invitation and %d were told privately; want 1 and 7", updates, privately)
	}
	hist, err := e.store.History(context.Background(), channelID, 0)
	if err != nil {
		t.Fatal(err)
	}
	invitations := 0
	for _, s := range hist {
		if s.Invitation() {
			invitations++
		}
	}
	if invitations != 1 || len(hist) != 2 {
		t.Fatalf("%d sessions, %d of them invitations; want the match and one invitation", len(hist), invitations)
	}
}

// TestForfeitCommandWithdrawsAChallenge: a challenge whose message never
// reached the channel (so nobody can click it) no longer blocks it:
// /connectn forfeit calls it off, for its challenger or its opponent.
func TestForfeitCommandWithdrawsAChallenge(t *testing.T) {
	for _, tt := range []struct {
		who      user
		want     string
		wantEnd  sessions.End
		readsNow string
	}{
		{alice, "You withdrew your challenge to 🟡 **Bob**.", sessions.EndWithdrawn, "🔴 **Alice** withdrew it."},
		{bob, "You declined the challenge from 🔴 **Alice**.", sessions.EndDeclined, "🟡 **Bob** declined."},
	} {
		t.Run(tt.who.Username, func(t *testing.T) {
			e := newEnv(t)
			e.send(slashChallenge(alice, bob, nil))
			msg := e.board()
			mustPrivate(t, e.send(slash(carol, "forfeit")), "between two other players")
			mustPrivate(t, e.send(slash(tt.who, "forfeit")), tt.want)
			if s := e.session(); s.Phase != sessions.PhaseCancelled || s.End != tt.wantEnd {
				t.Fatalf("after /connectn forfeit: %s %s", s.Phase, s.End)
			}
			mustContain(t, "the challenge message", messageText(e.fake.Message(msg.ID)), tt.readsNow)
			// The channel is free.
			if resp := e.send(slashChallenge(carol, alice, nil)); !strings.Contains(text(resp), "challenges you") {
				t.Fatalf("a new challenge after the withdrawal: %q", text(resp))
			}
		})
	}
}

func TestStatsAndLeaderboard(t *testing.T) {
	e := newEnv(t)
	mustContain(t, "empty leaderboard", text(e.send(slash(alice, "leaderboard"))), "No match has finished in this server yet")
	quick := func(winner, loser user) {
		t.Helper()
		e.send(slash(winner, "challenge", "opponent", loser, "rows", 4, "columns", 4, "connect", 3, "wins", 1))
		e.click(loser, e.board(), "Accept")
		e.play(winner, loser, "1", "2", "1", "2", "1")
	}
	quick(alice, bob)
	quick(alice, bob)
	quick(carol, alice)

	resp := e.send(slash(bob, "stats", "user", alice))
	if resp.Data.Flags != 0 {
		t.Fatalf("stats answered privately: %q", text(resp))
	}
	mustContain(t, "Alice's stats", text(resp), "record of Alice", "**Matches:** 3", "**Wins:** 2", "**Losses:** 1",
		"**Win rate:** 67%", "**Rounds won:** 2", "**Rounds lost:** 1", "**Rounds drawn:** 0",
		"**Streak:** – · **Longest:** 2 wins in a row", "Alice vs Bob: **2–0**")
	if strings.Contains(text(resp), "you") || strings.Contains(text(resp), "<@") {
		t.Errorf("public stats speak to the asker, or mention:\n%s", text(resp))
	}
	mentionsOnly(t, "stats", resp.Data.AllowedMentions)
	resp = e.send(slash(carol, "stats"))
	mustContain(t, "Carol's own stats", text(resp), "record of Carol", "**Matches:** 1", "**Wins:** 1", "**Streak:** 1 win in a row · **Longest:** 1")
	if strings.Contains(text(resp), " vs ") {
		t.Errorf("own stats show a record against oneself")
	}
	mustContain(t, "a newcomer's stats", text(e.send(slash(alice, "stats", "user", robot))), "No match against members finished yet")

	resp = e.send(slash(bob, "leaderboard"))
	mustContain(t, "leaderboard", text(resp), "🥇 <@"+aliceID+"> — **2–1** · 67%",
		"🥈 <@"+carolID+"> — **1–0** · 100%", "🥉 <@"+bobID+"> — **0–2** · 0%",
		"ranked by wins, then win rate, then rounds won − lost.")
	mentionsOnly(t, "leaderboard", resp.Data.AllowedMentions)
}

func TestHelp(t *testing.T) {
	e := newEnv(t)
	resp := e.send(slash(carol, "help"))
	if resp.Data.Flags&discordgo.MessageFlagsEphemeral == 0 {
		t.Fatal("help is not private")
	}
	first := text(resp)
	mustContain(t, "help's first page", first, "A turn lasts **5 minutes** here", "leave `opponent` out")
	// Every page, one click away: together they name every command.
	all := first
	msg := e.lastPrivate()
	for _, label := range []string{"Commands", "Playing the bot", "Ratings", "Admins"} {
		all += "\n" + text(e.click(carol, msg, label))
	}
	for _, sub := range bot.Commands()[0].Options {
		mustContain(t, "help", all, "`/connectn "+sub.Name)
	}
	mustContain(t, "help", all, "`level`", "⬇️ over the column of the last disc", "**Rematch**", "**Picture**", "**Analysis**",
		"`/connectn-admin`")
	mentionsOnly(t, "help", resp.Data.AllowedMentions)

	// The turn time is this server's: its setting, else the bot's.
	e.adminSlash(carol, adminPerms, channelID, "settings", "set", strArg("turn-timeout", "2m"))
	mustContain(t, "help in a server whose turn lasts 2 min", text(e.send(slash(carol, "help"))), "A turn lasts **2 minutes** here")
	e = newEnv(t, bot.WithTimeouts(0, 90*time.Second))
	mustContain(t, "help with a turn of 90 s", text(e.send(slash(carol, "help"))), "A turn lasts **90 seconds** here")
}

func TestCraftedCustomIDs(t *testing.T) {
	e := newEnv(t)
	e.startMatch(nil)
	e.play(alice, bob, "4")
	board := e.board()
	before := e.session()
	tests := []struct{ name, customID, want string }{
		{"empty", "", "isn't one of mine"},
		{"foreign", "poll:vote:3", "isn't one of mine"},
		{"unknown action", "cn:undo:1", "isn't one of mine"},
		{"column zero", "cn:drop:1:0:1:0", "isn't one of mine"},
		{"negative column", "cn:drop:1:0:1:-1", "isn't one of mine"},
		{"leading zero", "cn:drop:1:0:1:04", "isn't one of mine"},
		{"column beyond the board", "cn:drop:1:0:1:8", "isn't on this board"},
		{"huge column", "cn:drop:1:0:1:99999999999999999999", "isn't one of mine"},
		{"huge match", "cn:drop:99999999999999999:0:1:3", "isn't one of mine"},
		{"extra part", "cn:drop:1:0:1:3:4", "isn't one of mine"},
		{"missing part", "cn:drop:1:0:1", "isn't one of mine"},
		{"old form without the post", "cn:drop:1:1:3", "isn't one of mine"},
		{"another match", "cn:drop:2:0:1:3", "moved on"},
		{"a later board post", "cn:drop:1:5:1:3", "This board moved: play on [the live board]("},
		{"an old ply", "cn:drop:1:0:0:3", "moved on"},
		{"a future ply", "cn:drop:1:0:7:3", "moved on"},
		{"accept after the start", "cn:accept:1", "moved on"},
		{"rematch while playing", "cn:rematch:1", "moved on"},
		{"forfeit of another match", "cn:forfeit:2", "moved on"},
		{"confirm a forfeit of another match", "cn:forfeit!:2", "moved on"},
		{"too long", "cn:drop:1:0:1:" + strings.Repeat("1", 120), "isn't one of mine"},
		{"10 KB", strings.Repeat("cn:", 3400), "isn't one of mine"},
		{"unicode digits", "cn:drop:1:0:1:٣", "isn't one of mine"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mustPrivate(t, e.clickID(bob, board, tt.customID), tt.want)
		})
	}
	after := e.session()
	if got, want := after.Match.Plies(), before.Match.Plies(); got != want || after.Phase != before.Phase {
		t.Fatalf("crafted clicks changed the match: %d plies, phase %q", got, after.Phase)
	}
}

// TestConcurrentClicks sends the same click many times at once: exactly one
// applies, the rest are answered privately as stale.
func TestConcurrentClicks(t *testing.T) {
	e := newEnv(t)
	e.startMatch(nil)
	body := componentClick(alice, e.board(), findButton(t, e.board().Components, "4").CustomID)

	const clicks = 32
	var wg sync.WaitGroup
	resps := make([]*discordgo.InteractionResponse, clicks)
	start := make(chan struct{})
	for k := range clicks {
		wg.Go(func() {
			var i discordgo.Interaction
			json.Unmarshal(body, &i)
			<-start
			resps[k], _ = e.h.Handle(context.Background(), &i)
		})
	}
	close(start)
	waitGroup(t, &wg, 20*time.Second)
	updates := 0
	for _, r := range resps {
		if r.Type == discordgo.InteractionResponseUpdateMessage {
			updates++
		} else if r.Data == nil || !strings.Contains(r.Data.Content, "moved on") {
			t.Errorf("a losing click got %q, want a private stale notice", text(r))
		}
	}
	if updates != 1 {
		t.Fatalf("got %d updates, want exactly 1", updates)
	}
	if got := e.session().Match.Plies(); got != 1 {
		t.Fatalf("got %d plies, want 1", got)
	}
}

// panicky is a store whose Get panics.
type panicky struct{ sessions.Store }

func (panicky) Get(context.Context, string) (*sessions.Session, error) { panic("store exploded") }

func TestPanicIsContained(t *testing.T) {
	e := newEnv(t)
	rec := &metricsRecorder{}
	h := bot.NewHandler(panicky{e.store}, slog.New(slog.DiscardHandler), bot.WithMetrics(rec))
	var i discordgo.Interaction
	json.Unmarshal(slash(alice, "forfeit"), &i)
	resp, err := h.Handle(context.Background(), &i)
	if err != nil {
		t.Fatalf("Handle after a panic: %v", err)
	}
	mustPrivate(t, resp, "something went wrong on my side")
	// The handler keeps serving.
	json.Unmarshal(slash(alice, "help"), &i)
	if resp, _ := h.Handle(context.Background(), &i); !strings.Contains(text(resp), "How to play") {
		t.Fatalf("after a panic, help answered %q", text(resp))
	}
	if rec.outcomes["command/forfeit failed"] != 1 || rec.outcomes["command/help ok"] != 1 {
		t.Errorf("metrics outcomes %v", rec.outcomes)
	}
}

// TestEveryCommandIsRouted checks that each registered subcommand has a
// handler (it answers something other than "I don't know that command").
func TestEveryCommandIsRouted(t *testing.T) {
	e := newEnv(t)
	for _, sub := range bot.Commands()[0].Options {
		if sub.Type == discordgo.ApplicationCommandOptionSubCommandGroup {
			for _, leaf := range sub.Options {
				t.Run(sub.Name+" "+leaf.Name, func(t *testing.T) {
					resp := e.send(discordtest.SlashGroup(from(alice), "connectn", sub.Name, leaf.Name))
					if strings.Contains(text(resp), "don't know that command") {
						t.Fatalf("/connectn %s %s is not routed", sub.Name, leaf.Name)
					}
				})
			}
			continue
		}
		t.Run(sub.Name, func(t *testing.T) {
			resp := e.send(slash(alice, sub.Name))
			if strings.Contains(text(resp), "don't know that command") {
				t.Fatalf("/connectn %s is not routed", sub.Name)
			}
		})
	}
}

func TestBoardPicture(t *testing.T) {
	e := newEnv(t)
	e.send(slash(alice, "challenge", "opponent", bob, "rows", 4, "columns", 5, "connect", 3, "wins", 1))
	e.click(bob, e.board(), "Accept")
	mustPrivate(t, e.clickID(carol, e.board(), "cn:picture:1"), "moved on") // not finished yet
	e.play(alice, bob, "1", "2", "1", "2", "1")
	finished := e.board()
	resp := e.click(carol, finished, "Picture") // anyone may look
	if resp.Type != discordgo.InteractionResponseDeferredChannelMessageWithSource || resp.Data.Flags&discordgo.MessageFlagsEphemeral == 0 {
		t.Fatalf("Picture answered type %d flags %d, want a deferred private message", resp.Type, resp.Data.Flags)
	}
	got := e.lastPrivate()
	if len(got.Attachments) != 1 || got.Attachments[0].ContentType != "image/png" {
		t.Fatalf("private answer attachments %+v, want one PNG", got.Attachments)
	}
	name := got.Attachments[0].Filename
	if len(got.Embeds) != 1 || got.Embeds[0].Image == nil || got.Embeds[0].Image.URL != "attachment://"+name {
		t.Fatalf("the answer does not show the attachment %q: %+v", name, got.Embeds)
	}
	mustContain(t, "picture answer", got.Content, "Round 1 of Alice vs Bob")
	img, err := png.Decode(bytes.NewReader(e.attachment(got.Attachments[0])))
	if err != nil {
		t.Fatalf("the attachment is not a PNG: %v", err)
	}
	if b := img.Bounds(); b.Dx() != 5*50 || b.Dy() != 4*50 {
		t.Errorf("picture of %v, want 250x200 for 5 columns and 4 rows", b)
	}
	// Asking for a rematch leaves the last board's Picture working.
	e.click(bob, finished, "Rematch")
	if resp := e.click(carol, finished, "Picture"); resp.Type != discordgo.InteractionResponseDeferredChannelMessageWithSource {
		t.Fatalf("Picture after a rematch was asked for answered type %d %q, want the deferred picture", resp.Type, text(resp))
	}
}
