package game_test

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/connectn/connectn/game"
)

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name    string
		cfg     game.Config
		wantErr bool
		mention string // a word the error must contain
	}{
		{name: "default", cfg: game.DefaultConfig()},
		{name: "1x1 connect 1", cfg: game.Config{Rows: 1, Columns: 1, Connect: 1, Wins: 1}},
		{name: "connect equal to the columns", cfg: game.Config{Rows: 3, Columns: 10, Connect: 10, Wins: 1}},
		{name: "connect equal to the rows", cfg: game.Config{Rows: 10, Columns: 3, Connect: 10, Wins: 1}},
		{name: "1xK", cfg: game.Config{Rows: 1, Columns: 9, Connect: 9, Wins: 1}},
		{name: "Kx1", cfg: game.Config{Rows: 9, Columns: 1, Connect: 9, Wins: 1}},
		{name: "64x64 connect 64", cfg: game.Config{Rows: 64, Columns: 64, Connect: 64, Wins: 5}},
		{name: "max size", cfg: game.Config{Rows: game.MaxSize, Columns: game.MaxSize, Connect: game.MaxSize, Wins: 1}},
		{name: "always first, player 2", cfg: game.Config{Rows: 6, Columns: 7, Connect: 4, Wins: 1, Openers: game.AlwaysFirst, FirstOpener: game.Player2}},
		{name: "zero rows", cfg: game.Config{Rows: 0, Columns: 7, Connect: 4, Wins: 1}, wantErr: true, mention: "rows"},
		{name: "negative rows", cfg: game.Config{Rows: -6, Columns: 7, Connect: 4, Wins: 1}, wantErr: true, mention: "rows"},
		{name: "zero columns", cfg: game.Config{Rows: 6, Columns: 0, Connect: 4, Wins: 1}, wantErr: true, mention: "columns"},
		{name: "negative columns", cfg: game.Config{Rows: 6, Columns: -1, Connect: 4, Wins: 1}, wantErr: true, mention: "columns"},
		{name: "too many rows", cfg: game.Config{Rows: game.MaxSize + 1, Columns: 7, Connect: 4, Wins: 1}, wantErr: true, mention: "rows"},
		{name: "too many columns", cfg: game.Config{Rows: 6, Columns: game.MaxSize + 1, Connect: 4, Wins: 1}, wantErr: true, mention: "columns"},
		{name: "connect 0", cfg: game.Config{Rows: 6, Columns: 7, Connect: 0, Wins: 1}, wantErr: true, mention: "connect"},
		{name: "negative connect", cfg: game.Config{Rows: 6, Columns: 7, Connect: -4, Wins: 1}, wantErr: true, mention: "connect"},
		{name: "connect longer than both", cfg: game.Config{Rows: 6, Columns: 7, Connect: 8, Wins: 1}, wantErr: true, mention: "connect"},
		{name: "connect 2 on 1x1", cfg: game.Config{Rows: 1, Columns: 1, Connect: 2, Wins: 1}, wantErr: true, mention: "connect"},
		{name: "zero wins", cfg: game.Config{Rows: 6, Columns: 7, Connect: 4, Wins: 0}, wantErr: true, mention: "wins"},
		{name: "negative wins", cfg: game.Config{Rows: 6, Columns: 7, Connect: 4, Wins: -1}, wantErr: true, mention: "wins"},
		{name: "unknown policy", cfg: game.Config{Rows: 6, Columns: 7, Connect: 4, Wins: 1, Openers: 2}, wantErr: true, mention: "opener"},
		{name: "unknown first opener", cfg: game.Config{Rows: 6, Columns: 7, Connect: 4, Wins: 1, FirstOpener: 3}, wantErr: true, mention: "opener"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			if got := err != nil; got != tt.wantErr {
				t.Fatalf("Validate() = %v, want error: %v", err, tt.wantErr)
			}
			m, merr := game.NewMatch(tt.cfg)
			if !tt.wantErr {
				if merr != nil || m == nil {
					t.Fatalf("NewMatch() = %v, %v; want a match", m, merr)
				}
				return
			}
			if !errors.Is(err, game.ErrInvalidConfig) {
				t.Errorf("Validate() = %v, want error wrapping ErrInvalidConfig", err)
			}
			if !strings.Contains(err.Error(), tt.mention) {
				t.Errorf("Validate() = %q, want it to mention %q", err, tt.mention)
			}
			if !errors.Is(merr, game.ErrInvalidConfig) || m != nil {
				t.Errorf("NewMatch() = %v, %v; want nil and ErrInvalidConfig", m, merr)
			}
		})
	}
}

