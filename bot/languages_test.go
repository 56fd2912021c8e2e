package bot

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot/internal/render"

	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/locale"
	"github.com/connectn/connectn/sessions"
)

// TestMessagesFitDiscordLimitsInEveryLanguage renders every message of the
// bot in every language of the catalog on the largest board (12 × 12, the
// shortest and the longest line, every theme), with the longest names
// and figures, and holds each against Discord's limits: a translation
// longer than English must still fit.
func TestMessagesFitDiscordLimitsInEveryLanguage(t *testing.T) {
	langs := locale.Default().Languages()
	if len(langs) < 17 {
		t.Fatalf("the catalog has %d languages, want at least 17 (English and 16 of Discord's locales)", len(langs))
	}
	top := make([]sessions.Stats, leaderboardTop)
	for k := range top {
		top[k] = sessions.Stats{UserID: "14000000000000000" + fmt.Sprint(10+k), Matches: 1 << 30, Wins: 1 << 30, Losses: 1 << 30}
	}
	big := sessions.Stats{Matches: 1 << 30, Wins: 1 << 30, Losses: 1 << 30, RoundsWon: 1 << 30, RoundsLost: 1 << 30,
		RoundsDrawn: 1 << 30, Streak: 1 << 30, BestStreak: 1 << 30}
	for _, lang := range langs {
		l := locale.Default().NewLocalizer(lang)
		checked := 0
		check := func(what string, msg *message) {
			t.Helper()
			if bad := checkLimits(msg); len(bad) > 0 {
				t.Errorf("%s, %s: %v", lang, what, bad)
			}
			checked++
		}
		for _, connect := range []int{minConnect, maxConnect} {
			for ti, th := range render.Themes {
				cfg := game.Config{Rows: maxRows, Columns: maxColumns, Connect: connect, Wins: maxWins}
				round := fillRound(cfg, uint64(connect*10+ti))
				one := cfg
				one.Wins = 1
				for _, s := range []*sessions.Session{
					testSession(t, cfg, th.Name, round[:len(round)/2], worstName, worstName),
					testSession(t, cfg, th.Name, round, worstName, worstName),
					testSession(t, one, th.Name, round, worstName, worstName),
				} {
					for phase, msg := range allMessagesIn(l, s) {
						check(fmt.Sprintf("12x12 connect %d, %s, %s", connect, th.Name, phase), msg)
					}
					s.Place.Thread = true
					check("thread link", render.ThreadLink(l, s))
				}
			}
		}
		for _, direct := range []bool{false, true} {
			check("leaderboard", render.Leaderboard(l, direct, top))
			check("stats", render.Stats(l, direct, worstName, big, big, &sessions.PairRecord{Wins: 1 << 30, Losses: 1 << 30}, worstName, sessions.MemberRating{Games: 1 << 30, Best: 99999}))
		}
		for p := range helpPages {
			check(fmt.Sprint("help page ", p), helpMessage(l, 59*time.Minute+59*time.Second, p))
		}
		for _, r := range sessions.Reasons() {
			if strings.HasPrefix(r.String(), "test_") {
				continue
			}
			check("refusal "+r.String(), render.Ephemeral(l.T(r.MessageID(), worstArgs(l, r.MessageID())...)).Data)
		}
		for _, cmd := range Commands() {
			if err := checkCommand(cmd, discordgo.Locale(lang)); err != nil {
				t.Errorf("%s: /%s: %v", lang, cmd.Name, err)
			}
		}
		if checked < 60 {
			t.Errorf("%s: only %d messages checked", lang, checked)
		}
		if m := l.Missing(); len(m) > 0 {
			t.Errorf("%s: messages missing: %q", lang, m)
		}
	}
}

// worstArgs fills every field of message id with the longest value it
// may hold: a bold escaped longest name, a markdown link, or a number of
// ten digits.
func worstArgs(l *locale.Localizer, id string) []any {
	forms, _ := locale.Default().Forms(locale.Base, id)
	var args []any
	for _, src := range forms {
		fields, _ := locale.Fields(src)
		for _, f := range fields {
			v := "**" + render.EscapeName(l, worstName) + "**"
			if f == "Link" {
				v = "https://discord.com/channels/1200000000000000001/1300000000000000001/1700000000000000001"
			}
			args = append(args, f, v)
		}
	}
	return args
}

// checkCommand checks the localizations of cmd in lang against Discord's
// rules for application commands: names of 1 to 32 lowercase letters,
// digits, - and _, unique among siblings, descriptions and choice names
// of 1 to 100 characters
// (https://discord.com/developers/docs/interactions/application-commands#application-command-object).
func checkCommand(cmd *discordgo.ApplicationCommand, lang discordgo.Locale) error {
	if lang == discordgo.Locale(locale.Base) {
		return nil // the command's own names and descriptions
	}
	if cmd.NameLocalizations == nil || (*cmd.NameLocalizations)[lang] == "" || (*cmd.DescriptionLocalizations)[lang] == "" {
		return fmt.Errorf("no name or description in %s", lang)
	}
	if err := checkText("description", (*cmd.DescriptionLocalizations)[lang], 100); err != nil {
		return err
	}
	var walk func(opts []*discordgo.ApplicationCommandOption) error
	walk = func(opts []*discordgo.ApplicationCommandOption) error {
		seen := map[string]bool{}
		for _, o := range opts {
			n, d := o.NameLocalizations[lang], o.DescriptionLocalizations[lang]
			if !discordName.MatchString(n) || strings.ToLower(n) != n {
				return fmt.Errorf("%s: name %q breaks Discord's naming rule", o.Name, n)
			}
			if seen[n] {
				return fmt.Errorf("%s: name %q given twice", o.Name, n)
			}
			seen[n] = true
			if err := checkText(o.Name+" description", d, 100); err != nil {
				return err
			}
			for _, ch := range o.Choices {
				if err := checkText(o.Name+" choice "+ch.Value.(string), ch.NameLocalizations[lang], 100); err != nil {
					return err
				}
			}
			if err := walk(o.Options); err != nil {
				return err
			}
		}
		return nil
	}
	return walk(cmd.Options)
}

