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
var transcripts = []struct {
	name  string
	args  []string
	color bool
}{
	// Wins in every direction, by either player.
	{name: "win_vertical", args: []string{"-p1", "Alice", "-p2", "Bob"}},
	{name: "win_horizontal"},
	{name: "win_rising_diagonal"},
	{name: "win_falling_diagonal"},
	{name: "win_second_player", args: []string{"-p1", "Alice", "-p2", "Bob"}},
	// Draws: the match goes on to another round.
	{name: "draw_4x4", args: []string{"-rows", "4", "-columns", "4", "-connect", "4"}},
	{name: "draw_6x7"},
	// Every refused line, a full column, and refused answers to "Play again?".
	{name: "invalid_input"},
	// Quitting with q and quit in several cases, and the play-again question.
	{name: "quit_and_play_again", args: []string{"-p1", "Alice", "-p2", "Bob"}},
	{name: "multi_round_wins_2", args: []string{"-wins", "2", "-p1", "Alice", "-p2", "Bob"}},
	{name: "first_first", args: []string{"-first", "first", "-wins", "2", "-p1", "Alice", "-p2", "Bob"}},
	// Board sizes and numbering.
	{name: "seed001_5x8_zero", args: []string{"-rows", "5", "-columns", "8", "-zero"}},
	{name: "board_5x8", args: []string{"-rows", "5", "-columns", "8"}},
	{name: "connect5_10x10", args: []string{"-rows", "10", "-columns", "10", "-connect", "5"}},
	{name: "zero_12_columns", args: []string{"-zero", "-rows", "4", "-columns", "12", "-connect", "4"}},
	// End of input.
	{name: "eof_mid_game"},
	// Colour.
	{name: "color_on", args: []string{"-rows", "4", "-columns", "4", "-connect", "3", "-p1", "Red", "-p2", "Yellow"}, color: true},
	{name: "color_off", args: []string{"-rows", "4", "-columns", "4", "-connect", "3", "-p1", "Red", "-p2", "Yellow"}},
	// Against the AI: it blocks and wins at medium; it opens with -ai-first.
	{name: "ai_medium", args: []string{"-rows", "4", "-columns", "5", "-connect", "3", "-ai", "medium"}},
	{name: "ai_first_perfect", args: []string{"-rows", "4", "-columns", "4", "-connect", "3", "-ai", "perfect", "-ai-first", "-p2", "Ann"}},
	{name: "flag_ai_unknown", args: []string{"-ai", "genius"}},
	{name: "flag_ai_first_alone", args: []string{"-ai-first"}},
	// Flags: -h, then every kind of bad flag.
	{name: "flag_help", args: []string{"-h"}},
	{name: "flag_rows_not_a_number", args: []string{"-rows", "abc"}},
	{name: "flag_rows_zero", args: []string{"-rows", "0"}},
	{name: "flag_columns_too_many", args: []string{"-columns", "257"}},
	{name: "flag_connect_zero", args: []string{"-connect", "0"}},
	{name: "flag_connect_too_long", args: []string{"-rows", "6", "-columns", "7", "-connect", "8"}},
	{name: "flag_wins_zero", args: []string{"-wins", "0"}},
	{name: "flag_first_unknown", args: []string{"-first", "loser"}},
	{name: "flag_positional", args: []string{"-rows", "5", "extra"}},
	{name: "flag_unknown", args: []string{"-ai", "3"}},
	{name: "flag_p1_empty", args: []string{"-p1", " "}},
	{name: "flag_same_names", args: []string{"-p1", "Bob", "-p2", "bob"}},
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
			status := Main(tc.args, bytes.NewReader(input), &stdout, &stderr, tc.color)
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