func TestParseOpenerPolicy(t *testing.T) {
	tests := []struct {
		in      string
		want    game.OpenerPolicy
		wantErr bool
	}{
		{in: "alternate", want: game.Alternate},
		{in: " Alternate ", want: game.Alternate},
		{in: "first", want: game.AlwaysFirst},
		{in: "FIRST", want: game.AlwaysFirst},
		{in: "", wantErr: true},
		{in: "random", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := game.ParseOpenerPolicy(tt.in)
			if tt.wantErr {
				if !errors.Is(err, game.ErrInvalidConfig) {
					t.Errorf("ParseOpenerPolicy(%q) = %v, %v; want ErrInvalidConfig", tt.in, got, err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("ParseOpenerPolicy(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
			}
			again, err := game.ParseOpenerPolicy(got.String())
			if err != nil || again != got {
				t.Errorf("ParseOpenerPolicy(%q) = %v, %v; want %v", got.String(), again, err, got)
			}
		})
	}
}

func TestEnumStrings(t *testing.T) {
	tests := []struct {
		name, got, want string
	}{
		{name: "alternate", got: game.Alternate.String(), want: "alternate"},
		{name: "always first", got: game.AlwaysFirst.String(), want: "first"},
		{name: "unknown policy", got: game.OpenerPolicy(7).String(), want: "OpenerPolicy(7)"},
		{name: "in progress", got: game.InProgress.String(), want: "in progress"},
		{name: "won", got: game.Won.String(), want: "won"},
		{name: "drawn", got: game.Drawn.String(), want: "draw"},
		{name: "forfeited", got: game.Forfeited.String(), want: "forfeit"},
		{name: "unknown outcome", got: game.Outcome(9).String(), want: "Outcome(9)"},
		{name: "drop", got: game.Drop.String(), want: "drop"},
		{name: "forfeit round", got: game.ForfeitRound.String(), want: "forfeit-round"},
		{name: "forfeit match", got: game.ForfeitMatch.String(), want: "forfeit-match"},
		{name: "unknown kind", got: game.ActionKind(5).String(), want: "ActionKind(5)"},
		{name: "drop action", got: game.Action{Kind: game.Drop, Player: game.Player1, Column: 3}.String(), want: "player 1 drops in column 4"},
		{name: "forfeit round action", got: game.Action{Kind: game.ForfeitRound, Player: game.Player2}.String(), want: "player 2 forfeits the round"},
		{name: "forfeit match action", got: game.Action{Kind: game.ForfeitMatch, Player: game.Player1}.String(), want: "player 1 forfeits the match"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("got %q, want %q", tt.got, tt.want)
			}
		})
	}
}

