package console

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/ from the current output")

// transcripts are system tests in the manner of a class's test plan: the
// lines of testdata/<name>.in are piped to Main with args, and its whole
// stdout, stderr and exit status must match testdata/<name>.golden. A
// missing .in file stands for empty input. Main echoes each line it reads,
// so a golden file reads like a session at the keyboard.
//
// Each also states, in this file where -update cannot change them, the
// facts it is there to show: the exit status and lines the output must
// hold (the winner, the draw, the refusal). A golden file rewritten with a
// wrong result fails on them.
var transcripts = []struct {
	name   string
	args   []string
	color  bool
	status int      // the exit status
	says   []string // lines, or parts of lines, of stdout or stderr
}{
	// Wins in every direction, by either player.
	{name: "win_vertical", args: []string{"-p1", "Alice", "-p2", "Bob"}, status: 0, says: []string{"Alice (x) connects 4 and wins round 1.", "Game over: Alice (x) wins the match."}},
	{name: "win_horizontal", status: 0, says: []string{"Player 1 (x) connects 4 and wins round 1.", "Game over: Player 1 (x) wins the match.", "Input ended; goodbye."}},
	{name: "win_rising_diagonal", status: 0, says: []string{"Player 1 (x) connects 4 and wins round 1."}},
	{name: "win_falling_diagonal", status: 0, says: []string{"Player 1 (x) connects 4 and wins round 1."}},
	{name: "win_second_player", args: []string{"-p1", "Alice", "-p2", "Bob"}, status: 0, says: []string{"Bob (o) connects 4 and wins round 1.", "Game over: Bob (o) wins the match."}},
	// Draws: the match goes on to another round.
	{name: "draw_4x4", args: []string{"-rows", "4", "-columns", "4", "-connect", "4"}, status: 0, says: []string{"round 1 is a draw.", "Player 2 (o) connects 4 and wins round 2.", "Player 1 (x): 0 wins, 1 loss, 1 draw."}},
	{name: "draw_6x7", status: 0, says: []string{"round 1 is a draw.", "Input ended; goodbye."}},
	// Every refused line, a full column, and refused answers to "Play again?".
	{name: "invalid_input", status: 0, says: []string{"\"abc\" is not a column number", "\"+3\" is not a column number: write it without a sign", "\"2.5\" is not a column number", "Column 8 does not exist", "Column 1 is full: choose another column.", "Player 2 (o) quits the match: Player 1 (x) wins round 1 by forfeit.", "Please answer y (yes) or n (no).", "Thanks for playing. Goodbye."}},
	// Quitting with q and quit in several cases, and the play-again question.
	{name: "quit_and_play_again", args: []string{"-p1", "Alice", "-p2", "Bob"}, status: 0, says: []string{"Bob (o) quits the match: Alice (x) wins round 1 by forfeit.", "Alice (x) quits the match: Bob (o) wins round 1 by forfeit.", "Alice (x): 2 wins, 1 loss, 0 draws."}},
	{name: "multi_round_wins_2", args: []string{"-wins", "2", "-p1", "Alice", "-p2", "Bob"}, status: 0, says: []string{"Alice (x) connects 4 and wins round 1.", "Bob (o) connects 4 and wins round 2.", "Alice (x) connects 4 and wins round 3.", "Game over: Alice (x) wins the match."}},
	{name: "first_first", args: []string{"-first", "first", "-wins", "2", "-p1", "Alice", "-p2", "Bob"}, status: 0, says: []string{"Alice (x) connects 4 and wins round 1.", "Bob (o) connects 4 and wins round 2.", "Alice (x) quits the match: Bob (o) wins round 3 by forfeit.", "Game over: Bob (o) wins the match by forfeit."}},
	// Board sizes and numbering.
	{name: "seed001_5x8_zero", args: []string{"-rows", "5", "-columns", "8", "-zero"}, status: 0, says: []string{"Player 1 (x) connects 4 and wins round 1."}},
	{name: "board_5x8", args: []string{"-rows", "5", "-columns", "8"}, status: 0, says: []string{"Column 0 does not exist: enter a number from 1 to 8.", "Column 9 does not exist", "Player 1 (x) connects 4 and wins round 1."}},
	{name: "connect5_10x10", args: []string{"-rows", "10", "-columns", "10", "-connect", "5"}, status: 0, says: []string{"Column 11 does not exist", "Player 1 (x) connects 5 and wins round 1."}},
	{name: "zero_12_columns", args: []string{"-zero", "-rows", "4", "-columns", "12", "-connect", "4"}, status: 0, says: []string{"Column 12 does not exist: enter a number from 0 to 11.", "Player 1 (x) connects 4 and wins round 1."}},
	// End of input.
	{name: "eof_mid_game", status: 0, says: []string{"Input ended; goodbye."}},
	// Colour.
	{name: "color_on", args: []string{"-rows", "4", "-columns", "4", "-connect", "3", "-p1", "Red", "-p2", "Yellow"}, color: true, status: 0, says: []string{"connects 3 and wins round 1.", "Game over: Red"}},
	{name: "color_off", args: []string{"-rows", "4", "-columns", "4", "-connect", "3", "-p1", "Red", "-p2", "Yellow"}, status: 0, says: []string{"Red (x) connects 3 and wins round 1."}},
	// Against the AI: it blocks and wins at medium; it opens with -ai-first.
	{name: "ai_medium", args: []string{"-rows", "4", "-columns", "5", "-connect", "3", "-ai", "medium"}, status: 0, says: []string{"AI (medium) (o): 1 win, 0 losses, 0 draws."}},
	{name: "ai_first_perfect", args: []string{"-rows", "4", "-columns", "4", "-connect", "3", "-ai", "perfect", "-ai-first", "-p2", "Ann"}, status: 0, says: []string{"AI (perfect) (x): 1 win, 0 losses, 0 draws.", "Ann (o): 0 wins, 1 loss, 0 draws."}},
	{name: "flag_ai_unknown", args: []string{"-ai", "genius"}, status: 2, says: []string{`invalid value "genius" for flag -ai: must be easy, medium, hard or perfect`}},
	{name: "flag_ai_first_alone", args: []string{"-ai-first"}, status: 2, says: []string{"flag -ai-first needs -ai LEVEL: it says who the AI plays"}},
	// Flags: -h, then every kind of bad flag.
	{name: "flag_help", args: []string{"-h"}, status: 0, says: []string{"Usage: connectn play [flags]"}},
	{name: "flag_rows_not_a_number", args: []string{"-rows", "abc"}, status: 2, says: []string{"invalid value \"abc\" for flag -rows"}},
	{name: "flag_rows_zero", args: []string{"-rows", "0"}, status: 2, says: []string{"invalid value \"0\" for flag -rows: must be from 1 to 256"}},
	{name: "flag_columns_too_many", args: []string{"-columns", "257"}, status: 2, says: []string{"invalid value \"257\" for flag -columns: must be from 1 to 256"}},
	{name: "flag_connect_zero", args: []string{"-connect", "0"}, status: 2, says: []string{"invalid value \"0\" for flag -connect: must be at least 1"}},
	{name: "flag_connect_too_long", args: []string{"-rows", "6", "-columns", "7", "-connect", "8"}, status: 2, says: []string{"invalid value \"8\" for flag -connect: longer than both the 6 rows and the 7 columns"}},
	{name: "flag_wins_zero", args: []string{"-wins", "0"}, status: 2, says: []string{"invalid value \"0\" for flag -wins: must be at least 1"}},
	{name: "flag_first_unknown", args: []string{"-first", "loser"}, status: 2, says: []string{"invalid value \"loser\" for flag -first: must be alternate or first"}},
	{name: "flag_positional", args: []string{"-rows", "5", "extra"}, status: 2, says: []string{"unexpected argument \"extra\""}},
	{name: "flag_unknown", args: []string{"-speed", "3"}, status: 2, says: []string{"flag provided but not defined: -speed"}},
	{name: "flag_p1_empty", args: []string{"-p1", " "}, status: 2, says: []string{"invalid value \" \" for flag -p1: a name must not be empty"}},
	{name: "flag_same_names", args: []string{"-p1", "Bob", "-p2", "bob"}, status: 2, says: []string{"invalid value \"bob\" for flag -p2: player 1 already has that name"}},
}

