package bot

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/connectn/connectn/bot/internal/render"

	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/game/ai"
	"github.com/connectn/connectn/locale"
	"github.com/connectn/connectn/sessions"
)

// TestEveryRefusalHasText: every reason a refusal can carry (the
// lifecycle's and the bot's own, all declared with sessions.NewReason) has
// its message in the catalog, so no refusal reaches a user as an apology
// or as a message ID.
func TestEveryRefusalHasText(t *testing.T) {
	reasons := sessions.Reasons()
	if len(reasons) < 20 {
		t.Fatalf("only %d reasons declared", len(reasons))
	}
	l := locale.Default().NewLocalizer()
	for _, r := range reasons {
		if strings.HasPrefix(r.String(), "test_") {
			continue // declared by a test
		}
		if text := l.T(r.MessageID()); text == "" || strings.HasPrefix(text, "[") {
			t.Errorf("reason %s has no text (message %s)", r, r.MessageID())
		}
	}
	if m := l.Missing(); len(m) > 0 {
		t.Errorf("missing from the catalog: %q", m)
	}
}

// TestCatalogCoversTheBot renders every message of the bot with a
// localizer of its own, and checks that every message it asked for is in
// the catalog, that every message ID the code names is too, and that every
// message of bot.en.toml is read somewhere: by the renders, or by name in
// the code.
func TestCatalogCoversTheBot(t *testing.T) {
	l := locale.Default().NewLocalizer()
	for _, cfg := range []game.Config{{Rows: 6, Columns: 7, Connect: 4, Wins: 2}, {Rows: 4, Columns: 4, Connect: 3, Wins: 1}} {
		for _, th := range render.Themes {
			round := fillRound(cfg, 3)
			for _, moves := range [][]int{nil, round[:len(round)/2], round} {
				s := testSession(t, cfg, th.Name, moves, "Alice", "")
				allMessagesIn(l, s)
				render.ForfeitPrompt(l, s, game.Player1)
				for _, level := range ai.Levels() {
					vsBot := *s
					vsBot.AI = level.String()
					render.Footer(l, &vsBot)
				}
			}
		}
	}
	for _, s := range endedMatches(t) {
		render.MatchOver(l, s, nil, "", false)
		direct := *s
		direct.GuildID = ""
		render.MatchOver(l, &direct, &sessions.PairRecord{Wins: 1}, "", false)
	}
	for _, turn := range []time.Duration{30 * time.Second, 5 * time.Minute, time.Hour} {
		for p := range helpPages {
			helpMessage(l, turn, p)
		}
	}
	render.Leaderboard(l, false, nil)
	render.Leaderboard(l, true, nil)
	render.Leaderboard(l, false, []sessions.Stats{{UserID: "1"}, {UserID: "2"}, {UserID: "3"}, {UserID: "4"}})
	render.Stats(l, true, "Bob", sessions.Stats{Matches: 1, Streak: 1, BestStreak: 1}, sessions.Stats{Matches: 2}, &sessions.PairRecord{Wins: 1}, "Alice", sessions.MemberRating{})
	render.Stats(l, false, "Bob", sessions.Stats{Matches: 2, BestStreak: 1}, sessions.Stats{}, nil, "Bob", sessions.MemberRating{})
	render.Stats(l, false, "Bob", sessions.Stats{}, sessions.Stats{}, nil, "Bob", sessions.MemberRating{})
	for k, cmd := range commands(l) {
		localize(cmd, commands(l)[k], l, "xx")
	}
	for _, r := range sessions.Reasons() {
		l.T(r.MessageID())
	}
	if m := l.Missing(); len(m) > 0 {
		t.Errorf("the renders ask for messages the catalog lacks: %q", m)
	}
	read, literals := namedInCode(t)
	for id := range read {
		if !l.Has(id) {
			t.Errorf("the code reads message %q, which the catalog lacks", id)
		}
	}
	resolved := l.Resolved()
	for _, id := range locale.Default().IDsIn("bot.en.toml") {
		if !slices.Contains(resolved, id) && !literals[id] {
			t.Errorf("message %q of bot.en.toml is never read", id)
		}
	}
}

// namedInCode returns the message IDs the bot's code (not its tests;
// its rooms render and outbox included) reads
// by name, as a literal passed to a localizer's T or N, and every string
// literal of the code that may be a message ID (the names that functions
// such as verdict return).
func namedInCode(t *testing.T) (read, literals map[string]bool) {
	t.Helper()
	var files []string
	for _, dir := range []string{".", "internal/render", "internal/outbox"} {
		in, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, in...)
	}
	call := regexp.MustCompile(`\.[TN]\("([a-z][a-z0-9_]*[a-z0-9])"`)
	literal := regexp.MustCompile(`"([a-z][a-z0-9_]*[a-z0-9])"`)
	read, literals = map[string]bool{}, map[string]bool{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range call.FindAllStringSubmatch(string(b), -1) {
			read[m[1]] = true
		}
		for _, m := range literal.FindAllStringSubmatch(string(b), -1) {
			literals[m[1]] = true
		}
	}
	if len(read) < 50 {
		t.Fatalf("only %d message IDs found by name in the code", len(read))
	}
	return read, literals
}
