package bot_test

import (
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"
)

// playCompleteMatch plays a whole match to -wins 2 through ch, checking what
// the players see at each step: the challenge, refusals for the wrong
// people, a vertical win by the challenger, a vertical win by the opponent
// (who opens round 2), a full column, and a horizontal win that takes the
// match 2-1. restart, when not nil, is called in the middle of round 2 and
// must return a channel on a new process that opened the same database.
func playCompleteMatch(t *testing.T, ch *channel, restart func(*channel) *channel) {
	t.Helper()
	resp := ch.command(slashChallenge(alice, bob, map[string]int{"wins": 2}))
	if resp.Type != discordgo.InteractionResponseChannelMessageWithSource || resp.Data.Flags&discordgo.MessageFlagsEphemeral != 0 {
		t.Fatalf("challenge: got type %d flags %d (%q), want a public message", resp.Type, resp.Data.Flags, text(resp))
	}
	for _, want := range []string{"<@" + aliceID + ">", "<@" + bobID + ">", "Alice", "Bob", "Connect 4", "6 rows × 7 columns", "first to 2 round wins"} {
		if !strings.Contains(text(resp), want) {
			t.Errorf("challenge message %q lacks %q", text(resp), want)
		}
	}
	findButton(t, ch.msg.Components, "Accept")
	findButton(t, ch.msg.Components, "Decline")

	mustPrivate(t, ch.click(carol, "Accept"), "between two other players")
	mustPrivate(t, ch.click(alice, "Accept"), "can't accept your own challenge")
	resp = ch.click(bob, "Accept")
	mustUpdate(t, resp)
	for _, want := range []string{"Round 1", "🔴 **Alice**", "🟡 **Bob**", "1️⃣2️⃣3️⃣4️⃣5️⃣6️⃣7️⃣", strings.Repeat("⚪", 7), "Alice** to play"} {
		if !strings.Contains(text(resp), want) {
			t.Errorf("board after accept %q lacks %q", text(resp), want)
		}
	}
	var labels []string
	for _, b := range buttons(ch.msg.Components) {
		labels = append(labels, b.Label)
	}
	if got, want := strings.Join(labels, " "), "1 2 3 4 5 6 7 Forfeit"; got != want {
		t.Errorf("buttons: got %q, want %q", got, want)
	}

	mustPrivate(t, ch.click(bob, "1"), "not your turn")
	mustPrivate(t, ch.click(carol, "1"), "not playing in this match")

	// Round 1: Alice opens and wins vertically in column 1.
	stale := findButton(t, ch.msg.Components, "3").CustomID
	for i, col := range []string{"1", "2", "1", "2", "1", "2"} {
		mustUpdate(t, ch.click([]user{alice, bob}[i%2], col))
	}
	mustPrivate(t, ch.clickID(alice, stale), "moved on")
	resp = ch.click(alice, "1")
	mustUpdate(t, resp)
	for _, want := range []string{"Alice** wins round 1", "Round 2: 🟡 **Bob** opens", "Score: **1 – 0**", "Connect 4 · Round 2"} {
		if !strings.Contains(text(resp), want) {
			t.Errorf("after round 1 %q lacks %q", text(resp), want)
		}
	}
	if got := strings.Count(text(resp), "🟥"); got != 4 {
		t.Errorf("after round 1: %d highlighted discs, want 4:\n%s", got, text(resp))
	}

	// Round 2: Bob opens and wins vertically in column 7.
	mustPrivate(t, ch.click(alice, "7"), "not your turn")
	for i, col := range []string{"7", "6", "7", "6"} {
		mustUpdate(t, ch.click([]user{bob, alice}[i%2], col))
	}
	if restart != nil {
		ch = restart(ch)
	}
	for i, col := range []string{"7", "6"} {
		mustUpdate(t, ch.click([]user{bob, alice}[i%2], col))
	}
	resp = ch.click(bob, "7")
	mustUpdate(t, resp)
	for _, want := range []string{"Bob** wins round 2", "Score: **1 – 1**", "Round 3: 🔴 **Alice** opens"} {
		if !strings.Contains(text(resp), want) {
			t.Errorf("after round 2 %q lacks %q", text(resp), want)
		}
	}
	if got := strings.Count(text(resp), "🟨"); got != 4 {
		t.Errorf("after round 2: %d highlighted discs, want 4:\n%s", got, text(resp))
	}

	// Round 3: column 1 fills up without a line, then Alice connects the
	// bottom row.
	for i := 0; i < 6; i++ {
		mustUpdate(t, ch.click([]user{alice, bob}[i%2], "1"))
	}
	full := findButton(t, ch.msg.Components, "1")
	if !full.Disabled {
		t.Errorf("button 1 of a full column is enabled")
	}
	mustPrivate(t, ch.clickID(alice, full.CustomID), "column is full")
	for i, col := range []string{"2", "2", "3", "3"} {
		mustUpdate(t, ch.click([]user{alice, bob}[i%2], col))
	}
	resp = ch.click(alice, "4")
	mustUpdate(t, resp)
	for _, want := range []string{"Alice** wins round 3", "Alice** wins the match 2–1", "Match over"} {
		if !strings.Contains(text(resp), want) {
			t.Errorf("final message %q lacks %q", text(resp), want)
		}
	}
	if n := len(buttons(ch.msg.Components)); n != 0 {
		t.Errorf("final message has %d buttons, want none", n)
	}
	mustPrivate(t, ch.clickID(bob, full.CustomID), "match is over")
}

func TestCompleteMatchDirect(t *testing.T) {
	store, _ := mustOpenStore(t)
	playCompleteMatch(t, newChannel(t, direct(newHandler(store))), nil)
}
