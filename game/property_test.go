package game_test

import (
	"errors"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/connectn/connectn/game"
)

// model is an independent, deliberately naive board: a 2D grid, row 0 at
// the bottom, with its own gravity.
type model struct {
	grid [][]game.Player // grid[row][column]
}

func newModel(rows, columns int) *model {
	g := make([][]game.Player, rows)
	for r := range g {
		g[r] = make([]game.Player, columns)
	}
	return &model{grid: g}
}

func (m *model) rows() int    { return len(m.grid) }
func (m *model) columns() int { return len(m.grid[0]) }

// drop returns the row the disc lands in, or -1 when the column is full.
func (m *model) drop(column int, p game.Player) int {
	for r := range m.grid {
		if m.grid[r][column] == game.NoPlayer {
			m.grid[r][column] = p
			return r
		}
	}
	return -1
}

func (m *model) full() bool {
	for _, row := range m.grid {
		if slices.Contains(row, game.NoPlayer) {
			return false
		}
	}
	return true
}

// lineCells scans the whole grid, every cell as a start and every direction,
// and returns the set of cells that belong to some window of n equal discs.
func (m *model) lineCells(n int) map[game.Cell]bool {
	set := map[game.Cell]bool{}
	steps := [][2]int{{0, 1}, {1, 0}, {1, 1}, {1, -1}}
	for r := range m.rows() {
		for c := range m.columns() {
			p := m.grid[r][c]
			if p == game.NoPlayer {
				continue
			}
			for _, s := range steps {
				ok := true
				for k := range n {
					rr, cc := r+k*s[0], c+k*s[1]
					if rr < 0 || rr >= m.rows() || cc < 0 || cc >= m.columns() || m.grid[rr][cc] != p {
						ok = false
						break
					}
				}
				if ok {
					for k := range n {
						set[game.Cell{Row: r + k*s[0], Column: c + k*s[1]}] = true
					}
				}
			}
		}
	}
	return set
}

// longest counts p's longest run from every cell in every direction.
func (m *model) longest(p game.Player) int {
	best := 0
	steps := [][2]int{{0, 1}, {1, 0}, {1, 1}, {1, -1}}
	for r := range m.rows() {
		for c := range m.columns() {
			for _, s := range steps {
				k := 0
				for rr, cc := r, c; rr >= 0 && rr < m.rows() && cc >= 0 && cc < m.columns() && m.grid[rr][cc] == p; rr, cc = rr+s[0], cc+s[1] {
					k++
				}
				best = max(best, k)
			}
		}
	}
	return best
}

func (m *model) matches(t *testing.T, b *game.Board) {
	t.Helper()
	if b.Rows() != m.rows() || b.Columns() != m.columns() {
		t.Fatalf("board %dx%d, model %dx%d", b.Rows(), b.Columns(), m.rows(), m.columns())
	}
	for r := range m.rows() {
		for c := range m.columns() {
			if got, want := b.At(r, c), m.grid[r][c]; got != want {
				t.Fatalf("At(%d, %d) = %v, model says %v\nboard:\n%s", r, c, got, want, b)
			}
		}
	}
}

// randomConfig draws a configuration with sizes 1..12 and N 1..7; some are
// invalid (N longer than both sizes).
func randomConfig(rng *rand.Rand) game.Config {
	return game.Config{
		Rows:        1 + rng.IntN(12),
		Columns:     1 + rng.IntN(12),
		Connect:     1 + rng.IntN(7),
		Wins:        1 + rng.IntN(3),
		Openers:     game.OpenerPolicy(rng.IntN(2)),
		FirstOpener: game.Player(rng.IntN(3)),
	}
}

// expectedError says which sentinel an action must fail with, from the
// outside: nil when it is legal.
func expectedError(m *game.Match, a game.Action) error {
	switch {
	case m.Over():
		return game.ErrMatchOver
	case !a.Player.Valid():
		return game.ErrInvalidPlayer
	case a.Kind != game.Drop:
		return nil
	case a.Player != m.ToMove():
		return game.ErrNotYourTurn
	case a.Column < 0 || a.Column >= m.Config().Columns:
		return game.ErrColumnOutOfRange
	case m.Round().Board().Height(a.Column) >= m.Config().Rows:
		return game.ErrColumnFull
	}
	return nil
}

