package bot

import (
	"regexp"
	"strings"
	"testing"

	"github.com/connectn/connectn/bot/internal/render"

	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/locale"
	"github.com/connectn/connectn/sessions"
)

// unspaced are the languages that put no space between two sentences:
// Japanese and Chinese, whose full stop 。 ends a sentence by itself.
var unspaced = map[string]bool{"ja": true, "zh-CN": true, "zh-TW": true}

// TestSentencesJoinAsEachLanguageDoes: in every language of the catalog,
// two sentences on one line of a message (a closed challenge's reason and
// what to do next; whose turn it is and when it runs out; a challenge's
// answer and its expiry) are joined as the language joins them: with one
// space, or with none in Japanese and Chinese. No message of those
// languages has a space after a full stop.
func TestSentencesJoinAsEachLanguageDoes(t *testing.T) {
	cfg := game.Config{Rows: 6, Columns: 7, Connect: 4, Wins: 2}
	for _, lang := range locale.Default().Languages() {
		l := locale.Default().NewLocalizer(lang)
		sep := " "
		if unspaced[lang] {
			sep = ""
		}
		if got := render.Sentences(l, "A.", "", "B.", "C."); got != "A."+sep+"B."+sep+"C." {
			t.Errorf("%s: Sentences joins %q", lang, got)
		}
		s := testSession(t, cfg, "classic", []int{3, 3, 2}, "Alice", "Bob")
		declined := *s
		declined.Phase, declined.End = sessions.PhaseCancelled, sessions.EndDeclined
		toPlay := l.T("board_to_play", "Player", render.Name(l, s, s.Match.ToMove()))
		challenge := *s
		challenge.Phase = sessions.PhaseChallenge
		for what, want := range map[string]struct {
			msg  *message
			line string
		}{
			"declined": {render.ClosedChallenge(l, &declined),
				l.T("challenge_declined", "Opponent", render.Name(l, s, game.Player2)) + sep + l.T("challenge_no_match")},
			"board": {render.Board(l, s), toPlay + sep + l.T("board_turn_runs_out", "When", render.Timestamp(s.Deadline))},
			"challenge": {render.Challenge(l, &challenge),
				l.T("challenge_answer", "Opponent", "**Bob**") + sep + l.T("challenge_expires", "When", render.Timestamp(s.Deadline))},
		} {
			if got := want.msg.Embeds[0].Description; !strings.Contains(got, want.line) {
				t.Errorf("%s, %s: lacks %q:\n%s", lang, what, want.line, got)
			}
		}
		if !unspaced[lang] {
			continue
		}
		for phase, msg := range allMessagesIn(l, s) {
			for _, e := range msg.Embeds {
				for _, stop := range []string{"。 ", "！ ", "？ "} {
					if strings.Contains(e.Description, stop) {
						t.Errorf("%s, %s: a space after a full stop: %q", lang, phase, e.Description)
					}
				}
			}
		}
	}
}

// TestEndedMatchTitleSaysItIsOver: a match a moderator ended while it was
// played keeps its board, under a title that says it is over, in every
// language: not the live board's title, and naming the round.
func TestEndedMatchTitleSaysItIsOver(t *testing.T) {
	cfg := game.Config{Rows: 6, Columns: 7, Connect: 5, Wins: 2}
	for _, lang := range locale.Default().Languages() {
		l := locale.Default().NewLocalizer(lang)
		s := testSession(t, cfg, "classic", []int{3, 3, 2}, "Alice", "Bob")
		s.Phase, s.End, s.EndedBy = sessions.PhaseCancelled, sessions.EndEnded, "1400000000000000003"
		got := render.Session(l, s).Embeds[0].Title
		if live := l.T("board_title", "Connect", 5, "Round", 1); got == live || !strings.Contains(got, "1") || !strings.Contains(got, "5") {
			t.Errorf("%s: the ended match's title is %q; want one that says it is over (the live board's is %q)", lang, got, live)
		}
		if ended := l.T("board_title_ended", "Connect", 5, "Round", 1); got != ended {
			t.Errorf("%s: the ended match's title is %q, want %q", lang, got, ended)
		}
	}
}

// labelBefore returns the bold label ("**Best:**") that comes last before
// the field field in message id of l, read with count n.
func labelBefore(l *locale.Localizer, id string, n int, field string) string {
	text, _, _ := strings.Cut(l.N(id, n, field, "\x00"), "\x00")
	end := strings.LastIndex(text, "**")
	start := strings.LastIndex(text[:max(end, 0)], "**")
	if start < 0 || end < 0 {
		return ""
	}
	return text[start : end+2]
}