// discordName is Discord's rule for a CHAT_INPUT command's or option's
// name: 1 to 32 letters, digits, - and _ (Devanagari and Thai marks too).
var discordName = regexp.MustCompile(`^[-_\p{L}\p{N}\p{Devanagari}\p{Thai}]{1,32}$`)

// checkText checks that s has 1 to max characters.
func checkText(what, s string, max int) error {
	if n := len([]rune(s)); n < 1 || n > max {
		return fmt.Errorf("%s %q: %d characters, want 1 to %d", what, s, n, max)
	}
	return nil
}

// TestRenderGoldenInLanguages keeps a board, a round record, a refusal and
// the help in German, Japanese and Polish under testdata/render (refresh
// with -update), and checks what each must show: the message in its
// language (its title and status line as the catalog writes them, the
// game's local name in the help, Polish plural forms), no English left,
// the same board and buttons as in English.
func TestRenderGoldenInLanguages(t *testing.T) {
	classic := game.Config{Rows: 6, Columns: 7, Connect: 4, Wins: 2}
	mid := testSession(t, classic, "classic", []int{3, 3, 4, 2}, "Alice", "Bob")
	record := testSession(t, classic, "classic", []int{0, 1, 0, 1, 0, 1, 0}, "Alice", "Bob")
	small := game.Config{Rows: 4, Columns: 4, Connect: 3, Wins: 5}
	draws := testSession(t, small, "colorblind", []int{0, 1, 2, 3, 2, 2, 2, 0, 3, 3, 0, 0, 3, 1, 1, 1}, "Alice", "Bob")
	english := []string{"to play", "Round", "Longest run", "wins the round", "column", "Last disc", "How to play", "Commands"}
	for _, tt := range []struct {
		lang   string
		native []string // what only this language's help says: the game's local name, a command, a plural form
	}{
		{"de", []string{"Vier gewinnt", "/connectn herausfordern", "5 Minuten"}},
		{"ja", []string{"四目並べ", "/connectn 挑戦", "5分"}},
		{"pl", []string{"Czwórk", "/connectn wyzwij", "5 minut"}},
	} {
		l := locale.Default().NewLocalizer(tt.lang)
		if l.Language() != tt.lang {
			t.Fatalf("the catalog has no %s", tt.lang)
		}
		cases := []goldenCase{
			{name: tt.lang + "-board-6x7", msg: render.Board(l, mid),
				facts:  []string{l.T("board_title", "Connect", 4, "Round", 1), l.T("board_to_play", "Player", "🔴 **Alice**"), "1️⃣2️⃣⬇️4️⃣5️⃣6️⃣7️⃣\n", "🟦🟦🟡🔴🔴🟦🟦\n"},
				absent: english, buttons: []int{4, 3, 1}},
			{name: tt.lang + "-round-record-6x7", msg: render.RoundRecord(l, record, record.Match.Previous()),
				facts:  []string{l.T("record_title", "Connect", 4, "Round", 1), l.T("round_won", "Winner", "🔴 **Alice**"), "🟥"},
				absent: english},
			{name: tt.lang + "-round-record-draw", msg: render.RoundRecord(l, draws, draws.Match.Previous()),
				facts:  []string{l.T("round_drawn"), l.N("board_draws", 1)},
				absent: english},
			{name: tt.lang + "-refusal", msg: render.Ephemeral(l.T("refusal_connect_too_long", "Connect", 9, "Rows", 6, "Columns", 7, "Max", 7)).Data,
				facts: []string{"9", "7"}, absent: english},
			{name: tt.lang + "-help", msg: renderHelp(l, 5*time.Minute).Data,
				facts: append([]string{l.T("help_title"), l.N("duration_minutes", 5)}, tt.native...), absent: []string{"How to play", "Commands", "/connectn challenge", "opponent:"}, buttons: []int{3, 2}},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) { checkGolden(t, tc) })
		}
	}
}

// TestCommandsWithinDiscordsSize: each registered command, with every
// language's names and descriptions, stays within Discord's 8000
// characters for the names, descriptions and values of a command, its
// options and choices, where only the longest localization of each field
// counts
// (https://discord.com/developers/docs/interactions/application-commands#registering-a-command).
func TestCommandsWithinDiscordsSize(t *testing.T) {
	longest := func(def string, m map[discordgo.Locale]string) int {
		n := len([]rune(def))
		for _, v := range m {
			n = max(n, len([]rune(v)))
		}
		return n
	}
	for _, cmd := range Commands() {
		total := longest(cmd.Name, *cmd.NameLocalizations) + longest(cmd.Description, *cmd.DescriptionLocalizations)
		var walk func(opts []*discordgo.ApplicationCommandOption)
		walk = func(opts []*discordgo.ApplicationCommandOption) {
			for _, o := range opts {
				total += longest(o.Name, o.NameLocalizations) + longest(o.Description, o.DescriptionLocalizations)
				for _, c := range o.Choices {
					total += longest(c.Name, c.NameLocalizations) + len([]rune(fmt.Sprint(c.Value)))
				}
				walk(o.Options)
			}
		}
		walk(cmd.Options)
		if total > 8000 || total < 1000 {
			t.Errorf("/%s counts %d characters, want at most 8000 (and more than 1000: every field counted)", cmd.Name, total)
		}
	}
}
