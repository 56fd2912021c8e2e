package ai

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/connectn/connectn/game"
)

// TestAnalyze reviews random finished rounds on small boards and checks
// every verdict against the brute-force reference.
func TestAnalyze(t *testing.T) {
	e := NewEngine(Options{TableMB: 4})
	for _, cfg := range []game.Config{
		{Rows: 4, Columns: 5, Connect: 3, Wins: 1},
		{Rows: 5, Columns: 4, Connect: 4, Wins: 1},
	} {
		memo := map[uint64]int{}
		rng := rand.New(rand.NewPCG(uint64(cfg.Rows), uint64(cfg.Columns)))
		changes := 0
		for round := 0; round < 15; round++ {
			m, _ := game.NewMatch(cfg)
			for !m.Over() {
				var open []int
				for c := 0; c < cfg.Columns; c++ {
					if m.Round().CanDrop(c) {
						open = append(open, c)
					}
				}
				m.Play(m.ToMove(), open[rng.IntN(len(open))])
			}
			r := m.Round()
			a, err := e.Analyze(context.Background(), cfg, r)
			if err != nil {
				t.Fatal(err)
			}
			if !a.Complete || len(a.Moves) != r.Plies() {
				t.Fatalf("%v: complete %v, %d reviews for %d moves", r.Moves(), a.Complete, len(a.Moves), r.Plies())
			}
			ref := newRef(cfg.Rows, cfg.Columns, cfg.Connect)
			first := -1
			for i, c := range r.Moves() {
				before := ref.score(memo)
				var after int
				if ref.wins(c) {
					after = (cfg.Rows*cfg.Columns + 1 - ref.moves) / 2
				} else {
					ref.play(c)
					after = -ref.score(memo)
					ref.undo(c)
				}
				got := a.Moves[i]
				kept := sign(after) >= sign(before)
				if got.Before != before || got.After != after || got.Kept != kept || got.Column != c || !got.Settled {
					t.Errorf("%v move %d: got %+v, want before %d after %d kept %v", r.Moves(), i, got, before, after, kept)
				}
				if !kept && first < 0 {
					first = i
				}
				ref.play(c)
			}
			if a.FirstChange != first {
				t.Errorf("%v: first change %d, want %d", r.Moves(), a.FirstChange, first)
			}
			if first >= 0 {
				changes++
			}
		}
		if changes == 0 {
			t.Errorf("%dx%d: no random round changed its result: the test checks nothing", cfg.Rows, cfg.Columns)
		}
	}
}

func TestAnalyzeLimits(t *testing.T) {
	e := NewEngine(Options{TableMB: 4})
	big := game.Config{Rows: 8, Columns: 8, Connect: 4, Wins: 1}
	m, _ := game.NewMatch(big)
	m.Play(game.Player1, 0)
	if _, err := e.Analyze(context.Background(), big, m.Round()); !errors.Is(err, ErrBoardTooLarge) {
		t.Errorf("Analyze on 8x8: %v, want ErrBoardTooLarge", err)
	}
	// The opening of 7x7 cannot be settled in 50 ms: marked, not failed.
	wide := game.Config{Rows: 7, Columns: 7, Connect: 4, Wins: 1}
	m, _ = game.NewMatch(wide)
	for _, c := range []int{3, 3, 2, 4} {
		m.Play(m.ToMove(), c)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	a, err := e.Analyze(ctx, wide, m.Round())
	if err != nil {
		t.Fatal(err)
	}
	if a.Complete || a.Moves[0].Settled {
		t.Errorf("the 7x7 opening was settled in 50 ms: %+v", a)
	}
	// On 7x6 the table of weak results knows the opening's results at
	// once, though the solver cannot settle their distances in time: every
	// move is judged, none exactly.
	std := game.Config{Rows: 6, Columns: 7, Connect: 4, Wins: 1}
	m, _ = game.NewMatch(std)
	for _, c := range []int{3, 3, 2, 4} {
		m.Play(m.ToMove(), c)
	}
	ctx, cancel = context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	a, err = e.Analyze(ctx, std, m.Round())
	if err != nil {
		t.Fatal(err)
	}
	if !a.Complete {
		t.Errorf("the 7x6 opening was not judged from the table: %+v", a)
	}
	for _, mv := range a.Moves {
		if !mv.Settled || mv.Exact || mv.Kept != (sign(mv.After) >= sign(mv.Before)) {
			t.Errorf("7x6 opening move %d: %+v, want settled from the table, not exact", mv.Ply+1, mv)
		}
	}
}
