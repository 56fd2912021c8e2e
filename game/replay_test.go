package game_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/connectn/connectn/game"
)

// wholeMatch plays a match of several rounds with a line win, a draw, a
// forfeited round and a line longer than N, and ends it by a forfeit of the
// match.
func wholeMatch(t *testing.T) (game.Config, *game.Match) {
	t.Helper()
	cfg := game.Config{Rows: 3, Columns: 4, Connect: 3, Wins: 4, Openers: game.Alternate, FirstOpener: game.Player2}
	m := mustMatch(t, cfg)
	// Round 1, player 2 opens and wins vertically in column 0.
	play(t, m, 0, 1, 0, 1, 0)
	// Round 2, player 1 opens; a full board with no line:
	//   o x o x   (the last pass starts in column 1)
	//   x o x o
	//   x o x o
	play(t, m, 0, 1, 2, 3, 0, 1, 2, 3, 1, 0, 3, 2)
	// Round 3, player 2 opens, then forfeits the round.
	play(t, m, 2, 2)
	if err := m.ForfeitRound(game.Player2); err != nil {
		t.Fatal(err)
	}
	// Round 4, player 1 opens and joins x x . x into four in a row
	// (connect 3: all four cells are the line).
	play(t, m, 0, 0, 1, 1, 3, 3, 2)
	// Round 5, player 2 opens; player 1 forfeits the match.
	play(t, m, 1)
	if err := m.Forfeit(game.Player1); err != nil {
		t.Fatal(err)
	}
	return cfg, m
}

func TestWholeMatch(t *testing.T) {
	_, m := wholeMatch(t)
	rounds := m.Rounds()
	want := []struct {
		outcome game.Outcome
		winner  game.Player
		line    string
		board   string
	}{
		{game.Won, game.Player2, "0,0 1,0 2,0", "o...\nox..\nox..\n"},
		{game.Drawn, game.NoPlayer, "", "oxox\nxoxo\nxoxo\n"},
		{game.Forfeited, game.Player1, "", "....\n..x.\n..o.\n"},
		{game.Won, game.Player1, "0,0 0,1 0,2 0,3", "....\noo.o\nxxxx\n"},
		{game.Forfeited, game.Player2, "", "....\n....\n.o..\n"},
	}
	if len(rounds) != len(want) {
		t.Fatalf("%d rounds, want %d", len(rounds), len(want))
	}
	for i, w := range want {
		r := rounds[i]
		if r.Outcome() != w.outcome || r.Winner() != w.winner {
			t.Errorf("round %d: %v by %v, want %v by %v", i+1, r.Outcome(), r.Winner(), w.outcome, w.winner)
		}
		if got, want := r.Line(), cells(t, w.line); !reflect.DeepEqual(got, want) {
			t.Errorf("round %d: Line = %v, want %v", i+1, got, want)
		}
		if got := r.Board().String(); got != w.board {
			t.Errorf("round %d: board\n%s\nwant\n%s", i+1, got, w.board)
		}
	}
	if got, want := [3]int{m.Score(game.Player1), m.Score(game.Player2), m.Draws()}, [3]int{2, 2, 1}; got != want {
		t.Errorf("score 1, score 2, draws = %v, want %v", got, want)
	}
	if !m.Forfeited() || m.Winner() != game.Player2 {
		t.Errorf("Forfeited() = %v, Winner() = %v; want true, player 2", m.Forfeited(), m.Winner())
	}
}

