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

	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/game/ai"
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
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer, color bool) int {
	s, status, ok := parseFlags(args, stdout, stderr)
	if !ok {
		return status
	}
	return newSession(s, stdin, stdout, stderr, color).run()
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

// usageText is what -h and every flag error print on stderr.
var usageText = fmt.Sprintf(`Usage: connectn play [flags]

Play Connect N in this terminal: two players take turns at the same keyboard.
At a column prompt, enter a column number, or q to quit (forfeit) the match.

Flags:
  -rows N        rows on the board, 1 to %[1]d (default %[2]d)
  -columns N     columns on the board, 1 to %[1]d (default %[3]d)
  -connect N     discs in a line that win a round, at least 1 and at most
                 the number of rows or of columns (default 4)
  -wins N        round wins that take the match, at least 1 (default 1)
  -first POLICY  who opens: "alternate" (players take turns opening rounds,
                 and each new match is opened by the other player) or
                 "first" (player 1 opens every round of every match)
                 (default alternate)
  -p1 NAME       name of player 1, who plays x (default "Player 1")
  -p2 NAME       name of player 2, who plays o (default "Player 2")
  -zero          number columns from 0 instead of 1
  -ai LEVEL      play against the AI: easy, medium, hard or perfect; the AI
                 is player 2 (named "AI (LEVEL)" unless -p2 names it)
  -ai-first      the AI is player 1 instead, and opens the first round
  -h             show this help and exit with status 0

Ctrl-C (SIGINT) or SIGTERM ends the game at once. Colours are off when
NO_COLOR is set, TERM is dumb or the output is not a terminal.

Exit status: 0 when the players stop or the input ends, 1 on an I/O error,
2 for bad flags, 130 on Ctrl-C, 143 on SIGTERM.
`, game.MaxSize, game.DefaultConfig().Rows, game.DefaultConfig().Columns)

// flagValues are the flags as given, before any check.
type flagValues struct {
	rows, columns, connect, wins *int
	first, p1, p2, ai            *string
	zero, aiFirst                *bool
}

// newFlagSet defines the flags of "connectn play", writing errors and usage
// to output.
func newFlagSet(output io.Writer) (*flag.FlagSet, flagValues) {
	fs := flag.NewFlagSet("connectn play", flag.ContinueOnError)
	fs.SetOutput(output)
	fs.Usage = func() { fmt.Fprint(fs.Output(), usageText) }
	def := game.DefaultConfig()
	return fs, flagValues{
		rows:    fs.Int("rows", def.Rows, "rows on the board"),
		columns: fs.Int("columns", def.Columns, "columns on the board"),
		connect: fs.Int("connect", def.Connect, "discs in a line that win a round"),
		wins:    fs.Int("wins", def.Wins, "round wins that take the match"),
		first:   fs.String("first", def.Openers.String(), "who opens: alternate or first"),
		p1:      fs.String("p1", "Player 1", "name of player 1 (x)"),
		p2:      fs.String("p2", "Player 2", "name of player 2 (o)"),
		zero:    fs.Bool("zero", false, "number columns from 0"),
		ai:      fs.String("ai", "", "play against the AI at this level"),
		aiFirst: fs.Bool("ai-first", false, "the AI is player 1"),
	}
}

// parseFlags reads args into settings. When it returns ok false, the caller
// must return status: the usage is on stdout for -h, else the problem and
// the usage are on stderr.
func parseFlags(args []string, stdout, stderr io.Writer) (s settings, status int, ok bool) {
	fs, v := newFlagSet(stderr)
	help := fs.Bool("h", false, "show this help")
	fs.BoolVar(help, "help", false, "show this help")
	if err := fs.Parse(args); err != nil {
		return s, exitUsage, false // fs printed the error and the usage
	}
	if *help {
		fmt.Fprint(stdout, usageText)
		return s, exitOK, false
	}
	fail := func(format string, a ...any) (settings, int, bool) {
		fmt.Fprintf(stderr, format+"\n", a...)
		fs.Usage()
		return settings{}, exitUsage, false
	}
	if fs.NArg() > 0 {
		return fail("unexpected argument %q: connectn play takes flags only", fs.Arg(0))
	}
	for _, f := range []struct {
		name  string
		value int
	}{{"rows", *v.rows}, {"columns", *v.columns}} {
		if f.value < 1 || f.value > game.MaxSize {
			return fail("invalid value %q for flag -%s: must be from 1 to %d", strconv.Itoa(f.value), f.name, game.MaxSize)
		}
	}
	switch {
	case *v.connect < 1:
		return fail("invalid value %q for flag -connect: must be at least 1", strconv.Itoa(*v.connect))
	case *v.connect > *v.rows && *v.connect > *v.columns:
		return fail("invalid value %q for flag -connect: longer than both the %d rows and the %d columns, so nobody could win", strconv.Itoa(*v.connect), *v.rows, *v.columns)
	case *v.wins < 1:
		return fail("invalid value %q for flag -wins: must be at least 1", strconv.Itoa(*v.wins))
	}
	openers, err := game.ParseOpenerPolicy(*v.first)
	if err != nil {
		return fail("invalid value %q for flag -first: must be alternate or first", *v.first)
	}
	aiPlayer, level := game.NoPlayer, ai.DefaultLevel
	if *v.ai != "" {
		l, err := ai.ParseLevel(*v.ai)
		if err != nil {
			return fail("invalid value %q for flag -ai: must be easy, medium, hard or perfect", *v.ai)
		}
		aiPlayer, level = game.Player2, l
		if *v.aiFirst {
			aiPlayer = game.Player1
		}
	} else if *v.aiFirst {
		return fail("flag -ai-first needs -ai LEVEL: it says who the AI plays")
	}
	given := [3]string{"", *v.p1, *v.p2}
	if aiPlayer != game.NoPlayer {
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		if flagName := fmt.Sprintf("p%d", aiPlayer); !set[flagName] {
			given[aiPlayer] = "AI (" + level.String() + ")"
		}
	}
	var names [3]string
	for _, p := range []game.Player{game.Player1, game.Player2} {
		names[p] = strings.TrimSpace(given[p])
		if problem := checkName(names[p]); problem != "" {
			return fail("invalid value %q for flag -p%d: %s", given[p], p, problem)
		}
	}
	if strings.EqualFold(names[game.Player1], names[game.Player2]) {
		return fail("invalid value %q for flag -p2: player 1 already has that name; the players need different names", given[game.Player2])
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
		return fail("invalid flags: %v", err)
	}
	return s, exitOK, true
}

// checkName returns why name cannot be a player's name, or "" when it can.
func checkName(name string) string {
	switch {
	case name == "":
		return "a name must not be empty"
	case !utf8.ValidString(name):
		return "a name must be valid UTF-8 text"
	case utf8.RuneCountInString(name) > maxNameLength:
		return fmt.Sprintf("a name must be at most %d characters", maxNameLength)
	case strings.IndexFunc(name, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0:
		return "a name must not contain control or invisible characters"
	}
	return ""
}