func TestOpenerOf(t *testing.T) {
	p1, p2 := game.Player1, game.Player2
	tests := []struct {
		name        string
		openers     game.OpenerPolicy
		firstOpener game.Player
		want        []game.Player // rounds 1, 2, 3, 4, 5
	}{
		{name: "alternate from the default", openers: game.Alternate, want: []game.Player{p1, p2, p1, p2, p1}},
		{name: "alternate from player 1", openers: game.Alternate, firstOpener: p1, want: []game.Player{p1, p2, p1, p2, p1}},
		{name: "alternate from player 2", openers: game.Alternate, firstOpener: p2, want: []game.Player{p2, p1, p2, p1, p2}},
		{name: "always the default", openers: game.AlwaysFirst, want: []game.Player{p1, p1, p1, p1, p1}},
		{name: "always player 2", openers: game.AlwaysFirst, firstOpener: p2, want: []game.Player{p2, p2, p2, p2, p2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := game.Config{Rows: 3, Columns: 3, Connect: 3, Wins: 10, Openers: tt.openers, FirstOpener: tt.firstOpener}
			var got []game.Player
			for n := 1; n <= len(tt.want); n++ {
				got = append(got, cfg.OpenerOf(n))
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("OpenerOf(1..5) = %v, want %v", got, tt.want)
			}

			// The match follows the same policy; end each round by a
			// forfeit of whoever is to move.
			m := mustMatch(t, cfg)
			got = nil
			for range len(tt.want) {
				r := m.Round()
				got = append(got, r.Opener())
				if r.ToMove() != r.Opener() || m.ToMove() != r.Opener() {
					t.Errorf("round %d: ToMove() = %v, want opener %v", r.Number(), r.ToMove(), r.Opener())
				}
				if err := m.ForfeitRound(m.ToMove()); err != nil {
					t.Fatal(err)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("match openers = %v, want %v", got, tt.want)
			}
			if tt.firstOpener == game.NoPlayer {
				if got := m.Config().FirstOpener; got != game.Player1 {
					t.Errorf("Config().FirstOpener = %v, want player 1 filled in", got)
				}
			}
		})
	}
}

func TestTurnOrder(t *testing.T) {
	m := mustMatch(t, game.DefaultConfig())
	if got, want := m.ToMove(), game.Player1; got != want {
		t.Fatalf("ToMove() = %v, want %v", got, want)
	}
	r := m.Round()
	if _, ok := r.LastMove(); ok {
		t.Errorf("LastMove() reports a move before any drop")
	}
	moves := []struct {
		player game.Player
		column int
		cell   game.Cell
	}{
		{game.Player1, 3, game.Cell{Row: 0, Column: 3}},
		{game.Player2, 3, game.Cell{Row: 1, Column: 3}},
		{game.Player1, 0, game.Cell{Row: 0, Column: 0}},
		{game.Player2, 6, game.Cell{Row: 0, Column: 6}},
		{game.Player1, 3, game.Cell{Row: 2, Column: 3}},
	}
	for i, mv := range moves {
		if got := m.ToMove(); got != mv.player {
			t.Fatalf("move %d: ToMove() = %v, want %v", i, got, mv.player)
		}
		got, err := m.Play(mv.player, mv.column)
		if err != nil {
			t.Fatalf("move %d: %v", i, err)
		}
		if got != r {
			t.Fatalf("move %d: Play returned another round", i)
		}
		if last, ok := r.LastMove(); !ok || last != mv.cell {
			t.Errorf("move %d: LastMove() = %v, %v; want %v", i, last, ok, mv.cell)
		}
		if got := r.Board().At(mv.cell.Row, mv.cell.Column); got != mv.player {
			t.Errorf("move %d: At%v = %v, want %v", i, mv.cell, got, mv.player)
		}
		if got, want := m.Plies(), i+1; got != want {
			t.Errorf("move %d: Plies() = %d, want %d", i, got, want)
		}
	}
	if got, want := r.Moves(), []int{3, 3, 0, 6, 3}; !slices.Equal(got, want) {
		t.Errorf("Moves = %v, want %v", got, want)
	}
	if got, want := m.ToMove(), game.Player2; got != want {
		t.Errorf("ToMove() = %v, want %v", got, want)
	}
	if r.Over() || m.Over() || r.Outcome() != game.InProgress {
		t.Errorf("round or match over after 5 moves: %v", r.Outcome())
	}
}

// TestMatchScoring plays a whole match on a 2x3 board with connect 3 where
// 0,1,2,0,1,2 draws and 0,0,1,1,2 is won by the opener.
func TestMatchScoring(t *testing.T) {
	const draw, openerWins = "draw", "opener wins"
	scripts := map[string][]int{draw: {0, 1, 2, 0, 1, 2}, openerWins: {0, 0, 1, 1, 2}}
	p1, p2 := game.Player1, game.Player2
	m := mustMatch(t, game.Config{Rows: 2, Columns: 3, Connect: 3, Wins: 2})
	rounds := []struct {
		script      string
		opener      game.Player
		outcome     game.Outcome
		winner      game.Player
		line        string
		score1      int
		score2      int
		draws       int
		matchWinner game.Player
	}{
		{script: draw, opener: p1, outcome: game.Drawn, draws: 1},
		{script: openerWins, opener: p2, outcome: game.Won, winner: p2, line: "0,0 0,1 0,2", score2: 1, draws: 1},
		{script: draw, opener: p1, outcome: game.Drawn, score2: 1, draws: 2},
		{script: openerWins, opener: p2, outcome: game.Won, winner: p2, line: "0,0 0,1 0,2", score2: 2, draws: 2, matchWinner: p2},
	}
	for i, want := range rounds {
		n := i + 1
		if got := m.Round().Number(); got != n {
			t.Fatalf("round number = %d, want %d", got, n)
		}
		if got := m.Round().Opener(); got != want.opener {
			t.Errorf("round %d: opener = %v, want %v", n, got, want.opener)
		}
		prev := m.Previous()
		if n == 1 && prev != nil {
			t.Errorf("Previous() = round %d during round 1, want nil", prev.Number())
		}
		if n > 1 && (prev == nil || prev.Number() != n-1) {
			t.Errorf("Previous() = %v during round %d, want round %d", prev, n, n-1)
		}
		r := play(t, m, scripts[want.script]...)
		if r.Number() != n {
			t.Errorf("Play returned round %d, want %d", r.Number(), n)
		}
		if r.Outcome() != want.outcome || r.Winner() != want.winner {
			t.Errorf("round %d: %v by %v, want %v by %v", n, r.Outcome(), r.Winner(), want.outcome, want.winner)
		}
		if got, want := r.Line(), cells(t, want.line); !slices.Equal(got, want) {
			t.Errorf("round %d: Line = %v, want %v", n, got, want)
		}
		for _, c := range r.Line() {
			if !r.InLine(c) {
				t.Errorf("round %d: InLine(%v) = false for a cell of the line", n, c)
			}
		}
		if r.InLine(game.Cell{Row: 1, Column: 1}) {
			t.Errorf("round %d: InLine((1,1)) = true", n)
		}
		if !r.Over() || r.ToMove() != game.NoPlayer {
			t.Errorf("round %d: Over() = %v, ToMove() = %v after the end", n, r.Over(), r.ToMove())
		}
		if got, want := [3]int{m.Score(p1), m.Score(p2), m.Draws()}, [3]int{want.score1, want.score2, want.draws}; got != want {
			t.Errorf("after round %d: score 1, score 2, draws = %v, want %v", n, got, want)
		}
		if got := m.Winner(); got != want.matchWinner {
			t.Errorf("after round %d: Winner() = %v, want %v", n, got, want.matchWinner)
		}
		if want.matchWinner == game.NoPlayer {
			if m.Round().Number() != n+1 || m.Previous() != r {
				t.Errorf("after round %d: current round %d, want %d with the ended one as Previous", n, m.Round().Number(), n+1)
			}
		}
	}
	if !m.Over() || m.ToMove() != game.NoPlayer || m.Forfeited() {
		t.Errorf("Over() = %v, ToMove() = %v, Forfeited() = %v; want over, nobody, not forfeited", m.Over(), m.ToMove(), m.Forfeited())
	}
	if got, want := m.Round().Number(), 4; got != want {
		t.Errorf("Round() after the end = round %d, want the last round %d", got, want)
	}
	if got, want := m.Previous().Number(), 3; got != want {
		t.Errorf("Previous() after the end = round %d, want %d", got, want)
	}
	if got, want := len(m.Rounds()), 4; got != want {
		t.Errorf("len(Rounds()) = %d, want %d", got, want)
	}
	records := []struct {
		player game.Player
		want   game.Record
	}{
		{p1, game.Record{Wins: 0, Losses: 2, Draws: 2}},
		{p2, game.Record{Wins: 2, Losses: 0, Draws: 2}},
		{game.NoPlayer, game.Record{}},
		{game.Player(9), game.Record{}},
	}
	for _, rec := range records {
		if got := m.Record(rec.player); got != rec.want {
			t.Errorf("Record(%v) = %+v, want %+v", rec.player, got, rec.want)
		}
	}
	if got := m.Score(game.NoPlayer); got != 0 {
		t.Errorf("Score(nobody) = %d, want 0", got)
	}

	// After the end every action is refused and changes nothing.
	before := snap(m)
	for _, p := range []game.Player{p1, p2, game.NoPlayer} {
		if _, err := m.Play(p, 0); !errors.Is(err, game.ErrMatchOver) {
			t.Errorf("Play(%v) after the end = %v, want ErrMatchOver", p, err)
		}
		if err := m.ForfeitRound(p); !errors.Is(err, game.ErrMatchOver) {
			t.Errorf("ForfeitRound(%v) after the end = %v, want ErrMatchOver", p, err)
		}
		if err := m.Forfeit(p); !errors.Is(err, game.ErrMatchOver) {
			t.Errorf("Forfeit(%v) after the end = %v, want ErrMatchOver", p, err)
		}
	}
	if got := snap(m); !reflect.DeepEqual(got, before) {
		t.Errorf("match changed after refused actions:\n%+v\nwant\n%+v", got, before)
	}
}

func TestRecordAdd(t *testing.T) {
	a := game.Record{Wins: 3, Losses: 1, Draws: 2}
	b := game.Record{Wins: 0, Losses: 4, Draws: 1}
	if got, want := a.Add(b), (game.Record{Wins: 3, Losses: 5, Draws: 3}); got != want {
		t.Errorf("Add = %+v, want %+v", got, want)
	}
	if got := a.Add(game.Record{}); got != a {
		t.Errorf("Add(zero) = %+v, want %+v", got, a)
	}

	// Records of two matches add up per player.
	m1 := mustMatch(t, game.Config{Rows: 1, Columns: 1, Connect: 1, Wins: 1})
	play(t, m1, 0) // player 1 wins
	m2 := mustMatch(t, game.Config{Rows: 1, Columns: 2, Connect: 2, Wins: 1})
	play(t, m2, 0, 1) // draw
	if err := m2.Forfeit(game.Player1); err != nil {
		t.Fatal(err)
	}
	if got, want := m1.Record(game.Player1).Add(m2.Record(game.Player1)), (game.Record{Wins: 1, Losses: 1, Draws: 1}); got != want {
		t.Errorf("player 1 over two matches = %+v, want %+v", got, want)
	}
	if got, want := m1.Record(game.Player2).Add(m2.Record(game.Player2)), (game.Record{Wins: 1, Losses: 1, Draws: 1}); got != want {
		t.Errorf("player 2 over two matches = %+v, want %+v", got, want)
	}
}

func TestWinOnTheLastCellIsAWin(t *testing.T) {
	m := mustMatch(t, game.Config{Rows: 1, Columns: 1, Connect: 1, Wins: 1})
	r := play(t, m, 0)
	if !r.Board().Full() {
		t.Fatalf("board not full:\n%s", r.Board())
	}
	if r.Outcome() != game.Won || r.Winner() != game.Player1 || m.Draws() != 0 {
		t.Errorf("%v by %v with %d draws, want won by player 1 and no draw", r.Outcome(), r.Winner(), m.Draws())
	}
	if got, want := r.Line(), cells(t, "0,0"); !slices.Equal(got, want) {
		t.Errorf("Line = %v, want %v", got, want)
	}
}

func TestIllegalActionsChangeNothing(t *testing.T) {
	type call func(m *game.Match) error
	playFn := func(p game.Player, column int) call {
		return func(m *game.Match) error { _, err := m.Play(p, column); return err }
	}
	p1, p2 := game.Player1, game.Player2
	cfg := game.Config{Rows: 2, Columns: 3, Connect: 3, Wins: 1}
	tests := []struct {
		name    string
		setup   []int // columns played alternately first
		do      call
		wantErr error
	}{
		{name: "column -1", do: playFn(p1, -1), wantErr: game.ErrColumnOutOfRange},
		{name: "column past the right edge", do: playFn(p1, 3), wantErr: game.ErrColumnOutOfRange},
		{name: "huge column", do: playFn(p1, 1<<40), wantErr: game.ErrColumnOutOfRange},
		{name: "full column", setup: []int{0, 0}, do: playFn(p1, 0), wantErr: game.ErrColumnFull},
		{name: "player 2 opens", do: playFn(p2, 0), wantErr: game.ErrNotYourTurn},
		{name: "player 1 twice", setup: []int{1}, do: playFn(p1, 0), wantErr: game.ErrNotYourTurn},
		{name: "not your turn wins over a bad column", setup: []int{1}, do: playFn(p1, 9), wantErr: game.ErrNotYourTurn},
		{name: "no player drops", do: playFn(game.NoPlayer, 0), wantErr: game.ErrInvalidPlayer},
		{name: "player 3 drops", do: playFn(game.Player(3), 0), wantErr: game.ErrInvalidPlayer},
		{name: "no player forfeits the round", do: func(m *game.Match) error { return m.ForfeitRound(game.NoPlayer) }, wantErr: game.ErrInvalidPlayer},
		{name: "player 3 forfeits the match", do: func(m *game.Match) error { return m.Forfeit(game.Player(3)) }, wantErr: game.ErrInvalidPlayer},
		{name: "unknown action kind", do: func(m *game.Match) error { return m.Apply(game.Action{Kind: 7, Player: p1}) }, wantErr: game.ErrInvalidAction},
		{name: "apply a bad column", do: func(m *game.Match) error { return m.Apply(game.Action{Kind: game.Drop, Player: p1, Column: -2}) }, wantErr: game.ErrColumnOutOfRange},
		{name: "play after the end", setup: []int{0, 0, 1, 1, 2}, do: playFn(p2, 2), wantErr: game.ErrMatchOver},
		{name: "forfeit after the end", setup: []int{0, 0, 1, 1, 2}, do: func(m *game.Match) error { return m.Forfeit(p2) }, wantErr: game.ErrMatchOver},
		{name: "forfeit the round after the end", setup: []int{0, 0, 1, 1, 2}, do: func(m *game.Match) error { return m.ForfeitRound(p1) }, wantErr: game.ErrMatchOver},
		{name: "match over wins over a bad player", setup: []int{0, 0, 1, 1, 2}, do: playFn(game.NoPlayer, 0), wantErr: game.ErrMatchOver},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := mustMatch(t, cfg)
			play(t, m, tt.setup...)
			before := snap(m)
			boardBefore := m.Round().Board().String()
			err := tt.do(m)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("error = %v, want %v", err, tt.wantErr)
			}
			if err.Error() == tt.wantErr.Error() {
				t.Errorf("error %q adds no detail to the sentinel", err)
			}
			if got, want := m.Actions(), before.Actions; !slices.Equal(got, want) {
				t.Errorf("Actions() = %v, want %v", got, want)
			}
			if got := m.Round().Board().String(); got != boardBefore {
				t.Errorf("board = \n%s\nwant\n%s", got, boardBefore)
			}
			if got := snap(m); !reflect.DeepEqual(got, before) {
				t.Errorf("match changed:\n%+v\nwant\n%+v", got, before)
			}
		})
	}
}

