package console

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/width"

	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/game/ai"
	"github.com/connectn/connectn/locale"
)

// Exit statuses returned by Main.
const (
	exitOK    = 0 // the players stopped, or input ended
	exitIO    = 1 // input could not be read or output could not be written
	exitUsage = 2 // bad flags or arguments
)

// maxNameLength is the longest player name accepted, in characters.
const maxNameLength = 32

// settings is everything the flags decide.
type settings struct {
	cfg   game.Config
	names [3]string   // indexed by game.Player
	zero  bool        // number columns from 0
	ai    game.Player // the player the AI plays, NoPlayer for none
	level ai.Level
}

// Main plays Connect N matches in a terminal. args are the flags after
// "connectn play" (see usage, printed by -h); stdin gives the players' lines,
// stdout shows the game, and stderr receives usage and I/O errors. color
// turns on ANSI colours (red x, yellow o); pass ColorEnabled(os.Stdout,
// os.Getenv). Lines read from an stdin that is not a terminal are echoed after
// their prompt, so a piped session reads like a typed one.
//
// Main returns the exit status: 0 when the players stop (no to "Play again?")
// or the input ends, and also for -h (usage on stdout); 2 for a bad flag
// value, an unknown flag or an unexpected argument, after a message naming
// the problem and the usage on stderr; 1 when stdin cannot be read or stdout
// cannot be written, except that a broken pipe on stdout (the reader went
// away, as in connectn play | head) ends it quietly with
// status 0.
//
// Main speaks the language the -lang flag names (a catalog language such
// as de, pt-BR or ja), else the first of the environment variables LC_ALL,
// LC_MESSAGES and LANG (read through getenv, POSIX's order) that is set,
// for a language the catalog has ("de_DE.UTF-8"), else English; a -lang
// the catalog does not have is a bad flag value. Its text comes from
// package locale's catalog, except the errors of the operating system and
// those of package flag, which are their own.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer, color bool, getenv func(string) string) int {
	l, problem := language(args, getenv)
	if problem != "" {
		fmt.Fprintln(stderr, problem)
		fmt.Fprint(stderr, usage(l))
		return exitUsage
	}
	return run(l, args, stdin, stdout, stderr, color)
}

// language returns the localizer Main speaks (see Main), and the problem
// with a -lang value the catalog has no language for ("" when none).
func language(args []string, getenv func(string) string) (*locale.Localizer, string) {
	c := locale.Default()
	env := ""
	for _, name := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		if v := getenv(name); v != "" {
			env = v
			break
		}
	}
	lang, given := langFlag(args)
	if !given {
		return c.Localizer(env), ""
	}
	if !knows(c, lang) {
		l := c.Localizer(env)
		return l, l.T("console_flag_lang_unknown", "Value", strconv.Quote(lang), "Languages", strings.Join(c.Languages(), ", "))
	}
	return c.Localizer(lang), ""
}

// knows reports whether the catalog has a language for lang: one that
// matches it, or English for a tag of English.
func knows(c *locale.Catalog, lang string) bool {
	if lang == "" {
		return false
	}
	if first := c.Chain(lang)[0]; first != locale.Base {
		return true
	}
	base, _, _ := strings.Cut(strings.ReplaceAll(lang, "_", "-"), "-")
	return strings.EqualFold(base, locale.Base)
}

// langFlag finds the -lang flag in args by parsing them once with every
// flag defined (errors silenced: the real parse reports them, in the
// language found), so that the usage and the errors of the other flags
// speak its language. A -lang after a bad flag is not seen.
func langFlag(args []string) (value string, given bool) {
	fs, v := newFlagSet(io.Discard, locale.English())
	fs.Bool("h", false, "")
	fs.Bool("help", false, "")
	_ = fs.Parse(args)
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == "lang" })
	return *v.lang, given
}

// run is Main speaking through l.
func run(l *locale.Localizer, args []string, stdin io.Reader, stdout, stderr io.Writer, color bool) int {
	s, status, ok := parseFlags(l, args, stdout, stderr)
	if !ok {
		return status
	}
	return newSession(l, s, stdin, stdout, stderr, color).run()
}

// ColorEnabled reports whether to colour output written to f: f is a
// terminal (a character device), the NO_COLOR environment variable, read
// through getenv, is unset or empty (https://no-color.org), and TERM is not
// "dumb" (a terminal that understands no escape codes). A nil f is not a
// terminal.
func ColorEnabled(f *os.File, getenv func(string) string) bool {
	return isTerminal(f) && getenv("NO_COLOR") == "" && getenv("TERM") != "dumb"
}

