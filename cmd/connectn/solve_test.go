package main

import (
	"bytes"
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func solveRun(t *testing.T, input string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = solveMain(context.Background(), append([]string{"-table", "4"}, args...), strings.NewReader(input), &out, &errOut)
	return code, out.String(), errOut.String()
}

// TestSolve checks the output format and scores that follow from the rules
// alone: a player with three stacked discs and the move wins at once.
func TestSolve(t *testing.T) {
	// "121212": player 1 has three discs in column 1 and moves: they win
	// with their fourth disc, scoring (42 + 1 - 6) / 2 = 18. After
	// "1212123" player 2 is to move and must block column 1; -17 would
	// mean losing at once, so the score is above that. A known score after
	// the moves is ignored.
	code, out, errOut := solveRun(t, "121212 99\n1212123\n")
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines, want 2: %q", len(lines), out)
	}
	format := regexp.MustCompile(`^(\d*) (-?\d+) (\d+) (\d+)$`)
	var scores []int
	for _, l := range lines {
		m := format.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("line %q is not \"moves score nodes microseconds\"", l)
		}
		s, _ := strconv.Atoi(m[2])
		scores = append(scores, s)
	}
	if scores[0] != 18 {
		t.Errorf("121212: score %d, want 18", scores[0])
	}
	if scores[1] <= -17 {
		t.Errorf("1212123: score %d, want above -17 (player 2 blocks)", scores[1])
	}
}

func TestSolveWeak(t *testing.T) {
	code, out, _ := solveRun(t, "121212\n", "-weak")
	if code != 0 || !strings.HasPrefix(out, "121212 1 ") {
		t.Errorf("exit %d, output %q, want score 1", code, out)
	}
}

// TestSolveInvalid checks that every kind of bad line is reported with its
// line number and stops the command with status 1.
func TestSolveInvalid(t *testing.T) {
	tests := []struct {
		name, input, want string
	}{
		{"bad character", "44\n4x4\n", `line 2 "4x4": move 2: 'x' is not a column`},
		{"column off the board", "45\n", `line 1 "45": move 2: column 5 is not on a board of 4 columns`},
		{"full column", "44444\n", "move 5: column 4 is full"},
		{"already won", "1212121\n", "move 7: column 1 completes a line: the game is over"},
		{"move after a win", "12121213\n", "move 7: column 1 completes a line, so move 8 comes after the game is over"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := solveRun(t, tt.input, "-rows", "4", "-columns", "4")
			if code != 1 {
				t.Errorf("exit %d, want 1", code)
			}
			if !strings.Contains(errOut, tt.want) {
				t.Errorf("stderr %q does not contain %q", errOut, tt.want)
			}
			if strings.Count(out, "\n") != strings.Count(tt.input, "\n")-1 {
				t.Errorf("stdout %q: want one line per valid line before the bad one", out)
			}
		})
	}
}

// TestSolveArguments checks that positions given as arguments are solved,
// in their order, flags before, between or after them, and that standard
// input is then not read.
func TestSolveArguments(t *testing.T) {
	code, out, errOut := solveRun(t, "121212\n", "1212123", "-weak", "121212")
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "1212123 ") || !strings.HasPrefix(lines[1], "121212 1 ") {
		t.Fatalf("output %q: want 1212123 then 121212 with weak score 1, and standard input unread", out)
	}
	// The empty board as an empty argument, on a small board.
	code, out, _ = solveRun(t, "", "-rows", "4", "-columns", "4", "")
	if code != 0 || !strings.HasPrefix(out, " 0 ") {
		t.Errorf("empty argument on 4x4: exit %d, output %q, want the empty board's draw", code, out)
	}
	// A bad argument is named by its number; the ones before are solved.
	code, out, errOut = solveRun(t, "", "-rows", "4", "-columns", "4", "12", "45")
	if code != 1 || !strings.Contains(errOut, `argument 2 "45": move 2: column 5 is not on a board of 4 columns`) || !strings.HasPrefix(out, "12 ") {
		t.Errorf("bad argument: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

func TestSolveFlags(t *testing.T) {
	for _, args := range [][]string{{"-rows", "9", "-columns", "7"}, {"-workers", "65"}, {"-workers", "0"}, {"-columns", "40"}} {
		if code, _, errOut := solveRun(t, "", args...); code != 2 || errOut == "" {
			t.Errorf("%v: exit %d, stderr %q; want 2 and a message", args, code, errOut)
		}
	}
	if code, _, _ := solveRun(t, "", "-h"); code != 0 {
		t.Errorf("-h: exit %d", code)
	}
}

func TestArena(t *testing.T) {
	var out, errOut bytes.Buffer
	code := arenaMain(context.Background(), []string{"-a", "easy", "-b", "medium", "-games", "4", "-rows", "4", "-columns", "5", "-connect", "3", "-move-time", "50ms"}, &out, &errOut)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	re := regexp.MustCompile(`(?m)^(easy|medium):\s+(\d+) wins\s+(\d+) draws\s+(\d+) losses`)
	m := re.FindAllStringSubmatch(out.String(), -1)
	if len(m) != 2 {
		t.Fatalf("output %q", out.String())
	}
	for i, row := range m {
		w, _ := strconv.Atoi(row[2])
		d, _ := strconv.Atoi(row[3])
		l, _ := strconv.Atoi(row[4])
		if w+d+l != 4 {
			t.Errorf("%s: %d+%d+%d games, want 4", row[1], w, d, l)
		}
		o := m[1-i]
		ow, _ := strconv.Atoi(o[2])
		if ow != l {
			t.Errorf("%s lost %d games but the other won %d", row[1], l, ow)
		}
	}
	if code := arenaMain(context.Background(), []string{"-a", "genius"}, &out, &errOut); code != 2 {
		t.Errorf("unknown level: exit %d, want 2", code)
	}
}
