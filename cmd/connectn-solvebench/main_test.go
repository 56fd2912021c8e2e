package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/connectn/connectn/game/ai"
)

// writeSet writes a small test set in Pons' format and returns its folder.
func writeSet(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	// Scores from the rules alone: the player to move wins at once with a
	// fourth disc in column 1 (score 18), or, after 1212123, must block.
	if err := os.WriteFile(filepath.Join(dir, "Tiny"), []byte("121212 18\n2252576253462244111563365343671351441 -1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestSideBySide checks the table's shape with this solver alone, and
// that an outside solver's wrong score is reported with exit status 1.
func TestSideBySide(t *testing.T) {
	dir := writeSet(t)
	var out, errOut bytes.Buffer
	if code := run([]string{"-dir", dir, "-sets", "Tiny", "-n", "2"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[2], "| Tiny | 2 | ") {
		t.Fatalf("output %q: want a header, a rule and the set's row", out.String())
	}
	// An outside solver that answers 0 for everything.
	fake := filepath.Join(t.TempDir(), "fake")
	script := "#!/bin/sh\nwhile read -r m; do echo \"$m 0 1 1\"; done\n"
	if err := os.WriteFile(fake, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	errOut.Reset()
	code := run([]string{"-dir", dir, "-sets", "Tiny", "-n", "2", "-c4", fake}, &out, &errOut)
	if code != 1 || !strings.Contains(errOut.String(), "Tiny, c4: 2 wrong scores") {
		t.Errorf("wrong outside solver: exit %d, stderr %q; want 1 and the wrong scores named", code, errOut.String())
	}
}

// TestGamePositions checks that the games' positions are legal, begin with
// the empty board, grow a disc at a time and never hold a finished game.
func TestGamePositions(t *testing.T) {
	s, err := ai.NewSolver(6, 7, 4, ai.SolverOptions{TableMB: 4, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for g := 0; g < 50; g++ {
		ps := gamePositions(rng, 6, 7, 20)
		for i, moves := range ps {
			if len(moves) != i {
				t.Fatalf("game %d: position %d has %d discs", g, i, len(moves))
			}
			if _, err := s.Play(moves); err != nil {
				t.Fatalf("game %d: %v: %v", g, moves, err)
			}
		}
	}
}

// TestRepeat checks that with -repeat the set goes to an outside solver
// that many times over and that the least of each position's times is kept.
func TestRepeat(t *testing.T) {
	dir := writeSet(t)
	// Right scores; times of 5, 3 and 4 seconds in turn, so that each
	// position's least is 3.
	fake := filepath.Join(t.TempDir(), "fake")
	script := "#!/bin/sh\nn=0\nwhile read -r m; do\n" +
		"  case $m in 121212) s=18;; *) s=-1;; esac\n" +
		"  case $((n % 3)) in 0) us=5000000;; 1) us=3000000;; *) us=4000000;; esac\n" +
		"  n=$((n + 1))\n  echo \"$m $s 1 $us\"\ndone\n"
	if err := os.WriteFile(fake, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if code := run([]string{"-dir", dir, "-sets", "Tiny", "-n", "2", "-repeat", "3", "-c4", fake}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("output %q: want a header, a rule and the set's row", out.String())
	}
	cells := strings.Split(lines[2], " | ")
	if len(cells) < 6 || cells[5] != "6.000" || cells[6] != "2" {
		t.Errorf("row %q: want c4's time 6.000 (3 s, the least, for each of 2 positions) and 2 nodes", lines[2])
	}
}

// TestSecs checks the times' format: three decimals from a second, three
// significant digits below, so that sets of microsecond positions compare.
func TestSecs(t *testing.T) {
	for _, c := range []struct {
		micros int64
		want   string
	}{{6_000_000, "6.000"}, {1_232_000, "1.232"}, {80_500, "0.0805"}, {616, "0.000616"}} {
		if got := secs(measure{ok: true, micros: c.micros}); got != c.want {
			t.Errorf("secs(%d µs) = %q, want %q", c.micros, got, c.want)
		}
	}
}

// TestSettledOutside checks -settled beside an outside solver: it is given
// the 7x6 positions of -outside-from discs or more, one process each; a
// position counts as settled for it when its reported time is within the
// budget; one that does not answer within -wall is not settled; a score
// that differs from this solver's fails the run.
func TestSettledOutside(t *testing.T) {
	// The positions of the run's one game (seed 1, as -settled plays it),
	// with their scores from this solver.
	s, err := ai.NewSolver(6, 7, 4, ai.SolverOptions{TableMB: 4, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	var table strings.Builder
	from := map[int]string{}
	for _, moves := range gamePositions(rand.New(rand.NewPCG(1, 607)), 6, 7, 20) {
		if len(moves) < 16 {
			continue
		}
		pos, err := s.Play(moves)
		if err != nil {
			t.Fatal(err)
		}
		r, err := s.Solve(t.Context(), pos, false)
		if err != nil {
			t.Fatal(err)
		}
		text := ""
		for _, c := range moves {
			text += string(rune('1' + c))
		}
		from[len(moves)] = text
		fmt.Fprintf(&table, "%s %d\n", text, r.Score)
	}
	if len(from) < 4 {
		t.Fatalf("the game has %d positions of 16 discs or more; the test needs 4 (16 to 19)", len(from))
	}
	dir := t.TempDir()
	scores := filepath.Join(dir, "scores")
	if err := os.WriteFile(scores, []byte(table.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	// fake answers every position with its score from the table; 16 discs
	// take 5 s of processor time (over the 50 ms budget), 17 discs wait
	// past -wall, the others 1 ms. The row of 8 discs or more shows "-":
	// the outside solver did not solve from 8. With wrong set, it adds 1 to every score.
	fake := func(wrong bool) string {
		add := 0
		if wrong {
			add = 1
		}
		path := filepath.Join(dir, fmt.Sprintf("fake%d", add))
		script := "#!/bin/sh\nread -r m\ns=$(grep \"^$m \" " + scores + " | cut -d' ' -f2)\n" +
			"case ${#m} in 16) us=5000000;; 17) exec sleep 30;; *) us=1000;; esac\n" +
			fmt.Sprintf("echo \"$m $((s + %d)) 1 $us\"\n", add)
		if err := os.WriteFile(path, []byte(script), 0o700); err != nil {
			t.Fatal(err)
		}
		return path
	}
	args := []string{"-settled", "-games", "1", "-boards", "7x6", "-discs", "20", "-outside-from", "16", "-wall", "1s", "-budget", "50ms"}
	var out, errOut bytes.Buffer
	if code := run(append(args, "-c4", fake(false)), &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	rows := map[string]string{}
	for _, l := range strings.Split(out.String(), "\n") {
		if cells := strings.Split(l, " | "); len(cells) == 5 && strings.HasPrefix(l, "| ") {
			rows[strings.TrimPrefix(cells[0], "| ")] = strings.TrimSuffix(cells[4], " |")
		}
	}
	for d, want := range map[string]string{"15": "-", "16": "0", "17": "0", "18": "1", "19": "1", "8 to 20": "-"} {
		if rows[d] != want {
			t.Errorf("discs %s: c4 settled %q, want %q\n%s", d, rows[d], want, out.String())
		}
	}
	out.Reset()
	errOut.Reset()
	if code := run(append(args, "-c4", fake(true)), &out, &errOut); code != 1 || !strings.Contains(errOut.String(), "c4's score") {
		t.Errorf("wrong scores: exit %d, stderr %q; want 1 and the score named", code, errOut.String())
	}
}