// isTerminal reports whether f is a character device.
func isTerminal(f *os.File) bool {
	if f == nil {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// usage returns, in l's language, what -h prints on stdout and every flag
// error prints on stderr after the problem: the synopsis, what the command
// does, every flag with its argument and description, signals and exit
// statuses. The layout is the code's: each flag and its argument in a column
// as wide as the widest, two spaces, then the description, whose further
// lines (the message's own line breaks) are indented under its first.
func usage(l *locale.Localizer) string {
	def := game.DefaultConfig()
	number, policy, name, level, lang := l.T("console_usage_arg_number"), l.T("console_usage_arg_policy"),
		l.T("console_usage_arg_name"), l.T("console_usage_arg_level"), l.T("console_usage_arg_lang")
	var plain painter // the discs without colour
	flags := []struct{ name, arg, text string }{
		{"rows", number, l.T("console_usage_rows", "Max", game.MaxSize, "Default", def.Rows)},
		{"columns", number, l.T("console_usage_columns", "Max", game.MaxSize, "Default", def.Columns)},
		{"connect", number, l.T("console_usage_connect", "Default", def.Connect)},
		{"wins", number, l.T("console_usage_wins", "Default", def.Wins)},
		{"first", policy, l.T("console_usage_first", "Default", def.Openers.String())},
		{"p1", name, l.T("console_usage_player", "Number", 1, "Disc", plain.disc(game.Player1, false), "Default", defaultName(l, game.Player1))},
		{"p2", name, l.T("console_usage_player", "Number", 2, "Disc", plain.disc(game.Player2, false), "Default", defaultName(l, game.Player2))},
		{"zero", "", l.T("console_usage_zero")},
		{"ai", level, l.T("console_usage_ai", "Name", l.T("console_ai_name", "Level", level))},
		{"ai-first", "", l.T("console_usage_ai_first")},
		{"lang", lang, l.T("console_usage_lang")},
		{"h", "", l.T("console_usage_help")},
	}
	width := 0
	for i, f := range flags {
		flags[i].name = "-" + f.name
		if f.arg != "" {
			flags[i].name += " " + f.arg
		}
		width = max(width, displayWidth(flags[i].name))
	}
	var b strings.Builder
	b.WriteString(l.T("console_usage") + "\n\n")
	b.WriteString(l.T("console_usage_about") + "\n\n")
	b.WriteString(l.T("console_usage_flags") + "\n")
	indent := strings.Repeat(" ", 2+width+2)
	for _, f := range flags {
		first, rest, _ := strings.Cut(f.text, "\n")
		b.WriteString("  " + f.name + strings.Repeat(" ", width-displayWidth(f.name)) + "  " + first + "\n")
		for line := range strings.Lines(rest) {
			b.WriteString(indent + strings.TrimSuffix(line, "\n") + "\n")
		}
	}
	b.WriteString("\n" + l.T("console_usage_signals") + "\n\n")
	b.WriteString(l.T("console_usage_exit_status") + "\n")
	return b.String()
}

// displayWidth returns how many columns of a terminal s takes: two for a
// wide or full-width character (East Asian Width W or F, as in
// 数值 or ＮＡＭＥ), one for any other.
func displayWidth(s string) int {
	n := 0
	for _, r := range s {
		switch width.LookupRune(r).Kind() {
		case width.EastAsianWide, width.EastAsianFullwidth:
			n += 2
		default:
			n++
		}
	}
	return n
}

// defaultName returns the name player p has unless a flag names them:
// "Player 1" or "Player 2".
func defaultName(l *locale.Localizer, p game.Player) string {
	return l.T("console_default_player_name", "Number", int(p))
}

// flagValues are the flags as given, before any check.
type flagValues struct {
	rows, columns, connect, wins *int
	first, p1, p2, ai            *string
	zero, aiFirst                *bool
	lang                         *string
}

// newFlagSet defines the flags of "connectn play", writing errors and the
// usage, in l's language, to output. The flags' own usage strings are never
// shown (the usage is usage's), and name them for readers of the code only.
func newFlagSet(output io.Writer, l *locale.Localizer) (*flag.FlagSet, flagValues) {
	fs := flag.NewFlagSet("connectn play", flag.ContinueOnError)
	fs.SetOutput(output)
	fs.Usage = func() { fmt.Fprint(fs.Output(), usage(l)) }
	def := game.DefaultConfig()
	return fs, flagValues{
		rows:    fs.Int("rows", def.Rows, "rows on the board"),
		columns: fs.Int("columns", def.Columns, "columns on the board"),
		connect: fs.Int("connect", def.Connect, "discs in a line that win a round"),
		wins:    fs.Int("wins", def.Wins, "round wins that take the match"),
		first:   fs.String("first", def.Openers.String(), "who opens: alternate or first"),
		p1:      fs.String("p1", defaultName(l, game.Player1), "name of player 1 (x)"),
		p2:      fs.String("p2", defaultName(l, game.Player2), "name of player 2 (o)"),
		zero:    fs.Bool("zero", false, "number columns from 0"),
		ai:      fs.String("ai", "", "play against the AI at this level"),
		aiFirst: fs.Bool("ai-first", false, "the AI is player 1"),
		lang:    fs.String("lang", "", "the language of the text (read before the other flags)"),
	}
}

// parseFlags reads args into settings, speaking l's language. When it
// returns ok false, the caller must return status: the usage is on stdout
// for -h, else the problem and the usage are on stderr. The errors of
// package flag itself (an unknown flag, a value that is not a number, a
// missing value) are its own text, in English.
func parseFlags(l *locale.Localizer, args []string, stdout, stderr io.Writer) (s settings, status int, ok bool) {
	fs, v := newFlagSet(stderr, l)
	help := fs.Bool("h", false, "show this help")
	fs.BoolVar(help, "help", false, "show this help")
	if err := fs.Parse(args); err != nil {
		return s, exitUsage, false // fs printed the error and the usage
	}
	if *help {
		fmt.Fprint(stdout, usage(l))
		return s, exitOK, false
	}
	fail := func(problem string) (settings, int, bool) {
		fmt.Fprintln(stderr, problem)
		fs.Usage()
		return settings{}, exitUsage, false
	}
	if fs.NArg() > 0 {
		return fail(l.T("console_flag_unexpected_argument", "Argument", strconv.Quote(fs.Arg(0))))
	}
	for _, f := range []struct {
		name  string
		value int
	}{{"rows", *v.rows}, {"columns", *v.columns}} {
		if f.value < 1 || f.value > game.MaxSize {
			return fail(l.T("console_flag_out_of_range", "Value", quoteInt(f.value), "Flag", f.name, "Min", 1, "Max", game.MaxSize))
		}
	}
	switch {
	case *v.connect < 1:
		return fail(l.T("console_flag_too_small", "Value", quoteInt(*v.connect), "Flag", "connect", "Min", 1))
	case *v.connect > *v.rows && *v.connect > *v.columns:
		return fail(l.T("console_flag_connect_too_long", "Value", quoteInt(*v.connect),
			"Rows", l.N("console_count_rows", *v.rows), "Columns", l.N("console_count_columns", *v.columns)))
	case *v.wins < 1:
		return fail(l.T("console_flag_too_small", "Value", quoteInt(*v.wins), "Flag", "wins", "Min", 1))
	}
	openers, err := game.ParseOpenerPolicy(*v.first)
	if err != nil {
		return fail(l.T("console_flag_first_unknown", "Value", strconv.Quote(*v.first)))
	}
	aiPlayer, level := game.NoPlayer, ai.DefaultLevel
	if *v.ai != "" {
		lv, err := ai.ParseLevel(*v.ai)
		if err != nil {
			return fail(l.T("console_flag_ai_unknown", "Value", strconv.Quote(*v.ai)))
		}
		aiPlayer, level = game.Player2, lv
		if *v.aiFirst {
			aiPlayer = game.Player1
		}
	} else if *v.aiFirst {
		return fail(l.T("console_flag_ai_first_alone"))
	}
	given := [3]string{"", *v.p1, *v.p2}
	if aiPlayer != game.NoPlayer {
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		if flagName := fmt.Sprintf("p%d", aiPlayer); !set[flagName] {
			given[aiPlayer] = l.T("console_ai_name", "Level", level.String())
		}
	}
	var names [3]string
	for _, p := range []game.Player{game.Player1, game.Player2} {
		names[p] = strings.TrimSpace(given[p])
		if problem := checkName(names[p], fmt.Sprintf("p%d", p), given[p]); problem != nil {
			return fail(problem.text(l))
		}
	}
	if strings.EqualFold(names[game.Player1], names[game.Player2]) {
		return fail(l.T("console_flag_name_taken", "Value", strconv.Quote(given[game.Player2]), "Flag", "p2"))
	}
	s = settings{
		cfg: game.Config{
			Rows: *v.rows, Columns: *v.columns, Connect: *v.connect, Wins: *v.wins,
			Openers: openers, FirstOpener: game.Player1,
		},
		names: names,
		zero:  *v.zero,
		ai:    aiPlayer,
		level: level,
	}
	if err := s.cfg.Validate(); err != nil { // a backstop: the checks above should catch everything
		return fail(l.T("console_flag_invalid", "Error", err.Error()))
	}
	return s, exitOK, true
}

// quoteInt returns n in double quotes, as a flag's value is shown.
func quoteInt(n int) string { return strconv.Quote(strconv.Itoa(n)) }

// checkName returns why name, the trimmed value given to flag (p1 or p2),
// cannot be a player's name, or nil when it can.
func checkName(name, flag, given string) *inputError {
	value := strconv.Quote(given)
	switch {
	case name == "":
		return refuse("console_flag_name_empty", "Value", value, "Flag", flag)
	case !utf8.ValidString(name):
		return refuse("console_flag_name_not_utf8", "Value", value, "Flag", flag)
	case utf8.RuneCountInString(name) > maxNameLength:
		return refuseN("console_flag_name_too_long", maxNameLength, "Value", value, "Flag", flag)
	case strings.IndexFunc(name, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0:
		return refuse("console_flag_name_invisible", "Value", value, "Flag", flag)
	}
	return nil
}
