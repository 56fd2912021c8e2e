package puzzle

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/connectn/connectn/game"
)

// generate runs Generate and returns its puzzles, failing the test on an
// error.
func generate(t *testing.T, opts GenerateOptions) ([]Puzzle, Stats) {
	t.Helper()
	var out []Puzzle
	st, err := Generate(context.Background(), opts, func(p Puzzle) error {
		out = append(out, p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out, st
}

// TestGenerate makes one puzzle of each of the 13 tasks on a small board,
// twice from one seed, and holds that the runs agree, that every puzzle
// passes the only-move test through an engine (not the generator's own
// solver path), and that the tasks are spread as the quotas say. Under the
// race detector or -short it makes 3 puzzles from late positions, and does
// not check the spread.
func TestGenerate(t *testing.T) {
	cfg := game.Config{Rows: 5, Columns: 6, Connect: 4, Wins: 1}
	opts := GenerateOptions{Config: cfg, N: 13, Seed: 3, TableMB: 4, MaxEmpty: 23}
	spread := !raceEnabled && !testing.Short()
	if !spread {
		opts.N, opts.MaxEmpty = 3, 16
		t.Log("under the race detector or -short: 3 puzzles, the spread over the tasks not checked")
	}
	first, st := generate(t, opts)
	if len(first) != opts.N || st.Puzzles != opts.N {
		t.Fatalf("%d puzzles (stats %d), want %d", len(first), st.Puzzles, opts.N)
	}
	again, _ := generate(t, opts)
	if !slices.Equal(first, again) {
		t.Errorf("one seed, two runs:\n%v\n%v", first, again)
	}
	themes := map[Theme]int{}
	for _, p := range first {
		if err := Verify(context.Background(), testEngine, p); err != nil {
			t.Errorf("%s: %v", p.Format(), err)
		}
		if p.Source != (Source{Kind: Generated, Seed: 3}) {
			t.Errorf("%s: source %+v", p.Format(), p.Source)
		}
		themes[p.Themes()[0]]++
	}
	if st.Themes[first[0].Themes()[0]] != themes[first[0].Themes()[0]] {
		t.Errorf("stats count themes %v, the puzzles %v", st.Themes, themes)
	}
	t.Logf("%+v", st)
	if spread {
		// One puzzle of each task: the quotas of ceil(13/13) = 1.
		for n := MinWinIn; n <= MaxWinIn; n++ {
			if themes[WinInTheme(n)] != 1 {
				t.Errorf("%d puzzles of a win in %d, want 1: %v", themes[WinInTheme(n)], n, themes)
			}
		}
		if themes[ThemeOnlyMove] != 1 || themes[ThemeDefence] != 1 {
			t.Errorf("only moves and defences: %v, want 1 of each", themes)
		}
	}
	other, _ := generate(t, GenerateOptions{Config: cfg, N: 3, Seed: 4, TableMB: 4, MaxEmpty: 16})
	if slices.Equal(first[:3], other) {
		t.Error("seeds 3 and 4 made the same puzzles")
	}
}

func TestGenerateRefuses(t *testing.T) {
	tests := []struct {
		name string
		opts GenerateOptions
	}{
		{name: "board too large", opts: GenerateOptions{Config: game.Config{Rows: 8, Columns: 8, Connect: 4}, N: 1}},
		{name: "invalid board", opts: GenerateOptions{Config: game.Config{Rows: 6, Columns: 7, Connect: 9}, N: 1}},
		{name: "no puzzle", opts: GenerateOptions{Config: game.Config{Rows: 6, Columns: 7, Connect: 4}, N: 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			emitted := 0
			_, err := Generate(context.Background(), tt.opts, func(Puzzle) error { emitted++; return nil })
			if !errors.Is(err, ErrInvalidPuzzle) || emitted != 0 {
				t.Errorf("got %v after %d puzzles, want ErrInvalidPuzzle and none", err, emitted)
			}
		})
	}
}

// TestGenerateStopsOnEmitError holds that the first error of emit ends the
// run and is returned.
func TestGenerateStopsOnEmitError(t *testing.T) {
	stop := errors.New("disk full")
	calls := 0
	_, err := Generate(context.Background(), GenerateOptions{Config: game.Config{Rows: 5, Columns: 6, Connect: 4}, N: 5, Seed: 1, TableMB: 4, MaxEmpty: 16},
		func(Puzzle) error { calls++; return stop })
	if !errors.Is(err, stop) || calls != 1 {
		t.Errorf("got %v after %d calls, want the emit error after 1", err, calls)
	}
}

// BenchmarkGenerate reports the puzzles the generator makes per minute on
// the standard board (6x7, connect 4), 26 at a time (two of each task):
// go test -run '^$' -bench Generate ./puzzle
func BenchmarkGenerate(b *testing.B) {
	cfg := game.Config{Rows: 6, Columns: 7, Connect: 4, Wins: 1}
	var made, minutes float64
	for i := 0; b.Loop(); i++ {
		st, err := Generate(context.Background(), GenerateOptions{Config: cfg, N: 26, Seed: uint64(i + 1)}, func(Puzzle) error { return nil })
		if err != nil {
			b.Fatal(err)
		}
		made += float64(st.Puzzles)
		minutes += st.Elapsed.Minutes()
	}
	b.ReportMetric(made/minutes, "puzzles/min")
}
