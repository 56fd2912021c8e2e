package tournament_test

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/tournament"
)

func TestConfigValidate(t *testing.T) {
	ok := tournament.Config{Name: "Friday Swiss", Format: tournament.Swiss}
	with := func(f func(c *tournament.Config)) tournament.Config {
		c := ok
		f(&c)
		return c
	}
	tests := []struct {
		name string
		c    tournament.Config
		want error // nil: valid
	}{
		{"a Swiss", ok, nil},
		{"a Swiss of 7 rounds on 8 × 9, connect 5, 3 wins", with(func(c *tournament.Config) {
			c.Rounds, c.Rows, c.Columns, c.Connect, c.Wins, c.Rated, c.PlayerLimit = 7, 8, 9, 5, 3, true, 64
		}), nil},
		{"a double round robin", tournament.Config{Name: "RR", Format: tournament.RoundRobin, Double: true}, nil},
		{"an arena of an hour", tournament.Config{Name: "Arena", Format: tournament.Arena, Duration: time.Hour}, nil},
		{"no name", with(func(c *tournament.Config) { c.Name = "  " }), tournament.ErrInvalidConfig},
		{"a name too long", with(func(c *tournament.Config) { c.Name = strings.Repeat("é", 101) }), tournament.ErrInvalidConfig},
		{"unknown format", with(func(c *tournament.Config) { c.Format = "knockout" }), tournament.ErrInvalidConfig},
		{"negative rounds", with(func(c *tournament.Config) { c.Rounds = -1 }), tournament.ErrInvalidConfig},
		{"too many rounds", with(func(c *tournament.Config) { c.Rounds = tournament.MaxRounds + 1 }), tournament.ErrInvalidConfig},
		{"rounds for a round robin", tournament.Config{Name: "RR", Format: tournament.RoundRobin, Rounds: 3}, tournament.ErrInvalidConfig},
		{"a double Swiss", with(func(c *tournament.Config) { c.Double = true }), tournament.ErrInvalidConfig},
		{"an arena without a duration", tournament.Config{Name: "A", Format: tournament.Arena}, tournament.ErrInvalidConfig},
		{"an arena of two days", tournament.Config{Name: "A", Format: tournament.Arena, Duration: 48 * time.Hour}, tournament.ErrInvalidConfig},
		{"a Swiss with a duration", with(func(c *tournament.Config) { c.Duration = time.Hour }), tournament.ErrInvalidConfig},
		{"a limit of one", with(func(c *tournament.Config) { c.PlayerLimit = 1 }), tournament.ErrInvalidConfig},
		{"a limit too high", with(func(c *tournament.Config) { c.PlayerLimit = tournament.MaxPlayers + 1 }), tournament.ErrInvalidConfig},
		{"negative rows", with(func(c *tournament.Config) { c.Rows = -6 }), tournament.ErrInvalidConfig},
		{"connect longer than the board", with(func(c *tournament.Config) { c.Connect = 9 }), game.ErrInvalidConfig},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.c.Validate()
			if tt.want == nil && err != nil || tt.want != nil && !errors.Is(err, tt.want) {
				t.Errorf("Validate() = %v, want %v", err, tt.want)
			}
			if tt.want != nil && !errors.Is(err, tournament.ErrInvalidConfig) {
				t.Errorf("Validate() = %v, which does not wrap ErrInvalidConfig", err)
			}
			if s, err := tournament.New(tt.c, 1); (err == nil) != (tt.want == nil) || (err != nil && !reflect.DeepEqual(s, tournament.State{})) {
				t.Errorf("New: %+v, %v", s, err)
			}
		})
	}
	if got, want := ok.Game(), game.DefaultConfig(); got != want {
		t.Errorf("the default board rules: %+v, want %+v", got, want)
	}
}