func TestForfeitRound(t *testing.T) {
	m := mustMatch(t, game.Config{Rows: 6, Columns: 7, Connect: 4, Wins: 2})
	play(t, m, 3, 3, 4)
	r := m.Round()
	// Player 1 may forfeit while player 2 is to move.
	if err := m.ForfeitRound(game.Player1); err != nil {
		t.Fatal(err)
	}
	if r.Outcome() != game.Forfeited || r.Winner() != game.Player2 || r.Line() != nil {
		t.Errorf("round 1: %v by %v, line %v; want forfeit by player 2, no line", r.Outcome(), r.Winner(), r.Line())
	}
	if got, want := r.Board().Discs(), 3; got != want {
		t.Errorf("forfeited board keeps %d discs, want %d", got, want)
	}
	if m.Over() || m.Forfeited() {
		t.Errorf("match over after one round forfeit with Wins 2")
	}
	if got, want := m.Record(game.Player2), (game.Record{Wins: 1}); got != want {
		t.Errorf("Record(player 2) = %+v, want %+v", got, want)
	}
	if got, want := m.Record(game.Player1), (game.Record{Losses: 1}); got != want {
		t.Errorf("Record(player 1) = %+v, want %+v", got, want)
	}
	if m.Previous() != r || m.Round().Number() != 2 || m.Round().Board().Discs() != 0 {
		t.Fatalf("round 2 not started on an empty board")
	}
	if got, want := m.ToMove(), game.Player2; got != want {
		t.Errorf("round 2 opener = %v, want %v", got, want)
	}

	// Forfeiting the deciding round ends the match on round wins: that
	// is not a forfeit of the match.
	if err := m.ForfeitRound(game.Player1); err != nil {
		t.Fatal(err)
	}
	if !m.Over() || m.Winner() != game.Player2 || m.Forfeited() {
		t.Errorf("Over() = %v, Winner() = %v, Forfeited() = %v; want over, player 2, false", m.Over(), m.Winner(), m.Forfeited())
	}
	if got, want := m.Actions(), []game.Action{
		{Kind: game.Drop, Player: game.Player1, Column: 3},
		{Kind: game.Drop, Player: game.Player2, Column: 3},
		{Kind: game.Drop, Player: game.Player1, Column: 4},
		{Kind: game.ForfeitRound, Player: game.Player1},
		{Kind: game.ForfeitRound, Player: game.Player1},
	}; !slices.Equal(got, want) {
		t.Errorf("Actions() = %v, want %v", got, want)
	}
}

