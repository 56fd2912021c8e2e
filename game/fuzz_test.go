package game_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/connectn/connectn/game"
)

// maxFuzzActions bounds the actions read from one fuzz input.
const maxFuzzActions = 512

// fuzzConfig reads a configuration from the first 6 bytes of data, with
// small sizes (so the fuzzer stays fast) that include invalid values: rows
// and columns -1..13, connect -1..8, wins -1..3, an unknown opener policy
// and unknown first openers.
func fuzzConfig(data []byte) (game.Config, []byte) {
	var h [6]byte
	n := copy(h[:], data)
	return game.Config{
		Rows:        int(h[0]%15) - 1,
		Columns:     int(h[1]%15) - 1,
		Connect:     int(h[2]%10) - 1,
		Wins:        int(h[3]%5) - 1,
		Openers:     game.OpenerPolicy(h[4] % 3),
		FirstOpener: game.Player(h[5] % 4),
	}, data[n:]
}

// fuzzAction reads one action from b. Most bytes drop a disc for the player
// to move (so games get deep), in a column from -1 to 14; the rest act out
// of turn, forfeit, or use an unknown player or kind.
func fuzzAction(b byte, toMove game.Player) game.Action {
	if !toMove.Valid() {
		toMove = game.Player1
	}
	column := int(b&15) - 1
	switch sel := b >> 5; {
	case sel <= 4:
		return game.Action{Kind: game.Drop, Player: toMove, Column: column}
	case sel == 5:
		return game.Action{Kind: game.Drop, Player: toMove.Other(), Column: column}
	case sel == 6:
		return game.Action{Kind: game.ForfeitRound, Player: game.Player(1 + b>>4&1)}
	case b&16 != 0:
		return game.Action{Kind: game.ForfeitMatch, Player: game.Player(1 + b&1)}
	}
	switch b & 3 {
	case 0:
		return game.Action{Kind: game.ActionKind(3 + b>>2&3), Player: toMove}
	case 1:
		return game.Action{Kind: game.Drop, Player: game.NoPlayer, Column: column}
	case 2:
		return game.Action{Kind: game.Drop, Player: game.Player(3 + b>>2&3), Column: column}
	default:
		return game.Action{Kind: game.ForfeitRound, Player: game.NoPlayer}
	}
}

func fuzzSeeds(f *testing.F) {
	f.Helper()
	// 6x7 connect 4, 2 wins (header bytes 7, 8, 5, 3, 0, 1), then drops
	// in columns 0 1 0 1 0 1 0 (byte c+1 drops in column c).
	f.Add([]byte{7, 8, 5, 3, 0, 1, 1, 2, 1, 2, 1, 2, 1, 1, 2, 3, 4, 5, 6, 7})
	// 2x3 connect 3: a draw, then a won round.
	f.Add([]byte{3, 4, 4, 2, 0, 1, 1, 2, 3, 1, 2, 3, 1, 1, 2, 2, 3})
	// 1x1 connect 1, always first, player 2 opens.
	f.Add([]byte{2, 2, 2, 2, 1, 2, 1, 1, 1})
	// Invalid configurations: zero rows, connect too long, no wins, bad
	// policy, bad first opener.
	f.Add([]byte{1, 8, 5, 2, 0, 0, 1})
	f.Add([]byte{3, 3, 9, 2, 0, 0, 1})
	f.Add([]byte{7, 8, 5, 1, 0, 0, 1})
	f.Add([]byte{7, 8, 5, 2, 2, 0, 1})
	f.Add([]byte{7, 8, 5, 2, 0, 3, 1})
	// Illegal actions: out of range, out of turn, forfeits, bad kinds and
	// players, full column (1x3: column 0 twice).
	f.Add([]byte{7, 8, 5, 2, 0, 1, 0, 15, 0xa1, 0xc0, 0xd0, 0xf0, 0xf1, 0xe0, 0xe1, 0xe2, 0xe3, 0xe6})
	f.Add([]byte{3, 5, 3, 2, 0, 1, 1, 1, 1, 2, 3})
	f.Add([]byte{})
	f.Add([]byte{13, 13, 8, 3, 1, 2})
}