func TestStateValidate(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 11))
	s := newTournament(t, tournament.Config{Format: tournament.Swiss}, 5, rng)
	s = finishRound(t, appendRound(t, s, mustNext(t, s)), rng, 0)
	s = appendRound(t, s, mustNext(t, s))
	edit := func(f func(s *tournament.State)) tournament.State {
		b, _ := json.Marshal(s)
		var c tournament.State
		if err := json.Unmarshal(b, &c); err != nil {
			t.Fatal(err)
		}
		f(&c)
		return c
	}
	arena := newTournament(t, tournament.Config{Format: tournament.Arena, Duration: time.Hour}, 4, rng)
	arena.Started = start
	arena = appendRound(t, arena, tournament.Round{Number: 1, Started: start, Pairings: []tournament.Pairing{{Opener: "p000", Second: "p001"}}})
	tests := []struct {
		name string
		s    tournament.State
		want error
	}{
		{"as played", s, nil},
		{"a bad config", edit(func(s *tournament.State) { s.Config.Format = "" }), tournament.ErrInvalidConfig},
		{"an empty ID", edit(func(s *tournament.State) { s.Players[0].ID = "" }), tournament.ErrInvalidState},
		{"an ID too long", edit(func(s *tournament.State) { s.Players[0].ID = strings.Repeat("9", 65) }), tournament.ErrInvalidState},
		{"a rating not a number", edit(func(s *tournament.State) { s.Players[0].Rating = math.NaN() }), tournament.ErrInvalidState},
		{"an infinite rating", edit(func(s *tournament.State) { s.Players[0].Rating = math.Inf(1) }), tournament.ErrInvalidState},
		{"a player twice", edit(func(s *tournament.State) { s.Players[1].ID = s.Players[0].ID }), tournament.ErrInvalidState},
		{"a round misnumbered", edit(func(s *tournament.State) { s.Rounds[1].Number = 3 }), tournament.ErrInvalidState},
		{"an unknown player paired", edit(func(s *tournament.State) { s.Rounds[0].Pairings[0].Opener = "zzz" }), tournament.ErrInvalidState},
		{"a player paired twice in a round", edit(func(s *tournament.State) { s.Rounds[0].Pairings[1].Opener = s.Rounds[0].Pairings[0].Opener }), tournament.ErrInvalidState},
		{"a bye without its point", edit(func(s *tournament.State) { s.Rounds[0].Pairings[2].Result = tournament.OpenerWins }), tournament.ErrInvalidState},
		{"a game scored as a bye", edit(func(s *tournament.State) { s.Rounds[0].Pairings[0].Result = tournament.Bye }), tournament.ErrInvalidState},
		{"an unknown result", edit(func(s *tournament.State) { s.Rounds[0].Pairings[0].Result = "2-0" }), tournament.ErrInvalidState},
		{"a result missing before the last round", edit(func(s *tournament.State) { s.Rounds[0].Pairings[0].Result = tournament.Pending }), tournament.ErrInvalidState},
		{"an arena round", arena, nil},
		{"an arena round without its time", func() tournament.State {
			a := arena
			a.Rounds = []tournament.Round{{Number: 1, Pairings: a.Rounds[0].Pairings}}
			return a
		}(), tournament.ErrInvalidState},
		{"an arena player paired while playing", func() tournament.State {
			a := arena
			a.Rounds = append(a.Rounds[:1:1], tournament.Round{Number: 2, Started: start, Pairings: []tournament.Pairing{{Opener: "p001", Second: "p002"}}})
			return a
		}(), tournament.ErrInvalidState},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.s.Validate()
			if tt.want == nil && err != nil || tt.want != nil && !errors.Is(err, tt.want) {
				t.Errorf("Validate() = %v, want %v", err, tt.want)
			}
			if tt.want != nil {
				if st, err := tournament.Standings(tt.s); !errors.Is(err, tt.want) || st != nil {
					t.Errorf("Standings of a bad state: %v, %v", st, err)
				}
			}
		})
	}
}