func TestForfeitMatch(t *testing.T) {
	tests := []struct {
		name      string
		setup     func(t *testing.T, m *game.Match)
		forfeiter game.Player
		wantScore [2]int
		rounds    int
	}{
		{
			name:      "at the very start",
			setup:     func(*testing.T, *game.Match) {},
			forfeiter: game.Player1, wantScore: [2]int{0, 1}, rounds: 1,
		},
		{
			name: "when ahead, out of turn",
			setup: func(t *testing.T, m *game.Match) {
				play(t, m, 0, 1, 0, 1, 0, 1, 0) // player 1 wins round 1
				play(t, m, 5, 4)                // player 2 opens round 2; player 2 to move
			},
			forfeiter: game.Player1, wantScore: [2]int{1, 1}, rounds: 2,
		},
		{
			name: "player 2 mid-round",
			setup: func(t *testing.T, m *game.Match) {
				play(t, m, 2, 2, 3)
			},
			forfeiter: game.Player2, wantScore: [2]int{1, 0}, rounds: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := mustMatch(t, game.Config{Rows: 6, Columns: 7, Connect: 4, Wins: 3})
			tt.setup(t, m)
			discs := m.Round().Board().Discs()
			if err := m.Forfeit(tt.forfeiter); err != nil {
				t.Fatal(err)
			}
			winner := tt.forfeiter.Other()
			if !m.Over() || !m.Forfeited() || m.Winner() != winner || m.ToMove() != game.NoPlayer {
				t.Errorf("Over() = %v, Forfeited() = %v, Winner() = %v, ToMove() = %v; want over by forfeit to %v",
					m.Over(), m.Forfeited(), m.Winner(), m.ToMove(), winner)
			}
			if got := [2]int{m.Score(game.Player1), m.Score(game.Player2)}; got != tt.wantScore {
				t.Errorf("score = %v, want %v", got, tt.wantScore)
			}
			r := m.Round()
			if r.Outcome() != game.Forfeited || r.Winner() != winner || r.Line() != nil || r.Board().Discs() != discs {
				t.Errorf("last round: %v by %v, line %v, %d discs; want forfeit to %v with %d discs", r.Outcome(), r.Winner(), r.Line(), r.Board().Discs(), winner, discs)
			}
			if got := len(m.Rounds()); got != tt.rounds {
				t.Errorf("%d rounds, want %d (no round after the forfeit)", got, tt.rounds)
			}
			if got, want := m.Record(winner).Wins, m.Record(tt.forfeiter).Losses; got != want {
				t.Errorf("winner's wins %d != forfeiter's losses %d", got, want)
			}
			actions := m.Actions()
			if got, want := actions[len(actions)-1], (game.Action{Kind: game.ForfeitMatch, Player: tt.forfeiter}); got != want {
				t.Errorf("last action = %v, want %v", got, want)
			}
			if err := m.Forfeit(winner); !errors.Is(err, game.ErrMatchOver) {
				t.Errorf("second Forfeit = %v, want ErrMatchOver", err)
			}
		})
	}
}

