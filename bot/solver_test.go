package bot_test

import (
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot/discordtest"
)

// TestAnalyze: /connectn analyze answers "thinking…" in public, then
// shows the position and each column's value from the exact solver; a
// moves string that cannot be played is refused privately at its first
// bad move; a 12 × 12 position the solver cannot settle says so.
func TestAnalyze(t *testing.T) {
	e := newAIEnv(t, &scriptedAI{})
	resp := e.send(slash(alice, "analyze", "moves", "1122", "rows", 4, "columns", 5, "connect", 3))
	if resp.Type != discordgo.InteractionResponseDeferredChannelMessageWithSource {
		t.Fatalf("analyze answered type %d, want a deferred message", resp.Type)
	}
	shown := messageText(e.board())
	mustContain(t, "analysis", shown, "Position after 4 moves", "`1122`", "🔴 to move. Each column, with perfect play:",
		"3️⃣ ✅ wins with this disc", "4 rows × 5 columns")

	// A small board: every column settles.
	e.send(slash(alice, "analyze", "moves", "3", "rows", 4, "columns", 5, "connect", 3))
	small := messageText(e.board())
	mustContain(t, "small board", small, "Position after 1 move", "🟡 to move", "1️⃣ ", "5️⃣ ", "4 rows × 5 columns · Connect 3")
	if strings.Contains(small, "⏳") {
		t.Errorf("a 4 × 5 position was not settled:\n%s", small)
	}

	for _, tt := range []struct{ moves, want string }{
		{"1119", "“9” (move 4) is not a column of this board: use 1 to 7."},
		{"11111111", "move 7 drops a disc in column 1, which is full by then."},
		{"12121212", "move 8 comes after the game was won."},
		{"12x", "“x” (move 3) is not a column"},
	} {
		mustPrivate(t, e.send(slash(alice, "analyze", "moves", tt.moves)), tt.want)
	}

	e.send(slash(alice, "analyze", "moves", "6ac", "rows", 12, "columns", 12))
	big := messageText(e.board())
	mustContain(t, "12x12", big, "Position after 3 moves", "`6ac`", "🇦 ⏳ not settled", "🇱 ⏳ not settled")
}

// TestReplay plays a match of two rounds, then steps through it with
// /connectn replay's buttons: each step shows the board as it stood and
// the solver's verdict; the first and last steps disable the buttons
// that lead nowhere; an unknown match is refused.
func TestReplay(t *testing.T) {
	e := newAIEnv(t, &scriptedAI{})
	mustPrivate(t, e.send(slash(alice, "replay")), "There is no finished match in this channel to replay")
	e.startMatch(map[string]int{"rows": 4, "columns": 5, "connect": 3, "wins": 2})
	e.play(alice, bob, "1", "2", "1", "2", "1")
	e.play(bob, alice, "1", "2", "1", "2", "3", "2")
	last := messageText(e.board())
	mustContain(t, "last board", last, "Round 1: `12121`", "Round 2: `121232`", "Match ")

	resp := e.send(slash(alice, "replay"))
	if resp.Data == nil || resp.Data.Flags&discordgo.MessageFlagsEphemeral == 0 {
		t.Fatalf("replay answered %+v, want a private message", resp)
	}
	mustContain(t, "first step", text(resp), "round 1", "Before the first disc.", "🔴 **Alice** to move: ✅ wins in ")
	msg := &discordgo.Message{ID: "1700000000000008888", Components: resp.Data.Components, Flags: discordgo.MessageFlagsEphemeral,
		Embeds: resp.Data.Embeds}
	if b := findButton(t, msg.Components, "◀"); !b.Disabled {
		t.Error("◀ is enabled on the first step")
	}
	seen := map[string]bool{}
	for _, b := range buttons(msg.Components) {
		if seen[b.CustomID] {
			t.Fatalf("two buttons share custom_id %q", b.CustomID)
		}
		seen[b.CustomID] = true
	}
	// Forward through every disc of both rounds: 11 steps.
	for k := 1; k <= 11; k++ {
		resp = e.click(bob, msg, "▶")
		mustUpdate(t, resp)
		msg.Components, msg.Embeds = resp.Data.Components, resp.Data.Embeds
	}
	mustContain(t, "last step", text(resp), "round 2", "Disc 6 of 6", "wins the round")
	if b := findButton(t, msg.Components, "▶"); !b.Disabled {
		t.Error("▶ is enabled on the last step")
	}
	resp = e.click(bob, msg, "◀")
	mustContain(t, "one step back", text(resp), "round 2", "Disc 5 of 6", "to move: ")
	msg.Components = resp.Data.Components
	resp = e.click(bob, msg, "⏮")
	mustContain(t, "back to the start", text(resp), "round 1", "Before the first disc.")
	msg.Components = resp.Data.Components
	if b := findButton(t, msg.Components, "⏮"); !b.Disabled {
		t.Error("⏮ is enabled on the first step")
	}
	resp = e.click(bob, msg, "⏭")
	mustContain(t, "to the end", text(resp), "round 2", "Disc 6 of 6", "wins the round")

	mustPrivate(t, e.send(slash(alice, "replay", "match", 999999)), "There is no finished match 999999 in this channel.")
	mustPrivate(t, e.send(discordtest.Click(from(alice), msg, "cn:replay:999999:0:1")), "There is no finished match 999999")
}
