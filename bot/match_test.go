package bot_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"
)

// gridCells counts the emoji c in the grid rows of text (lines made of
// cells only), leaving out the lines of words that name a disc too.
func gridCells(text, c string) int {
	n := 0
	for _, line := range strings.Split(text, "\n") {
		if strings.ContainsAny(line, "abcdefghijklmnopqrstuvwxyz") {
			continue
		}
		n += strings.Count(line, c)
	}
	return n
}

// mentionsOnly fails unless msg may ping exactly the users in want.
func mentionsOnly(t *testing.T, what string, am *discordgo.MessageAllowedMentions, want ...string) {
	t.Helper()
	if am == nil || len(am.Parse) != 0 || len(am.Roles) != 0 || !slices.Equal(am.Users, want) {
		t.Errorf("%s: allowed_mentions %+v, want only users %v", what, am, want)
	}
}

// playCompleteMatch plays a whole match to 2 round wins in w, checking what
// the players see at each step: the challenge, refusals for the wrong
// people, a vertical win by the challenger whose message becomes the round's
// record while round 2 starts in a new message, a vertical win by the
// opponent (who opens round 2), a full column, and a horizontal win that
// takes the match 2-1. restart, when not nil, is called in the middle of
// round 2 and must restart the bot on the same database.
func playCompleteMatch(t *testing.T, w *env, restart func()) {
	t.Helper()
	resp := w.send(slashChallenge(alice, bob, map[string]int{"wins": 2}))
	if resp.Type != discordgo.InteractionResponseChannelMessageWithSource || resp.Data.Flags&discordgo.MessageFlagsEphemeral != 0 {
		t.Fatalf("challenge: got type %d flags %d (%q), want a public message", resp.Type, resp.Data.Flags, text(resp))
	}
	mustContain(t, "challenge message", text(resp), "<@"+bobID+">, **Alice** challenges you", "Connect 4",
		"6 rows × 7 columns", "first to win 2 rounds", "🔴 **Alice** opens round 1; the opener alternates", "The challenge expires <t:")
	if strings.Count(text(resp), "<@") != 1 {
		t.Errorf("the challenge mentions more than the opponent:\n%s", text(resp))
	}
	mentionsOnly(t, "challenge", resp.Data.AllowedMentions, bobID)
	if got := labels(w.board().Components); got != "Accept Decline" {
		t.Errorf("challenge buttons = %q, want Accept Decline", got)
	}

	mustPrivate(t, w.click(carol, w.board(), "Accept"), "between two other players")
	mustPrivate(t, w.click(alice, w.board(), "Accept"), "can't accept your own challenge")
	resp = w.click(bob, w.board(), "Accept")
	mustUpdate(t, resp)
	mustContain(t, "board after accept", text(resp), "Connect 4 · Round 1", "🔴 **Alice** 0 – 0 **Bob** 🟡",
		"🔴 **Alice** to play", "\n\n1️⃣2️⃣3️⃣4️⃣5️⃣6️⃣7️⃣\n"+strings.Repeat(strings.Repeat("🟦", 7)+"\n", 5)+strings.Repeat("🟦", 7), "The turn runs out <t:")
	if strings.Contains(text(resp), "Longest run") {
		t.Errorf("a fresh board shows the longest runs:\n%s", text(resp))
	}
	if !strings.HasPrefix(resp.Data.Content, "<@"+aliceID+">") {
		t.Errorf("board content %q does not start with the player to move", resp.Data.Content)
	}
	mentionsOnly(t, "board", resp.Data.AllowedMentions, aliceID)
	if got, want := labels(resp.Data.Components), "1 2 3 4 5 6 7 Forfeit match"; got != want {
		t.Errorf("buttons: got %q, want %q", got, want)
	}
	if rows := resp.Data.Components; len(rows) != 3 || len(buttons(rows[2:])) != 1 {
		t.Errorf("Forfeit match is not alone on the last of 3 rows: %d rows", len(rows))
	}

	mustPrivate(t, w.click(bob, w.board(), "1"), "not your turn")
	mustPrivate(t, w.click(carol, w.board(), "1"), "not playing in this match")

	// Round 1: Alice opens and wins vertically in column 1.
	stale := findButton(t, w.board().Components, "3").CustomID
	resp = w.play(alice, bob, "1")
	if got := gridCells(text(resp), "⬇️"); got != 1 || !strings.Contains(text(resp), "⬇️2️⃣3️⃣") {
		t.Errorf("after the first disc: %d last-disc marks, want 1 over column 1:\n%s", got, text(resp))
	}
	mustContain(t, "board after one disc", text(resp), "⬇️ Last disc: 🔴 column 1 · Longest run: 🔴 **1** · 🟡 **0**", "Bob** to play")
	mentionsOnly(t, "board", resp.Data.AllowedMentions, bobID)
	w.play(bob, alice, "2", "1", "2", "1", "2")
	mustPrivate(t, w.send(componentClick(alice, w.board(), stale)), "moved on")
	first := w.board()
	// The click that ends round 1 is answered with round 2's board, a new
	// message; the message clicked becomes round 1's record.
	resp = w.click(alice, first, "1")
	mustNextBoard(t, resp)
	record := w.message(first.ID)
	mustContain(t, "round 1 record", messageText(record), "Connect 4 · Round 1 result", "🟥 4 in a row: column 1, rows 1–4", "🔴 **Alice** wins the round.",
		"🔴 **Alice** 1 – 0 **Bob** 🟡", "Round 2 starts in a new message below")
	if record.Content != "" {
		t.Errorf("round 1 record keeps content %q", record.Content)
	}
	if got := gridCells(messageText(record), "🟥"); got != 4 {
		t.Errorf("round 1 record: %d highlighted discs, want 4:\n%s", got, messageText(record))
	}
	if len(record.Components) != 0 {
		t.Errorf("round 1 record keeps buttons %q", labels(record.Components))
	}
	msgs := w.public()
	if len(msgs) != 2 {
		t.Fatalf("after round 1 the channel has %d messages, want the record and round 2's board", len(msgs))
	}
	round2 := msgs[1]
	if got, want := messageText(round2), text(resp); got != want {
		t.Errorf("round 2's message reads\n%s\nwant the response\n%s", got, want)
	}
	mustContain(t, "round 2 board", messageText(round2), "Connect 4 · Round 2", "🔴 **Alice** 1 – 0 **Bob** 🟡",
		"1️⃣2️⃣3️⃣4️⃣5️⃣6️⃣7️⃣\n"+strings.Repeat(strings.Repeat("🟦", 7)+"\n", 6), "🟡 **Bob** opens: pick a column.")
	if !strings.HasPrefix(round2.Content, "<@"+bobID+">") {
		t.Errorf("round 2 board content %q does not ping Bob", round2.Content)
	}
	mentionsOnly(t, "round 2 board", resp.Data.AllowedMentions, bobID)

	// Round 2: Bob opens and wins vertically in column 7.
	mustPrivate(t, w.click(alice, round2, "7"), "not your turn")
	w.play(bob, alice, "7", "6", "7", "6")
	if restart != nil {
		restart()
	}
	w.play(bob, alice, "7", "6")
	second := w.board()
	resp = w.click(bob, second, "7")
	mustNextBoard(t, resp)
	record = w.message(second.ID)
	mustContain(t, "round 2 record", messageText(record), "🟨 4 in a row: column 7, rows 1–4", "🟡 **Bob** wins the round.", "🔴 **Alice** 1 – 1 **Bob** 🟡", "Round 3 starts in a new message below")
	if got := gridCells(messageText(record), "🟨"); got != 4 {
		t.Errorf("round 2 record: %d highlighted discs, want 4:\n%s", got, messageText(record))
	}
	round3 := w.board()
	mustContain(t, "round 3 board", messageText(round3), "Connect 4 · Round 3", "🔴 **Alice** opens: pick a column.")

	// Round 3: column 1 fills up without a line, then Alice connects the
	// bottom row.
	w.play(alice, bob, "1", "1", "1", "1", "1", "1")
	full := findButton(t, w.board().Components, "1")
	if !full.Disabled {
		t.Errorf("button 1 of a full column is enabled")
	}
	mustPrivate(t, w.send(componentClick(alice, w.board(), full.CustomID)), "column is full")
	w.play(alice, bob, "2", "2", "3", "3")
	resp = w.click(alice, w.board(), "4")
	mustUpdate(t, resp)
	mustContain(t, "final message", text(resp), "Connect 4 · Match over", "🔴 **Alice** 2 – 1 **Bob** 🟡",
		"🟥 4 in a row: the bottom row, columns 1–4", "🏆 🔴 **Alice** wins round 3 and the match!", "Matches between them in this server: Alice **1** – **0** Bob")
	if got := labels(resp.Data.Components); got != "Rematch Picture" {
		t.Errorf("final message buttons %q, want Rematch Picture", got)
	}
	mentionsOnly(t, "final message", resp.Data.AllowedMentions)

	// A click from an old board of this match shows the result again.
	mustUpdate(t, w.send(componentClick(bob, w.board(), full.CustomID)))

	// The channel's history shows every round.
	var titles []string
	for _, m := range w.public() {
		titles = append(titles, m.Embeds[0].Title)
	}
	if got, want := strings.Join(titles, " | "), "Connect 4 · Round 1 result | Connect 4 · Round 2 result | Connect 4 · Match over"; got != want {
		t.Errorf("channel history = %q, want %q", got, want)
	}
}

func TestCompleteMatch(t *testing.T) {
	e := newEnv(t)
	playCompleteMatch(t, e, e.restart)
	a, err := e.store.Stats(context.Background(), guildID, aliceID, false)
	if err != nil || a.Wins != 1 || a.RoundsWon != 2 || a.RoundsLost != 1 {
		t.Errorf("Alice's stats = %+v, %v, want 1 win, rounds 2-1", a, err)
	}
}