// TestStatsLabelsDistinct: in every language, the best rating and the
// longest streak of /connectn stats have labels of their own (English had
// "Best:" for both, Japanese 最高 twice).
func TestStatsLabelsDistinct(t *testing.T) {
	for _, lang := range locale.Default().Languages() {
		l := locale.Default().NewLocalizer(lang)
		for _, n := range []int{1, 2, 5} {
			rating := []string{labelBefore(l, "stats_rating", n, "Best"), labelBefore(l, "stats_rating_provisional", n, "Best")}
			streak := []string{labelBefore(l, "stats_streak", n, "Best"), labelBefore(l, "stats_streak_ended", n, "Count")}
			for _, r := range rating {
				for _, s := range streak {
					if r == "" || s == "" || r == s {
						t.Errorf("%s, count %d: the best rating is labelled %q, the longest streak %q; want two labels", lang, n, r, s)
					}
				}
			}
		}
	}
}

// TestBotHasOneName: the bot's name on the board and in stats is the
// product's name as every title writes it ("Connect N"), in every
// language, whatever name its seat was stored with.
func TestBotHasOneName(t *testing.T) {
	cfg := game.Config{Rows: 6, Columns: 7, Connect: 4, Wins: 1}
	for _, lang := range locale.Default().Languages() {
		l := locale.Default().NewLocalizer(lang)
		if title := l.T("help_title"); !strings.Contains(title, render.BotName) {
			t.Errorf("%s: the help's title %q does not name the bot as the board does, %q", lang, title, render.BotName)
		}
		// The bot's seat stored as a member picked it (its name in
		// Discord) or as an older version named it.
		s := testSession(t, cfg, "classic", []int{3, 3, 2}, "Alice", "ConnectN")
		s.AI = "medium"
		if got := render.Board(l, s).Embeds[0].Description; !strings.Contains(got, "**Connect N**") || strings.Contains(got, "ConnectN") {
			t.Errorf("%s: the board against the bot does not name it Connect N:\n%s", lang, got)
		}
	}
}

// TestMovesLineSaysWhatItIs: under a match's last board, in every
// language, the moves strings come in one line of small print that says
// what they are and names /connectn replay (in the language's name of
// the subcommand), which steps through them.
func TestMovesLineSaysWhatItIs(t *testing.T) {
	cfg := game.Config{Rows: 4, Columns: 4, Connect: 3, Wins: 1}
	for _, lang := range locale.Default().Languages() {
		l := locale.Default().NewLocalizer(lang)
		s := testSession(t, cfg, "classic", []int{0, 1, 0, 1, 0}, "Alice", "Bob")
		desc := render.MatchOver(l, s, nil, "", false).Embeds[0].Description
		var line string
		for _, ln := range strings.Split(desc, "\n") {
			if strings.Contains(ln, "`12121`") {
				line = ln
			}
		}
		if !strings.HasPrefix(line, "-# ") || !strings.Contains(line, "`/connectn "+l.T("name_replay")+"`") {
			t.Errorf("%s: the moves line %q is not small print naming /connectn %s:\n%s", lang, line, l.T("name_replay"), desc)
		}
	}
}

// TestNoOptionNameInSentences: no message of any language puts an
// option's name in bold in a sentence, as if it were a number ("Line up
// **connect** of your discs", "Wer **länge** eigene Steine…"): an option
// is quoted as code where the text tells what to type, and a rule says
// what it means in words.
func TestNoOptionNameInSentences(t *testing.T) {
	c := locale.Default()
	var options []string
	for _, id := range c.IDs() {
		if strings.HasPrefix(id, "name_option_") {
			options = append(options, id)
		}
	}
	if len(options) < 10 {
		t.Fatalf("only %d option names in the catalog", len(options))
	}
	for _, lang := range c.Languages() {
		l := c.NewLocalizer(lang)
		for _, id := range c.IDs() {
			forms, ok := c.Forms(lang, id)
			if !ok {
				continue
			}
			for _, src := range forms {
				for _, o := range options {
					if name := l.T(o); strings.Contains(src, "**"+name+"**") {
						t.Errorf("%s %s puts the option %q in bold in a sentence: %q", lang, id, name, src)
					}
				}
			}
		}
	}
}

// TestRefusalsNameButtonsByLabel: no refusal of the base language writes a
// button's label itself ("you can Decline to withdraw it", on a message
// whose button was Withdraw): a refusal that tells the clicker which
// button to use reads its label as the field Button, filled in with the
// label the message shows (TestRefusalsNameButtonsOnTheMessage drives
// each one).
func TestRefusalsNameButtonsByLabel(t *testing.T) {
	c := locale.Default()
	var labels []string
	for _, id := range c.IDs() {
		if strings.HasPrefix(id, "button_") {
			labels = append(labels, locale.English().T(id))
		}
	}
	if len(labels) < 10 {
		t.Fatalf("only %d button labels in the catalog", len(labels))
	}
	for _, r := range sessions.Reasons() {
		forms, ok := c.Forms(locale.Base, r.MessageID())
		if !ok {
			continue
		}
		for _, src := range forms {
			for _, label := range labels {
				if regexp.MustCompile(`\b` + regexp.QuoteMeta(label) + `\b`).MatchString(src) {
					t.Errorf("%s writes the button label %q itself: %q; read it as {{.Button}}", r.MessageID(), label, src)
				}
			}
		}
	}
}
