package game_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/connectn/connectn/game"
)

// sentinels lists every sentinel error of package game.
var sentinels = []error{
	game.ErrInvalidConfig,
	game.ErrInvalidBoard,
	game.ErrInvalidPlayer,
	game.ErrColumnOutOfRange,
	game.ErrColumnFull,
	game.ErrNotYourTurn,
	game.ErrMatchOver,
	game.ErrInvalidAction,
}

// isSentinel reports whether err wraps one of the package's sentinels.
func isSentinel(err error) bool {
	for _, s := range sentinels {
		if errors.Is(err, s) {
			return true
		}
	}
	return false
}

// mustParse builds a board from an ASCII picture or fails the test.
func mustParse(tb testing.TB, picture string) *game.Board {
	tb.Helper()
	b, err := game.ParseBoard(picture)
	if err != nil {
		tb.Fatalf("ParseBoard(%q): %v", picture, err)
	}
	return b
}

// mustMatch starts a match or fails the test.
func mustMatch(tb testing.TB, cfg game.Config) *game.Match {
	tb.Helper()
	m, err := game.NewMatch(cfg)
	if err != nil {
		tb.Fatalf("NewMatch(%+v): %v", cfg, err)
	}
	return m
}

// play drops discs in the given columns, each by the player to move, and
// returns the round of the last drop.
func play(tb testing.TB, m *game.Match, columns ...int) *game.Round {
	tb.Helper()
	var r *game.Round
	for i, c := range columns {
		p := m.ToMove()
		var err error
		r, err = m.Play(p, c)
		if err != nil {
			tb.Fatalf("move %d: Play(%v, %d): %v\nboard:\n%s", i, p, c, err, m.Round().Board())
		}
	}
	return r
}

// cells reads a compact list of cells "r,c r,c ..." (row 0 at the bottom).
func cells(tb testing.TB, s string) []game.Cell {
	tb.Helper()
	var out []game.Cell
	for _, f := range strings.Fields(s) {
		var c game.Cell
		if _, err := fmt.Sscanf(f, "%d,%d", &c.Row, &c.Column); err != nil {
			tb.Fatalf("cell %q: %v", f, err)
		}
		out = append(out, c)
	}
	return out
}

// sortedCells returns a sorted copy of cs, row then column.
func sortedCells(cs []game.Cell) []game.Cell {
	out := slices.Clone(cs)
	slices.SortFunc(out, func(a, b game.Cell) int {
		if a.Row != b.Row {
			return a.Row - b.Row
		}
		return a.Column - b.Column
	})
	return out
}

// snapshot is everything observable about a match through its exported API,
// in a form that compares with ==-like equality (reflect.DeepEqual).
type snapshot struct {
	Config    game.Config
	Actions   []game.Action
	Rounds    []roundSnapshot
	Score     [2]int
	Draws     int
	Winner    game.Player
	Forfeited bool
	Over      bool
	ToMove    game.Player
	Plies     int
	Records   [2]game.Record
}

type roundSnapshot struct {
	Number  int
	Opener  game.Player
	Board   string
	Discs   int
	Moves   []int
	Outcome game.Outcome
	Winner  game.Player
	Line    []game.Cell
	ToMove  game.Player
}

func snap(m *game.Match) snapshot {
	s := snapshot{
		Config:    m.Config(),
		Actions:   m.Actions(),
		Score:     [2]int{m.Score(game.Player1), m.Score(game.Player2)},
		Draws:     m.Draws(),
		Winner:    m.Winner(),
		Forfeited: m.Forfeited(),
		Over:      m.Over(),
		ToMove:    m.ToMove(),
		Plies:     m.Plies(),
		Records:   [2]game.Record{m.Record(game.Player1), m.Record(game.Player2)},
	}
	for _, r := range m.Rounds() {
		s.Rounds = append(s.Rounds, roundSnapshot{
			Number:  r.Number(),
			Opener:  r.Opener(),
			Board:   r.Board().String(),
			Discs:   r.Board().Discs(),
			Moves:   slices.Clone(r.Moves()),
			Outcome: r.Outcome(),
			Winner:  r.Winner(),
			Line:    slices.Clone(r.Line()),
			ToMove:  r.ToMove(),
		})
	}
	return s
}
