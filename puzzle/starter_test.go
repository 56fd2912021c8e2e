package puzzle

import (
	"fmt"
	"io/fs"
	"os"
	"strings"
	"testing"
)

// starterBoards are the boards of the starter set and how many puzzles
// each must have at least.
var starterBoards = []struct {
	rows, columns, least int
}{
	{6, 7, 2000},
	{6, 6, 500},
	{7, 7, 500},
	{8, 7, 500},
}

// TestStarterSet checks the starter set's make-up: the puzzles of each
// board, each file's first line the command that made it, unique IDs, and
// the tasks spread over the 13 themes.
func TestStarterSet(t *testing.T) {
	all := Starter()
	byBoard := map[[2]int][]Puzzle{}
	ids := map[string]string{}
	for _, p := range all {
		if p.Config.Connect != 4 {
			t.Errorf("%s: connect %d", p.Format(), p.Config.Connect)
		}
		byBoard[[2]int{p.Config.Rows, p.Config.Columns}] = append(byBoard[[2]int{p.Config.Rows, p.Config.Columns}], p)
		if other, ok := ids[p.ID]; ok {
			t.Errorf("ID %s twice: %s and %s", p.ID, other, p.Format())
		}
		ids[p.ID] = p.Format()
	}
	for _, b := range starterBoards {
		ps := byBoard[[2]int{b.rows, b.columns}]
		if len(ps) < b.least {
			t.Errorf("%dx%d: %d puzzles, want at least %d", b.rows, b.columns, len(ps), b.least)
		}
		themes := map[Theme]int{}
		for _, p := range ps {
			themes[p.Themes()[0]]++
		}
		// Every task, with at least half its even share.
		tasks := []Theme{ThemeOnlyMove, ThemeDefence}
		for n := MinWinIn; n <= MaxWinIn; n++ {
			tasks = append(tasks, WinInTheme(n))
		}
		for _, th := range tasks {
			if themes[th] < b.least/buckets/2 {
				t.Errorf("%dx%d: %d puzzles of %s, want at least %d", b.rows, b.columns, themes[th], th, b.least/buckets/2)
			}
		}
		name := fmt.Sprintf("starter/%dx%dc4.txt", b.rows, b.columns)
		data, err := fs.ReadFile(starterFiles, name)
		if err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf("# connectn puzzles generate -rows %d -columns %d -connect 4 -n %d -seed 1\n", b.rows, b.columns, b.least)
		if !strings.HasPrefix(string(data), want) {
			t.Errorf("%s starts %q, want %q", name, firstLine(string(data)), want)
		}
	}
	if len(byBoard) != len(starterBoards) {
		t.Errorf("the starter set has %d boards, want %d", len(byBoard), len(starterBoards))
	}
	// Starter gives each caller its own slice.
	again := Starter()
	again[0].Moves = "changed"
	if Starter()[0].Moves == "changed" {
		t.Error("a caller's change shows in the next Starter()")
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// TestStarterSetResolved re-solves the starter set with an engine (not
// the generator's path) and holds, for each puzzle, the facts of its task
// as the solver values every column: the solution is the only move that
// keeps the result (the only win, the only draw, or the longest defence),
// N is exact, and the task is not trivial. By default it checks 30
// puzzles of each board, spread over the file (3 under the race detector or
// -short); CONNECTN_PUZZLES_ALL=1 checks every one (about a minute).
func TestStarterSetResolved(t *testing.T) {
	all := os.Getenv("CONNECTN_PUZZLES_ALL") == "1"
	if (testing.Short() || raceEnabled) && !all {
		t.Log("under the race detector or -short: 3 puzzles a board")
	}
	byBoard := map[[2]int][]Puzzle{}
	for _, p := range Starter() {
		k := [2]int{p.Config.Rows, p.Config.Columns}
		byBoard[k] = append(byBoard[k], p)
	}
	for _, b := range starterBoards {
		ps := byBoard[[2]int{b.rows, b.columns}]
		step := max(1, len(ps)/30)
		if all {
			step = 1
		}
		if (testing.Short() || raceEnabled) && !all {
			step = max(1, len(ps)/3)
		}
		for i := 0; i < len(ps); i += step {
			checkTask(t, ps[i])
		}
	}
}

// checkTask fails the test unless the engine's values of p's position
// prove p's task.
func checkTask(t *testing.T, p Puzzle) {
	t.Helper()
	moves := position(t, p)
	b, over, err := replay(p.Config, moves)
	if err != nil || over {
		t.Fatalf("%s: %v (over %v)", p.Format(), err, over)
	}
	vals := evaluate(t, p.Config, moves)
	// Not trivial: no win at once for either side, more than one column.
	mover := p.ToMove()
	open := 0
	for c := range p.Config.Columns {
		if !b.CanDrop(c) {
			continue
		}
		open++
		if v := vals[c]; v.Score > 0 && v.In == 1 {
			t.Errorf("%s: column %d wins at once", p.Format(), c+1)
		}
		nb := b.Clone()
		row, _ := nb.Drop(c, mover.Other())
		if len(nb.LinesThrough(row, c, p.Config.Connect)) > 0 {
			t.Errorf("%s: the opponent threatens to win in column %d", p.Format(), c+1)
		}
	}
	if open < 2 {
		t.Errorf("%s: %d columns open", p.Format(), open)
	}
	sol := vals[p.Solution]
	if !sol.Legal {
		t.Fatalf("%s: the solution's column is full", p.Format())
	}
	for _, v := range vals {
		if !v.Legal || v.Column == p.Solution {
			continue
		}
		var keeps bool
		switch p.Kind {
		case WinIn:
			keeps = v.Score > 0
		case OnlyMove:
			keeps = v.Score >= 0
		case Defence:
			keeps = v.Score >= sol.Score
		}
		if keeps {
			t.Errorf("%s: column %d (score %d) keeps the result too", p.Format(), v.Column+1, v.Score)
		}
	}
	var ok bool
	switch p.Kind {
	case WinIn:
		ok = sol.Score > 0 && sol.In == p.N && p.N >= MinWinIn && p.N <= MaxWinIn
	case OnlyMove:
		ok = sol.Score == 0
	case Defence:
		ok = sol.Score < 0 && sol.In == p.N
	}
	if !ok {
		t.Errorf("%s: the solution scores %d, in %d", p.Format(), sol.Score, sol.In)
	}
	if got := MakeID(p.Config, moves); got != p.ID {
		t.Errorf("%s: ID %s, want %s", p.Format(), p.ID, got)
	}
}
