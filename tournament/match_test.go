package tournament_test

import (
	"errors"
	"testing"

	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/tournament"
)

// play returns a match of cfg after the given steps: a column to drop in
// (for the player to move), or −1 for the player to move to forfeit the
// match.
func play(t *testing.T, cfg game.Config, steps ...int) *game.Match {
	t.Helper()
	m, err := game.NewMatch(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range steps {
		if c < 0 {
			err = m.Forfeit(m.ToMove())
		} else {
			_, err = m.Play(m.ToMove(), c)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return m
}

func TestMatchResult(t *testing.T) {
	std := tournament.Config{Name: "x", Format: tournament.Swiss}.Game()
	oneDisc := game.Config{Rows: 4, Columns: 4, Connect: 1, Wins: 2, Openers: game.Alternate, FirstOpener: game.Player1}
	tests := []struct {
		name    string
		m       *game.Match
		want    tournament.Result
		wantErr error
		stopped tournament.Result
	}{
		{"the opener connects four", play(t, std, 0, 1, 0, 1, 0, 1, 0), tournament.OpenerWins, nil, tournament.OpenerWins},
		{"the second connects four", play(t, std, 0, 1, 0, 1, 0, 1, 2, 1), tournament.SecondWins, nil, tournament.SecondWins},
		{"the second never drops: a forfeit", play(t, std, 3, -1), tournament.OpenerWinsByForfeit, nil, tournament.OpenerWinsByForfeit},
		{"the opener never drops: a forfeit", play(t, std, -1), tournament.SecondWinsByForfeit, nil, tournament.SecondWinsByForfeit},
		{"the second played, then gave up: a played game", play(t, std, 3, 3, -1), tournament.SecondWins, nil, tournament.SecondWins},
		{"the opener played, then gave up", play(t, std, 3, 3, 4, -1), tournament.OpenerWins, nil, tournament.OpenerWins},
		{"still going on", play(t, std, 3), tournament.Pending, tournament.ErrMatchNotOver, tournament.Draw},
		{"stopped one round up", play(t, oneDisc, 0), tournament.Pending, tournament.ErrMatchNotOver, tournament.OpenerWins},
		{"stopped level, one round each", play(t, oneDisc, 0, 0), tournament.Pending, tournament.ErrMatchNotOver, tournament.Draw},
		{"no match at all", nil, tournament.Pending, tournament.ErrMatchNotOver, tournament.DoubleForfeit},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tournament.MatchResult(tt.m)
			if got != tt.want || !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
				t.Errorf("MatchResult: %q, %v; want %q, %v", got, err, tt.want, tt.wantErr)
			}
			if got := tournament.StoppedResult(tt.m); got != tt.stopped {
				t.Errorf("StoppedResult: %q, want %q", got, tt.stopped)
			}
		})
	}
}

func TestResultPoints(t *testing.T) {
	tests := []struct {
		r              tournament.Result
		opener, second float64
		forfeit        bool
	}{
		{tournament.Pending, 0, 0, false},
		{tournament.OpenerWins, 1, 0, false},
		{tournament.SecondWins, 0, 1, false},
		{tournament.Draw, 0.5, 0.5, false},
		{tournament.OpenerWinsByForfeit, 1, 0, true},
		{tournament.SecondWinsByForfeit, 0, 1, true},
		{tournament.DoubleForfeit, 0, 0, true},
		{tournament.Bye, 1, 0, true},
	}
	for _, tt := range tests {
		o, s := tt.r.Points()
		if o != tt.opener || s != tt.second || tt.r.Forfeit() != tt.forfeit || !tt.r.Valid() || tt.r.Decided() == (tt.r == tournament.Pending) {
			t.Errorf("%q: points %v–%v, forfeit %v, decided %v; want %v–%v, %v", tt.r, o, s, tt.r.Forfeit(), tt.r.Decided(), tt.opener, tt.second, tt.forfeit)
		}
	}
	if r := tournament.Result("2-0"); r.Valid() || r.Decided() {
		t.Errorf("%q is valid", r)
	}
}