func TestRoundsIsACopy(t *testing.T) {
	m := mustMatch(t, game.DefaultConfig())
	rounds := m.Rounds()
	rounds[0] = nil
	if m.Rounds()[0] == nil {
		t.Errorf("Rounds() shares its slice with the match")
	}
	actions := m.Actions()
	play(t, m, 0)
	if len(actions) != 0 {
		t.Errorf("Actions() copy grew with the match")
	}
	actions = m.Actions()
	actions[0].Column = 5
	if m.Actions()[0].Column != 0 {
		t.Errorf("Actions() shares its slice with the match")
	}
}

// TestRoundViewsAreReadOnly changes everything a Round hands out and checks
// that the match did not change: the board, the moves and the winning line
// are copies.
func TestRoundViewsAreReadOnly(t *testing.T) {
	m, err := game.NewMatch(game.Config{Rows: 4, Columns: 4, Connect: 3, Wins: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []int{0, 1, 0, 1, 0} { // player 1 wins round 1 vertically
		if _, err := m.Play(m.ToMove(), c); err != nil {
			t.Fatal(err)
		}
	}
	r := m.Rounds()[0]
	before := r.Board().String()
	moves, line := r.Moves(), r.Line()
	if len(line) != 3 {
		t.Fatalf("Line() = %v, want 3 cells", line)
	}

	b := r.Board()
	if _, err := b.Drop(3, game.Player2); err != nil {
		t.Fatal(err)
	}
	moves[0] = 3
	line[0] = game.Cell{Row: 3, Column: 3}

	if got := r.Board().String(); got != before {
		t.Errorf("Board() after changing a copy =\n%s want\n%s", got, before)
	}
	if got := r.Moves(); !slices.Equal(got, []int{0, 1, 0, 1, 0}) {
		t.Errorf("Moves() after changing a copy = %v", got)
	}
	if got := r.Line(); got[0] == (game.Cell{Row: 3, Column: 3}) {
		t.Errorf("Line() after changing a copy = %v", got)
	}
	if got := r.At(0, 3); got != game.NoPlayer {
		t.Errorf("At(0, 3) = %v after dropping into a copy, want empty", got)
	}
	if m.Plies() != 5 || r.Plies() != 5 {
		t.Errorf("Plies() = %d, round %d, want 5", m.Plies(), r.Plies())
	}
}

// TestClone plays on a clone and on the original and checks that neither
// sees the other's moves, and that the clone equals a replay.
func TestClone(t *testing.T) {
	cfg := game.Config{Rows: 6, Columns: 7, Connect: 4, Wins: 2}
	m, err := game.NewMatch(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []int{0, 1, 0, 1, 0, 1, 0, 3, 3} { // round 1 won, round 2 under way
		if _, err := m.Play(m.ToMove(), c); err != nil {
			t.Fatalf("Play(%d) error = %v", c, err)
		}
	}
	c := m.Clone()
	want, err := game.Replay(cfg, m.Actions())
	if err != nil {
		t.Fatal(err)
	}
	if got, w := c.Round().Board().String(), want.Round().Board().String(); got != w {
		t.Fatalf("clone board =\n%s want\n%s", got, w)
	}
	if len(c.Previous().Line()) == 0 || c.Score(game.Player1) != 1 || c.ToMove() != want.ToMove() {
		t.Fatalf("clone previous line %v, score %d, to move %v", c.Previous().Line(), c.Score(game.Player1), c.ToMove())
	}
	before := m.Round().Board().String()
	if _, err := c.Play(c.ToMove(), 5); err != nil {
		t.Fatal(err)
	}
	if got := m.Round().Board().String(); got != before || m.Plies() != 9 {
		t.Errorf("original after a move on the clone: %d plies, board\n%s want\n%s", m.Plies(), got, before)
	}
	if _, err := m.Play(m.ToMove(), 6); err != nil {
		t.Fatal(err)
	}
	if c.Round().At(0, 6) != game.NoPlayer || c.Plies() != 10 {
		t.Errorf("clone after a move on the original: %d plies, column 7 holds %v", c.Plies(), c.Round().At(0, 6))
	}
}

// TestCloneSharesNoAppends clones one match twice and plays a different
// move on each clone and on the original: each keeps its own last action
// and move, though Clone shares the history played before (it fails when
// a clone's slices may grow into the array they share).
func TestCloneSharesNoAppends(t *testing.T) {
	m := mustMatch(t, game.Config{Rows: 6, Columns: 7, Connect: 4, Wins: 2})
	play(t, m, 0, 1, 0, 1, 0, 1, 0, 3, 3, 4) // round 1 won, round 2 at its third move
	history := m.Actions()
	matches := []*game.Match{m.Clone(), m.Clone(), m}
	for i, c := range matches {
		play(t, c, i)
	}
	for i, c := range matches {
		if c.Plies() != 11 || c.Action(10).Column != i {
			t.Errorf("match %d: %d plies, last action %v, want 11 plies, a drop in column index %d", i, c.Plies(), c.Action(10), i)
		}
		if moves := c.Round().Moves(); len(moves) != 4 || moves[3] != i {
			t.Errorf("match %d: round moves %v, want the fourth in column index %d", i, moves, i)
		}
		if got := c.Actions()[:10]; !slices.Equal(got, history) {
			t.Errorf("match %d: history %v, want %v", i, got, history)
		}
	}
}