// FuzzReplay builds a configuration and an action list from arbitrary
// bytes, applies the actions one by one, and checks that nothing panics,
// that every error wraps a sentinel and changes nothing, and that replaying
// (the legal actions, or the raw list) is deterministic.
func FuzzReplay(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, rest := fuzzConfig(data)
		if len(rest) > maxFuzzActions {
			rest = rest[:maxFuzzActions]
		}
		m, err := game.NewMatch(cfg)
		validCfg := cfg.Rows >= 1 && cfg.Columns >= 1 && cfg.Connect >= 1 &&
			(cfg.Connect <= cfg.Rows || cfg.Connect <= cfg.Columns) && cfg.Wins >= 1 &&
			cfg.Openers <= game.AlwaysFirst && cfg.FirstOpener <= game.Player2
		if !validCfg {
			if !errors.Is(err, game.ErrInvalidConfig) || m != nil {
				t.Fatalf("NewMatch(%+v) = %v, %v; want ErrInvalidConfig", cfg, m, err)
			}
			if _, err := game.Replay(cfg, nil); !errors.Is(err, game.ErrInvalidConfig) {
				t.Fatalf("Replay(%+v) = %v; want ErrInvalidConfig", cfg, err)
			}
			return
		}
		if err != nil {
			t.Fatalf("NewMatch(%+v): %v", cfg, err)
		}

		var raw []game.Action // every action tried, legal or not
		firstBad, firstErr := -1, error(nil)
		for _, b := range rest {
			a := fuzzAction(b, m.ToMove())
			raw = append(raw, a)
			plies, board := m.Plies(), m.Round().Board().String()
			rounds, winner := len(m.Rounds()), m.Winner()
			err := m.Apply(a)
			if err == nil {
				if m.Plies() != plies+1 {
					t.Fatalf("Apply(%v): Plies() = %d, want %d", a, m.Plies(), plies+1)
				}
				continue
			}
			if !isSentinel(err) {
				t.Fatalf("Apply(%v) = %v, not a sentinel", a, err)
			}
			if m.Plies() != plies || m.Round().Board().String() != board || len(m.Rounds()) != rounds || m.Winner() != winner {
				t.Fatalf("Apply(%v) = %v and changed the match", a, err)
			}
			if firstBad < 0 {
				firstBad, firstErr = len(raw)-1, err
			}
		}
		checkInvariants(t, m)

		// The legal actions rebuild the match exactly, every time.
		for range 2 {
			again, err := game.Replay(cfg, m.Actions())
			if err != nil {
				t.Fatalf("Replay of the legal actions: %v", err)
			}
			if !reflect.DeepEqual(again, m) {
				t.Fatalf("Replay of the legal actions differs from the match")
			}
		}

		// The raw list replays up to its first illegal action, which fails
		// with the same sentinel and names its index.
		got, err := game.Replay(cfg, raw)
		if firstBad < 0 {
			if err != nil || !reflect.DeepEqual(got, m) {
				t.Fatalf("Replay of an all-legal list = %v", err)
			}
			return
		}
		if got != nil || !isSentinel(err) {
			t.Fatalf("Replay of a list with an illegal action %d = %v, %v", firstBad, got, err)
		}
		for _, s := range sentinels {
			if errors.Is(firstErr, s) && !errors.Is(err, s) {
				t.Fatalf("Replay error %v, want %v", err, s)
			}
		}
		if want := "action " + strconv.Itoa(firstBad) + " "; !strings.Contains(err.Error(), want) {
			t.Fatalf("Replay error %q does not name %q", err, want)
		}
		prefix, err := game.Replay(cfg, raw[:firstBad])
		if err != nil {
			t.Fatalf("Replay of the legal prefix: %v", err)
		}
		if !slices.Equal(prefix.Actions(), m.Actions()[:prefix.Plies()]) {
			t.Fatalf("legal prefix diverges from the match:\n%v\n%v", prefix.Actions(), m.Actions())
		}
	})
}