func TestTranscripts(t *testing.T) {
	for _, tc := range transcripts {
		t.Run(tc.name, func(t *testing.T) {
			input, err := os.ReadFile(filepath.Join("testdata", tc.name+".in"))
			hasInput := err == nil
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				t.Fatal(err)
			}
			var stdout, stderr bytes.Buffer
			status := Main(tc.args, bytes.NewReader(input), &stdout, &stderr, tc.color, noEnv)
			got := transcript(tc.name, hasInput, tc.args, tc.color, status, stdout.String(), stderr.String())

			golden := filepath.Join("testdata", tc.name+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./console -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("transcript differs from %s (run go test ./console -update and review the diff)\n%s", golden, firstDifference(got, string(want)))
			}
			if status != tc.status {
				t.Errorf("exit status %d, want %d", status, tc.status)
			}
			if len(tc.says) == 0 {
				t.Error("the transcript states no fact to check")
			}
			for _, want := range tc.says {
				if !strings.Contains(stdout.String()+stderr.String(), want) {
					t.Errorf("the output lacks %q", want)
				}
			}
			if hasANSI := strings.Contains(stdout.String(), "\x1b["); hasANSI != tc.color {
				t.Errorf("ANSI escape codes in stdout: %v, want %v (colour %v)", hasANSI, tc.color, tc.color)
			}
		})
	}
}

// transcript lays out one run of Main: the command line (with the input
// file, if any), whether colour was on and the exit status,
// then stdout and stderr, each after a "-- name --" line.
func transcript(name string, hasInput bool, args []string, color bool, status int, stdout, stderr string) string {
	var sb strings.Builder
	sb.WriteString("$ connectn play")
	for _, a := range args {
		if a == "" || strings.ContainsAny(a, " \t\"'") {
			a = strconv.Quote(a)
		}
		sb.WriteString(" " + a)
	}
	if hasInput {
		fmt.Fprintf(&sb, " < testdata/%s.in", name)
	}
	sb.WriteString("\n")
	fmt.Fprintf(&sb, "color %v, exit status %d\n", color, status)
	sb.WriteString("-- stdout --\n" + stdout)
	sb.WriteString("-- stderr --\n" + stderr)
	return sb.String()
}

// firstDifference shows the first line where got and want differ.
func firstDifference(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl || i >= len(g) || i >= len(w) {
			return fmt.Sprintf("line %d:\n got: %q\nwant: %q", i+1, gl, wl)
		}
	}
	return "no difference"
}