func TestReplayRebuildsTheMatch(t *testing.T) {
	cfg, m := wholeMatch(t)
	for _, c := range []struct {
		name string
		cfg  game.Config
	}{
		{name: "original config", cfg: cfg},
		{name: "config from the match", cfg: m.Config()},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := game.Replay(c.cfg, m.Actions())
			if err != nil {
				t.Fatal(err)
			}
			if gs, ws := snap(got), snap(m); !reflect.DeepEqual(gs, ws) {
				t.Errorf("replayed match differs:\n%+v\nwant\n%+v", gs, ws)
			}
			if !reflect.DeepEqual(got, m) {
				t.Errorf("replayed match differs in its internal state")
			}
		})
	}

	// Every prefix replays to the state the match had at that point.
	actions := m.Actions()
	live := mustMatch(t, cfg)
	for i := 0; i <= len(actions); i++ {
		got, err := game.Replay(cfg, actions[:i])
		if err != nil {
			t.Fatalf("prefix %d: %v", i, err)
		}
		if !reflect.DeepEqual(snap(got), snap(live)) {
			t.Fatalf("prefix %d: replay differs from the live match", i)
		}
		if i < len(actions) {
			if err := live.Apply(actions[i]); err != nil {
				t.Fatalf("Apply(%v): %v", actions[i], err)
			}
		}
	}
}

func TestJSONRoundTrip(t *testing.T) {
	cfg, m := wholeMatch(t)
	actions := m.Actions()

	data, err := json.Marshal(actions)
	if err != nil {
		t.Fatal(err)
	}
	var gotActions []game.Action
	if err := json.Unmarshal(data, &gotActions); err != nil {
		t.Fatalf("Unmarshal(%s): %v", data, err)
	}
	if !reflect.DeepEqual(gotActions, actions) {
		t.Errorf("actions after JSON = %v, want %v", gotActions, actions)
	}

	data, err = json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var gotCfg game.Config
	if err := json.Unmarshal(data, &gotCfg); err != nil {
		t.Fatalf("Unmarshal(%s): %v", data, err)
	}
	if gotCfg != cfg {
		t.Errorf("config after JSON = %+v, want %+v", gotCfg, cfg)
	}

	replayed, err := game.Replay(gotCfg, gotActions)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(snap(replayed), snap(m)) {
		t.Errorf("match replayed from JSON differs")
	}
}