// TestJoinLeaveRecord checks the changes a lifecycle makes, their refusals,
// and that none changes the state it is given.
func TestJoinLeaveRecord(t *testing.T) {
	s, err := tournament.New(tournament.Config{Name: "Small", Format: tournament.Swiss, PlayerLimit: 3}, 5)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"a", "b", "c"} {
		if s, err = tournament.Join(s, tournament.Player{ID: id, Rating: 1500, Withdrawn: true}); err != nil {
			t.Fatal(err)
		}
	}
	if s.Players[0].Withdrawn {
		t.Error("Join kept Withdrawn: a player joins in")
	}
	before, _ := json.Marshal(s)
	refusals := []struct {
		name string
		f    func() (tournament.State, error)
		want error
	}{
		{"join twice", func() (tournament.State, error) { return tournament.Join(s, tournament.Player{ID: "a"}) }, tournament.ErrAlreadyJoined},
		{"join when full", func() (tournament.State, error) { return tournament.Join(s, tournament.Player{ID: "d"}) }, tournament.ErrFull},
		{"join with no ID", func() (tournament.State, error) { return tournament.Join(s, tournament.Player{}) }, tournament.ErrInvalidState},
		{"join with a rating not a number", func() (tournament.State, error) {
			return tournament.Join(s, tournament.Player{ID: "d", Rating: math.NaN()})
		}, tournament.ErrInvalidState},
		{"leave, not in", func() (tournament.State, error) { return tournament.Leave(s, "z") }, tournament.ErrUnknownPlayer},
		{"record before any round", func() (tournament.State, error) { return tournament.RecordResult(s, 1, "a", tournament.OpenerWins) }, tournament.ErrUnknownRound},
	}
	for _, tt := range refusals {
		if got, err := tt.f(); !errors.Is(err, tt.want) || got.Players != nil {
			t.Errorf("%s: %v, %v; want no state and %v", tt.name, got.Players, err, tt.want)
		}
	}
	left, err := tournament.Leave(s, "b")
	if err != nil || len(left.Players) != 2 {
		t.Fatalf("leave before the start: %+v, %v; want the entry removed", left.Players, err)
	}
	r := mustNext(t, s) // a–c or c–a, b's bye
	s1 := appendRound(t, s, r)
	if _, err := tournament.Join(s1, tournament.Player{ID: "d"}); !errors.Is(err, tournament.ErrStarted) {
		t.Errorf("join after round 1: %v, want ErrStarted", err)
	}
	g := r.Pairings[0]
	recorded, err := tournament.RecordResult(s1, 1, g.Second, tournament.SecondWins)
	if err != nil || recorded.Rounds[0].Pairings[0].Result != tournament.SecondWins {
		t.Fatalf("record: %v, %v", recorded.Rounds, err)
	}
	if s1.Rounds[0].Pairings[0].Result != tournament.Pending {
		t.Error("RecordResult changed the state it was given")
	}
	for _, tt := range []struct {
		name  string
		round int
		id    string
		r     tournament.Result
		want  error
	}{
		{"again, another result", 1, g.Opener, tournament.OpenerWins, tournament.ErrAlreadyRecorded},
		{"again, the same result", 1, g.Opener, tournament.SecondWins, tournament.ErrAlreadyRecorded},
		{"the bye's player", 1, r.Pairings[1].Opener, tournament.OpenerWins, tournament.ErrUnknownPlayer},
		{"round 2", 2, g.Opener, tournament.OpenerWins, tournament.ErrUnknownRound},
		{"round 0", 0, g.Opener, tournament.OpenerWins, tournament.ErrUnknownRound},
		{"pending", 1, g.Opener, tournament.Pending, tournament.ErrInvalidResult},
		{"bye", 1, g.Opener, tournament.Bye, tournament.ErrInvalidResult},
		{"unknown", 1, g.Opener, "1-1", tournament.ErrInvalidResult},
	} {
		if got, err := tournament.RecordResult(recorded, tt.round, tt.id, tt.r); !errors.Is(err, tt.want) || got.Players != nil {
			t.Errorf("record %s: %v, want no state and %v", tt.name, err, tt.want)
		}
	}
	withdrawn, err := tournament.Leave(recorded, "a")
	if err != nil || !withdrawn.Players[0].Withdrawn || len(withdrawn.Players) != 3 || recorded.Players[0].Withdrawn {
		t.Fatalf("leave after the start: %+v, %v; want a withdrawn, still an entry, the old state unchanged", withdrawn.Players, err)
	}
	if _, err := tournament.Leave(withdrawn, "a"); !errors.Is(err, tournament.ErrWithdrawn) {
		t.Errorf("leave twice: %v, want ErrWithdrawn", err)
	}
	if after, _ := json.Marshal(s); string(after) != string(before) {
		t.Error("a refused change altered the state")
	}
}

// TestStateJSON checks a state survives encoding/json unchanged, as a
// store keeps it.
func TestStateJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 12))
	s := newTournament(t, tournament.Config{Format: tournament.Arena, Duration: 90 * time.Minute, Rated: true, Rows: 7, Columns: 8}, 6, rng)
	s.Started = start
	r, err := tournament.ArenaPair(s, []string{"p000", "p001", "p002", "p003"}, start.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	s = appendRound(t, s, r)
	s, _ = tournament.RecordResult(s, 1, r.Pairings[0].Opener, tournament.Draw)
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back tournament.State
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, s) {
		t.Errorf("after JSON:\n%+v\nwant\n%+v\n(%s)", back, s, b)
	}
}

// TestOver checks Over for each format.
func TestOver(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 13))
	rr := newTournament(t, tournament.Config{Format: tournament.RoundRobin}, 3, rng)
	if tournament.Over(rr, start) {
		t.Error("a round robin not started is over")
	}
	for r := 1; r <= 3; r++ {
		rr = appendRound(t, rr, mustNext(t, rr))
		if tournament.Over(rr, start) {
			t.Errorf("round robin over with round %d in progress", r)
		}
		rr = finishRound(t, rr, rng, 0)
		if got := tournament.Over(rr, start); got != (r == 3) {
			t.Errorf("round robin after round %d of 3: over %v", r, got)
		}
	}
}