// checkInvariants checks what must hold in any reachable match.
func checkInvariants(t *testing.T, m *game.Match) {
	t.Helper()
	cfg := m.Config()
	wins := [3]int{}
	draws := 0
	for i, r := range m.Rounds() {
		if r.Number() != i+1 || r.Opener() != cfg.OpenerOf(r.Number()) {
			t.Fatalf("round %d: number %d, opener %v", i+1, r.Number(), r.Opener())
		}
		if r.Board().Discs() != len(r.Moves()) {
			t.Fatalf("round %d: %d discs for %d moves", r.Number(), r.Board().Discs(), len(r.Moves()))
		}
		longest := [3]int{0, r.Board().LongestRun(game.Player1), r.Board().LongestRun(game.Player2)}
		switch r.Outcome() {
		case game.Won:
			wins[r.Winner()]++
			if len(r.Line()) < cfg.Connect || longest[r.Winner()] < cfg.Connect || longest[r.Winner().Other()] >= cfg.Connect {
				t.Fatalf("round %d: won with line %v, longest runs %v", r.Number(), r.Line(), longest)
			}
			for _, c := range r.Line() {
				if r.Board().At(c.Row, c.Column) != r.Winner() {
					t.Fatalf("round %d: line cell %v is not the winner's", r.Number(), c)
				}
			}
		case game.Drawn:
			draws++
			if !r.Board().Full() || r.Line() != nil || longest[1] >= cfg.Connect || longest[2] >= cfg.Connect {
				t.Fatalf("round %d: drawn but full %v, line %v, longest %v", r.Number(), r.Board().Full(), r.Line(), longest)
			}
		case game.Forfeited:
			wins[r.Winner()]++
			fallthrough
		case game.InProgress:
			if r.Line() != nil || longest[1] >= cfg.Connect || longest[2] >= cfg.Connect {
				t.Fatalf("round %d: %v with line %v, longest %v", r.Number(), r.Outcome(), r.Line(), longest)
			}
		}
		if i < len(m.Rounds())-1 && !r.Over() {
			t.Fatalf("round %d is not the last and not over", r.Number())
		}
	}
	if wins[1] != m.Score(game.Player1) || wins[2] != m.Score(game.Player2) || draws != m.Draws() {
		t.Fatalf("score %d-%d, %d draws; rounds say %v, %d", m.Score(game.Player1), m.Score(game.Player2), m.Draws(), wins, draws)
	}
	if m.Over() != m.Round().Over() {
		t.Fatalf("match over %v, last round over %v", m.Over(), m.Round().Over())
	}
	if m.Over() && !m.Forfeited() && m.Score(m.Winner()) != cfg.Wins {
		t.Fatalf("winner has %d round wins, want %d", m.Score(m.Winner()), cfg.Wins)
	}
}

// FuzzParseBoard reads arbitrary pictures: errors wrap ErrInvalidBoard, and
// a board that parses prints back to a picture that parses to the same
// board.
func FuzzParseBoard(f *testing.F) {
	f.Add(".......\n.......\n...o...\n..xx...\n.oxo...\n.xoxo..")
	f.Add("X")
	f.Add(" . O .\n X x o ")
	f.Add("x..\n.x.")
	f.Add("xy")
	f.Add("...\n..")
	f.Add("")
	f.Fuzz(func(t *testing.T, picture string) {
		if len(picture) > 4096 {
			return
		}
		b, err := game.ParseBoard(picture)
		if err != nil {
			if !errors.Is(err, game.ErrInvalidBoard) || b != nil {
				t.Fatalf("ParseBoard = %v, %v; want nil and ErrInvalidBoard", b, err)
			}
			return
		}
		again, err := game.ParseBoard(b.String())
		if err != nil {
			t.Fatalf("ParseBoard(String()) = %v\n%s", err, b)
		}
		if !reflect.DeepEqual(again, b) {
			t.Fatalf("round trip differs:\n%s\n%s", b, again)
		}
		for _, p := range []game.Player{game.Player1, game.Player2} {
			if n := b.LongestRun(p); n < 0 || n > max(b.Rows(), b.Columns()) {
				t.Fatalf("LongestRun(%v) = %d on a %dx%d board", p, n, b.Rows(), b.Columns())
			}
		}
		for c := range b.Columns() {
			if h := b.Height(c); h > 0 {
				for _, cell := range b.LinesThrough(h-1, c, 1) {
					if b.At(cell.Row, cell.Column) != b.At(h-1, c) {
						t.Fatalf("LinesThrough(%d, %d, 1) holds %v of another player", h-1, c, cell)
					}
				}
			}
		}
	})
}

// FuzzActionsJSON decodes an arbitrary JSON action list: when it decodes,
// replaying it on the default board either works (and replays again to the
// same match) or fails with a sentinel.
func FuzzActionsJSON(f *testing.F) {
	f.Add(`[{"kind":"drop","player":1,"column":3},{"kind":"drop","player":2}]`)
	f.Add(`[{"kind":"forfeit-round","player":2},{"kind":"forfeit-match","player":1}]`)
	f.Add(`[{"kind":"drop","player":2,"column":-1}]`)
	f.Add(`[{"kind":"resign","player":1}]`)
	f.Add(`[{"kind":"drop","player":7,"column":99}]`)
	f.Fuzz(func(t *testing.T, data string) {
		var actions []game.Action
		if err := json.Unmarshal([]byte(data), &actions); err != nil || len(actions) > maxFuzzActions {
			return
		}
		m, err := game.Replay(game.DefaultConfig(), actions)
		if err != nil {
			if !isSentinel(err) {
				t.Fatalf("Replay = %v, not a sentinel", err)
			}
			return
		}
		again, err := game.Replay(game.DefaultConfig(), m.Actions())
		if err != nil || !reflect.DeepEqual(again, m) {
			t.Fatalf("second Replay = %v, or differs", err)
		}
	})
}