// TestRandomGames plays thousands of random matches and checks the
// incremental rules against brute force after every drop.
func TestRandomGames(t *testing.T) {
	games := 3000
	if testing.Short() {
		games = 300
	}
	rng := rand.New(rand.NewPCG(20240601, 42))
	var played, won, drawn, forfeited, invalid, illegal int
	for g := range games {
		cfg := randomConfig(rng)
		m, err := game.NewMatch(cfg)
		if cfg.Connect > cfg.Rows && cfg.Connect > cfg.Columns {
			if !errors.Is(err, game.ErrInvalidConfig) {
				t.Fatalf("game %d: NewMatch(%+v) = %v, want ErrInvalidConfig", g, cfg, err)
			}
			invalid++
			continue
		}
		if err != nil {
			t.Fatalf("game %d: NewMatch(%+v): %v", g, cfg, err)
		}
		played++
		var score [3]int
		draws := 0
		mod := newModel(cfg.Rows, cfg.Columns)
		round := 1
		for !m.Over() {
			if m.Round().Number() != round {
				t.Fatalf("game %d: round %d, want %d", g, m.Round().Number(), round)
			}
			if m.Round().Opener() != cfg.OpenerOf(round) {
				t.Fatalf("game %d: round %d opener %v, want %v", g, round, m.Round().Opener(), cfg.OpenerOf(round))
			}
			mover := m.ToMove()
			switch x := rng.IntN(200); {
			case x < 20: // an illegal (or at least unusual) action
				a := game.Action{
					Kind:   game.Drop,
					Player: game.Player(rng.IntN(4)),
					Column: rng.IntN(cfg.Columns+4) - 2,
				}
				want := expectedError(m, a)
				if want == nil {
					continue // legal by chance: the drop branch covers it
				}
				illegal++
				before := snap(m)
				err := m.Apply(a)
				if !errors.Is(err, want) {
					t.Fatalf("game %d: Apply(%+v) = %v, want %v", g, a, err, want)
				}
				if x < 5 { // a full comparison now and then
					if !reflect.DeepEqual(snap(m), before) {
						t.Fatalf("game %d: match changed after %v", g, err)
					}
				} else if m.Plies() != before.Plies || m.Round().Board().String() != before.Rounds[len(before.Rounds)-1].Board {
					t.Fatalf("game %d: match changed after %v", g, err)
				}
				continue
			case x < 23: // forfeit the round, either player
				p := game.Player(1 + rng.IntN(2))
				r := m.Round()
				if err := m.ForfeitRound(p); err != nil {
					t.Fatalf("game %d: ForfeitRound: %v", g, err)
				}
				if r.Outcome() != game.Forfeited || r.Winner() != p.Other() {
					t.Fatalf("game %d: forfeited round %v by %v", g, r.Outcome(), r.Winner())
				}
				score[p.Other()]++
				forfeited++
			case x < 24: // forfeit the match
				p := game.Player(1 + rng.IntN(2))
				if err := m.Forfeit(p); err != nil {
					t.Fatalf("game %d: Forfeit: %v", g, err)
				}
				score[p.Other()]++
				if !m.Forfeited() || m.Winner() != p.Other() {
					t.Fatalf("game %d: Forfeit: Forfeited() = %v, Winner() = %v", g, m.Forfeited(), m.Winner())
				}
				forfeited++
			default: // a legal drop
				if len(mod.lineCells(cfg.Connect)) != 0 {
					t.Fatalf("game %d: a round in progress has a line:\n%s", g, m.Round().Board())
				}
				var open []int
				for c := range cfg.Columns {
					if m.Round().Board().CanDrop(c) {
						open = append(open, c)
					}
				}
				column := open[rng.IntN(len(open))]
				r, err := m.Play(mover, column)
				if err != nil {
					t.Fatalf("game %d: Play(%v, %d): %v", g, mover, column, err)
				}
				row := mod.drop(column, mover)
				mod.matches(t, r.Board())
				if last, _ := r.LastMove(); last != (game.Cell{Row: row, Column: column}) {
					t.Fatalf("game %d: LastMove() = %v, want (%d,%d)", g, last, row, column)
				}
				line := mod.lineCells(cfg.Connect)
				longest := [3]int{0, mod.longest(game.Player1), mod.longest(game.Player2)}
				for _, p := range []game.Player{game.Player1, game.Player2} {
					if got := r.Board().LongestRun(p); got != longest[p] {
						t.Fatalf("game %d: LongestRun(%v) = %d, brute force %d\n%s", g, p, got, longest[p], r.Board())
					}
				}
				if longest[mover.Other()] >= cfg.Connect {
					t.Fatalf("game %d: the player who did not move has a line", g)
				}
				switch {
				case len(line) > 0:
					if r.Outcome() != game.Won || r.Winner() != mover {
						t.Fatalf("game %d: brute force finds a line but the round is %v by %v\n%s", g, r.Outcome(), r.Winner(), r.Board())
					}
					var want []game.Cell
					for c := range line {
						want = append(want, c)
					}
					if got, want := sortedCells(r.Line()), sortedCells(want); !slices.Equal(got, want) {
						t.Fatalf("game %d: Line = %v, brute force %v\n%s", g, got, want, r.Board())
					}
					if len(r.Line()) != len(line) {
						t.Fatalf("game %d: Line %v repeats a cell", g, r.Line())
					}
					if longest[mover] < cfg.Connect {
						t.Fatalf("game %d: round won with LongestRun %d < %d", g, longest[mover], cfg.Connect)
					}
					score[mover]++
					won++
				case mod.full():
					if r.Outcome() != game.Drawn || r.Winner() != game.NoPlayer || r.Line() != nil {
						t.Fatalf("game %d: full board with no line but the round is %v by %v", g, r.Outcome(), r.Winner())
					}
					draws++
					drawn++
				default:
					if r.Outcome() != game.InProgress || r.Line() != nil {
						t.Fatalf("game %d: no line, not full, but the round is %v", g, r.Outcome())
					}
					if longest[mover] >= cfg.Connect {
						t.Fatalf("game %d: LongestRun %d >= %d in a round going on", g, longest[mover], cfg.Connect)
					}
				}
			}
			if got, want := [3]int{m.Draws(), m.Score(game.Player1), m.Score(game.Player2)}, [3]int{draws, score[1], score[2]}; got != want {
				t.Fatalf("game %d: draws, score 1, score 2 = %v, counted %v", g, got, want)
			}
			if !m.Over() && m.Round().Number() != round {
				round++
				mod = newModel(cfg.Rows, cfg.Columns)
				if m.Round().Number() != round || m.Previous() == nil || !m.Previous().Over() {
					t.Fatalf("game %d: round %d did not follow an ended round", g, m.Round().Number())
				}
			}
		}
		if !m.Forfeited() && score[m.Winner()] != cfg.Wins {
			t.Fatalf("game %d: winner has %d round wins, want %d", g, score[m.Winner()], cfg.Wins)
		}
		if score[m.Winner().Other()] >= cfg.Wins {
			t.Fatalf("game %d: loser has %d round wins of %d", g, score[m.Winner().Other()], cfg.Wins)
		}
		replayed, err := game.Replay(cfg, m.Actions())
		if err != nil {
			t.Fatalf("game %d: Replay: %v", g, err)
		}
		if !reflect.DeepEqual(replayed, m) || !reflect.DeepEqual(snap(replayed), snap(m)) {
			t.Fatalf("game %d: replay differs from the match", g)
		}
	}
	t.Logf("%d configs (%d invalid), %d round wins, %d draws, %d forfeits, %d illegal actions",
		games, invalid, won, drawn, forfeited, illegal)
	if played == 0 || won == 0 || drawn == 0 || forfeited == 0 || illegal == 0 || invalid == 0 {
		t.Errorf("the random games miss a case")
	}
}

// TestLongestRunRandomBoards compares LongestRun with brute force on random
// boards that need not come from a legal game.
func TestLongestRunRandomBoards(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for i := range 2000 {
		rows, columns := 1+rng.IntN(12), 1+rng.IntN(12)
		b, err := game.NewBoard(rows, columns)
		if err != nil {
			t.Fatal(err)
		}
		mod := newModel(rows, columns)
		for range rng.IntN(rows*columns + 1) {
			c := rng.IntN(columns)
			p := game.Player(1 + rng.IntN(2))
			if !b.CanDrop(c) {
				continue
			}
			if _, err := b.Drop(c, p); err != nil {
				t.Fatal(err)
			}
			mod.drop(c, p)
		}
		for _, p := range []game.Player{game.Player1, game.Player2} {
			if got, want := b.LongestRun(p), mod.longest(p); got != want {
				t.Fatalf("board %d: LongestRun(%v) = %d, brute force %d\n%s", i, p, got, want, b)
			}
		}
		again := mustParse(t, b.String())
		if !reflect.DeepEqual(again, b) {
			t.Fatalf("board %d: ParseBoard(String()) differs\n%s", i, b)
		}
	}
}