func TestActionJSON(t *testing.T) {
	tests := []struct {
		name   string
		action game.Action
		json   string
	}{
		{name: "drop", action: game.Action{Kind: game.Drop, Player: game.Player1, Column: 3}, json: `{"kind":"drop","player":1,"column":3}`},
		{name: "drop in column 0", action: game.Action{Kind: game.Drop, Player: game.Player2}, json: `{"kind":"drop","player":2}`},
		{name: "forfeit round", action: game.Action{Kind: game.ForfeitRound, Player: game.Player2}, json: `{"kind":"forfeit-round","player":2}`},
		{name: "forfeit match", action: game.Action{Kind: game.ForfeitMatch, Player: game.Player1}, json: `{"kind":"forfeit-match","player":1}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := json.Marshal(tt.action)
			if err != nil {
				t.Fatal(err)
			}
			if got := string(data); got != tt.json {
				t.Errorf("Marshal = %s, want %s", got, tt.json)
			}
			var got game.Action
			if err := json.Unmarshal([]byte(tt.json), &got); err != nil {
				t.Fatal(err)
			}
			if got != tt.action {
				t.Errorf("Unmarshal = %+v, want %+v", got, tt.action)
			}
		})
	}

	t.Run("unknown kind", func(t *testing.T) {
		var a game.Action
		err := json.Unmarshal([]byte(`{"kind":"resign","player":1}`), &a)
		if !errors.Is(err, game.ErrInvalidAction) {
			t.Errorf("Unmarshal = %v, want ErrInvalidAction", err)
		}
		if _, err := json.Marshal(game.Action{Kind: 9, Player: game.Player1}); !errors.Is(err, game.ErrInvalidAction) {
			t.Errorf("Marshal of kind 9 = %v, want ErrInvalidAction", err)
		}
	})
}

func TestReplayErrors(t *testing.T) {
	p1, p2 := game.Player1, game.Player2
	drop := func(p game.Player, c int) game.Action { return game.Action{Kind: game.Drop, Player: p, Column: c} }
	cfg := game.Config{Rows: 2, Columns: 3, Connect: 3, Wins: 1}
	tests := []struct {
		name      string
		cfg       game.Config
		actions   []game.Action
		wantErr   error
		wantIndex string
	}{
		{name: "bad config", cfg: game.Config{Rows: 0, Columns: 3, Connect: 3, Wins: 1}, wantErr: game.ErrInvalidConfig},
		{name: "wrong opener", cfg: cfg, actions: []game.Action{drop(p2, 0)}, wantErr: game.ErrNotYourTurn, wantIndex: "action 0"},
		{name: "same player twice", cfg: cfg, actions: []game.Action{drop(p1, 0), drop(p2, 1), drop(p2, 1)}, wantErr: game.ErrNotYourTurn, wantIndex: "action 2"},
		{name: "full column", cfg: cfg, actions: []game.Action{drop(p1, 0), drop(p2, 0), drop(p1, 0)}, wantErr: game.ErrColumnFull, wantIndex: "action 2"},
		{name: "column out of range", cfg: cfg, actions: []game.Action{drop(p1, 0), drop(p2, 3)}, wantErr: game.ErrColumnOutOfRange, wantIndex: "action 1"},
		{name: "no player", cfg: cfg, actions: []game.Action{{Kind: game.ForfeitRound}}, wantErr: game.ErrInvalidPlayer, wantIndex: "action 0"},
		{name: "unknown kind", cfg: cfg, actions: []game.Action{drop(p1, 0), {Kind: 3, Player: p2}}, wantErr: game.ErrInvalidAction, wantIndex: "action 1"},
		{
			name: "after the end", cfg: cfg,
			actions: []game.Action{drop(p1, 0), drop(p2, 0), drop(p1, 1), drop(p2, 1), drop(p1, 2), drop(p2, 2)},
			wantErr: game.ErrMatchOver, wantIndex: "action 5",
		},
		{
			name: "after a forfeit", cfg: cfg,
			actions: []game.Action{{Kind: game.ForfeitMatch, Player: p2}, {Kind: game.ForfeitRound, Player: p1}},
			wantErr: game.ErrMatchOver, wantIndex: "action 1",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := game.Replay(tt.cfg, tt.actions)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Replay error = %v, want %v", err, tt.wantErr)
			}
			if m != nil {
				t.Errorf("Replay returned a match with its error")
			}
			if !strings.Contains(err.Error(), tt.wantIndex) {
				t.Errorf("Replay error = %q, want it to name %q", err, tt.wantIndex)
			}
		})
	}
}

func TestConfigJSONFormat(t *testing.T) {
	tests := []struct {
		name string
		cfg  game.Config
		json string
	}{
		{"alternate", game.Config{Rows: 6, Columns: 7, Connect: 4, Wins: 2, Openers: game.Alternate, FirstOpener: game.Player1},
			`{"rows":6,"columns":7,"connect":4,"wins":2,"openers":"alternate","first_opener":1}`},
		{"always first", game.Config{Rows: 5, Columns: 8, Connect: 4, Wins: 1, Openers: game.AlwaysFirst, FirstOpener: game.Player2},
			`{"rows":5,"columns":8,"connect":4,"wins":1,"openers":"first","first_opener":2}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := json.Marshal(tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			if got := string(data); got != tt.json {
				t.Errorf("Marshal = %s, want %s", got, tt.json)
			}
			var got game.Config
			if err := json.Unmarshal([]byte(tt.json), &got); err != nil {
				t.Fatal(err)
			}
			if got != tt.cfg {
				t.Errorf("Unmarshal = %+v, want %+v", got, tt.cfg)
			}
		})
	}
	var c game.Config
	if err := json.Unmarshal([]byte(`{"openers":"sometimes"}`), &c); !errors.Is(err, game.ErrInvalidConfig) {
		t.Errorf("unknown policy: got %v, want ErrInvalidConfig", err)
	}
	if _, err := json.Marshal(game.Config{Openers: 7}); !errors.Is(err, game.ErrInvalidConfig) {
		t.Errorf("marshal policy 7: got %v, want ErrInvalidConfig", err)
	}
}
