package bot_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot/discordtest"
)

// in returns the envelope of a new interaction by u in the test channel,
// u's client and the server both in lang.
func in(u user, lang string) discordtest.Envelope {
	e := from(u)
	e.Locale, e.GuildLocale = lang, lang
	return e
}

// columnLines returns the lines of an analyze message that value a column
// (those starting with a keycap).
func columnLines(shown string) []string {
	var out []string
	for _, line := range strings.Split(shown, "\n") {
		if strings.Contains(line, "\u20e3 ") && !strings.Contains(line, "\u20e3\u20e3") {
			out = append(out, line)
		}
	}
	return out
}

// TestAnalyzeKnowsTheOpening: /connectn help's example, analyze 4453 on
// the standard board, gives every column a verdict (the table of weak
// results knows them), and a column that wins at once says so.
func TestAnalyzeKnowsTheOpening(t *testing.T) {
	e := newAIEnv(t, &scriptedAI{})
	e.send(slash(alice, "analyze", "moves", "4453"))
	shown := messageText(e.board())
	lines := columnLines(shown)
	if len(lines) != 7 {
		t.Fatalf("%d column lines, want 7:\n%s", len(lines), shown)
	}
	for _, line := range lines {
		if !strings.ContainsAny(line, "✅❌➖") || strings.Contains(line, "⏳") {
			t.Errorf("analyze 4453: %q has no verdict", line)
		}
	}
	e.send(slash(alice, "analyze", "moves", "121213"))
	mustContain(t, "analyze 121213", messageText(e.board()), "1️⃣ ✅ wins with this disc")
}

// standardMatch plays a one-round 7x6 match: Alice 4, Bob 4, Alice 5, Bob
// 3, then Alice stacks column 1 while Bob stacks column 2; Alice's fourth
// disc in column 1 (move 11) wins. It returns the replay's first step.
func standardMatch(t *testing.T, e *env, lang string) (*discordgo.InteractionResponse, *discordgo.Message) {
	t.Helper()
	e.startMatch(map[string]int{"wins": 1})
	e.play(alice, bob, "4", "4", "5", "3", "1", "2", "1", "2", "1", "2", "1")
	resp := e.send(discordtest.Slash(in(alice, lang), "connectn", "replay"))
	msg := &discordgo.Message{ID: "1700000000000008888", Components: resp.Data.Components, Flags: discordgo.MessageFlagsEphemeral,
		Embeds: resp.Data.Embeds}
	return resp, msg
}

// step clicks ▶ k times on the replay msg as Alice in lang and returns the
// last response.
func step(t *testing.T, e *env, msg *discordgo.Message, lang string, k int) *discordgo.InteractionResponse {
	t.Helper()
	var resp *discordgo.InteractionResponse
	for i := 0; i < k; i++ {
		b := findButton(t, msg.Components, "▶")
		resp = e.send(discordtest.Click(in(alice, lang), msg, b.CustomID))
		mustUpdate(t, resp)
		msg.Components, msg.Embeds = resp.Data.Components, resp.Data.Embeds
	}
	return resp
}

// TestReplayKnowsTheOpening: every replay step of the first discs of a
// standard match shows a verdict (the table of weak results answers at
// once), and the step after 121213, where column 1 wins at once, says so
// though the other columns are not settled.
func TestReplayKnowsTheOpening(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: its replay steps spend the solver's whole budget on the unsettled columns (12 s); the plain run checks them")
	}
	e := newAIEnv(t, &scriptedAI{})
	resp, msg := standardMatch(t, e, "en-US")
	mustContain(t, "first step", text(resp), "Before the first disc.", "🔴 **Alice** to move: ✅ wins")
	for k := 1; k <= 5; k++ {
		resp = step(t, e, msg, "en-US", 1)
		if got := text(resp); strings.Contains(got, "⏳") || !strings.ContainsAny(got, "✅❌➖") {
			t.Errorf("replay step %d has no verdict:\n%s", k, got)
		}
	}

	e = newAIEnv(t, &scriptedAI{})
	e.startMatch(map[string]int{"wins": 1})
	e.play(alice, bob, "1", "2", "1", "2", "1", "3", "1")
	resp = e.send(slash(alice, "replay"))
	msg = &discordgo.Message{ID: "1700000000000008889", Components: resp.Data.Components, Flags: discordgo.MessageFlagsEphemeral, Embeds: resp.Data.Embeds}
	resp = step(t, e, msg, "en-US", 6)
	mustContain(t, "the step after 121213", text(resp), "Disc 6 of 7", "🔴 **Alice** to move: ✅ wins with this disc")
}

// TestVerdictRenders writes, when CONNECTN_RENDERS names a folder, the
// messages of this feature in English, German and Japanese as JSON for
// discord-look (and the evaluation chart as a PNG): analyze 4453, a replay
// step at 4 discs, the step after 121213, and the Analysis of a standard
// match with its chart.
func TestVerdictRenders(t *testing.T) {
	dir := os.Getenv("CONNECTN_RENDERS")
	if dir == "" {
		t.Skip("CONNECTN_RENDERS not set")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name string, v any) {
		b, err := json.MarshalIndent(v, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, lang := range []string{"en-US", "de", "ja"} {
		e := newAIEnv(t, &scriptedAI{})
		e.send(discordtest.Slash(in(alice, lang), "connectn", "analyze", discordtest.StringArg("moves", "4453")))
		write("analyze-4453-"+lang+".json", e.board())

		_, msg := standardMatch(t, e, lang)
		write("replay-step-4-"+lang+".json", step(t, e, msg, lang, 4))

		b := findButton(t, e.board().Components, "Analysis")
		e.send(discordtest.Click(in(bob, lang), e.board(), b.CustomID))
		var got *discordgo.Message
		for _, m := range e.fake.Messages() {
			if m.Kind == discordtest.WebhookMessageEdit && len(m.Message.Attachments) == 1 {
				got = m.Message
			}
		}
		if got == nil {
			t.Fatal("no analysis")
		}
		write("analysis-"+lang+".json", got)
		if err := os.WriteFile(filepath.Join(dir, "chart-"+lang+".png"), e.attachment(got.Attachments[0]), 0o644); err != nil {
			t.Fatal(err)
		}

		e = newAIEnv(t, &scriptedAI{})
		e.startMatch(map[string]int{"wins": 1})
		e.play(alice, bob, "1", "2", "1", "2", "1", "3", "1")
		resp := e.send(discordtest.Slash(in(alice, lang), "connectn", "replay"))
		msg = &discordgo.Message{ID: "1700000000000008889", Components: resp.Data.Components, Flags: discordgo.MessageFlagsEphemeral, Embeds: resp.Data.Embeds}
		write("replay-121213-"+lang+".json", step(t, e, msg, lang, 6))
	}
}
