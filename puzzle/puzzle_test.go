package puzzle

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/connectn/connectn/game"
)

// std is the standard board.
var std = Normalize(game.Config{Rows: 6, Columns: 7, Connect: 4})

func TestFormatParseRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		p    Puzzle
		line string
	}{
		{
			name: "generated win",
			p:    Puzzle{Config: std, Moves: "4453", Kind: WinIn, N: 5, Solution: 2, Source: Source{Kind: Generated, Seed: 7}},
			line: "6x7c4 4453 win5 3 gen:7",
		},
		{
			name: "empty board only move",
			p:    Puzzle{Config: Normalize(game.Config{Rows: 4, Columns: 5, Connect: 3}), Kind: OnlyMove, Solution: 2, Source: Source{Kind: Generated, Seed: 1}},
			line: "4x5c3 - only 3 gen:1",
		},
		{
			name: "from a match, names with spaces and quotes",
			p: Puzzle{Config: std, Moves: "44", Kind: Defence, N: 9, Solution: 6, Source: Source{Kind: FromMatch, Guild: "81234",
				Match: 42, Players: [2]string{`Alice "the Red"`, "Bob B"}, Mover: game.Player2, Round: 2, Move: 3}},
			line: `6x7c4 44 defence9 7 match 81234 42 2 3 2 "Alice \"the Red\"" "Bob B"`,
		},
		{
			name: "from a match in DMs",
			p: Puzzle{Config: std, Moves: "1", Kind: WinIn, N: 12, Solution: 3, Source: Source{Kind: FromMatch,
				Match: 1, Players: [2]string{"a", "b"}, Mover: game.Player1, Round: 1, Move: 2}},
			line: `6x7c4 1 win12 4 match - 1 1 2 1 "a" "b"`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.p.Format(); got != tt.line {
				t.Fatalf("Format() = %q, want %q", got, tt.line)
			}
			got, err := Parse(tt.line)
			if err != nil {
				t.Fatal(err)
			}
			moves, _ := tt.p.MoveList()
			want := tt.p
			want.ID, want.Rating = MakeID(want.Config, moves), InitialRating(want.Kind, want.N)
			if got != want {
				t.Errorf("Parse = %+v, want %+v", got, want)
			}
		})
	}
}

func TestParseRefuses(t *testing.T) {
	tests := []struct {
		name, line, want string
	}{
		{name: "too few fields", line: "6x7c4 44 win5 3", want: "5 fields"},
		{name: "bad board", line: "6x7 44 win5 3 gen:1", want: "board"},
		{name: "board too large", line: "8x8c4 44 win5 3 gen:1", want: "too large"},
		{name: "connect too long", line: "6x7c9 44 win5 3 gen:1", want: "board"},
		{name: "not a column", line: "6x7c4 48 win5 3 gen:1", want: "not a column"},
		{name: "full column", line: "6x7c4 1111111 win5 3 gen:1", want: "full"},
		{name: "round over", line: "6x7c4 1212121 win5 3 gen:1", want: "over"},
		{name: "unknown task", line: "6x7c4 44 mate5 3 gen:1", want: "unknown task"},
		{name: "win without n", line: "6x7c4 44 win 3 gen:1", want: "no number"},
		{name: "win in 1", line: "6x7c4 44 win1 3 gen:1", want: "out of"},
		{name: "win in 13", line: "6x7c4 44 win13 3 gen:1", want: "out of"},
		{name: "defence 0", line: "6x7c4 44 defence0 3 gen:1", want: "defence"},
		{name: "solution off the board", line: "6x7c4 44 win5 9 gen:1", want: "solution"},
		{name: "solution in a full column", line: "6x7c4 444444 win5 4 gen:1", want: "solution"},
		{name: "unknown source", line: "6x7c4 44 win5 3 book", want: "source"},
		{name: "bad seed", line: "6x7c4 44 win5 3 gen:x", want: "seed"},
		{name: "match without names", line: "6x7c4 44 win5 3 match 1 2 3 4 1", want: "source"},
		{name: "match mover 3", line: `6x7c4 44 win5 3 match 1 2 3 4 3 "a" "b"`, want: "numbers"},
		{name: "match text after names", line: `6x7c4 44 win5 3 match 1 2 3 4 1 "a" "b" c`, want: "after the names"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(tt.line)
			if !errors.Is(err, ErrInvalidPuzzle) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Parse(%q) = %v, want ErrInvalidPuzzle saying %q", tt.line, err, tt.want)
			}
		})
	}
}

func TestRead(t *testing.T) {
	ps, err := Read(strings.NewReader("# made by hand\n\n6x7c4 4453 win5 3 gen:7\r\n6x7c4 44 only 3 gen:7\n"))
	if err != nil || len(ps) != 2 || ps[1].Kind != OnlyMove {
		t.Fatalf("Read = %+v, %v", ps, err)
	}
	_, err = Read(strings.NewReader("6x7c4 4453 win5 3 gen:7\n6x7c4 44 win1 3 gen:7\n"))
	if !errors.Is(err, ErrInvalidPuzzle) || !strings.HasPrefix(err.Error(), "line 2: ") {
		t.Errorf("Read of a bad second line = %v, want line 2 and ErrInvalidPuzzle", err)
	}
}

func TestMakeID(t *testing.T) {
	id := MakeID(std, []int{3, 3, 2, 4})
	if len(id) != 10 || strings.Trim(id, "abcdefghijklmnopqrstuvwxyz234567") != "" {
		t.Fatalf("ID %q is not 10 characters of [a-z2-7]", id)
	}
	tests := []struct {
		name  string
		cfg   game.Config
		moves []int
		same  bool
	}{
		{name: "the same moves", cfg: std, moves: []int{3, 3, 2, 4}, same: true},
		{name: "another order to the same position", cfg: std, moves: []int{2, 4, 3, 3}, same: true},
		{name: "the mirror image", cfg: std, moves: []int{3, 3, 4, 2}},
		{name: "the discs swapped", cfg: std, moves: []int{3, 3, 4, 2, 6}},
		{name: "another connect", cfg: Normalize(game.Config{Rows: 6, Columns: 7, Connect: 5}), moves: []int{3, 3, 2, 4}},
		{name: "another board", cfg: Normalize(game.Config{Rows: 7, Columns: 7, Connect: 4}), moves: []int{3, 3, 2, 4}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := MakeID(tt.cfg, tt.moves); (got == id) != tt.same {
				t.Errorf("MakeID = %q, first %q: same %v, want %v", got, id, got == id, tt.same)
			}
		})
	}
}

func TestHint(t *testing.T) {
	tests := []struct {
		name        string
		columns, c  int
		area        Area
		first, last int
	}{
		{name: "7 columns, column 1", columns: 7, c: 0, area: Left, first: 0, last: 1},
		{name: "7 columns, column 2", columns: 7, c: 1, area: Left, first: 0, last: 1},
		{name: "7 columns, column 3", columns: 7, c: 2, area: Centre, first: 2, last: 4},
		{name: "7 columns, column 5", columns: 7, c: 4, area: Centre, first: 2, last: 4},
		{name: "7 columns, column 6", columns: 7, c: 5, area: Right, first: 5, last: 6},
		{name: "6 columns, column 4", columns: 6, c: 3, area: Centre, first: 2, last: 3},
		{name: "6 columns, column 5", columns: 6, c: 4, area: Right, first: 4, last: 5},
		{name: "8 columns, column 6", columns: 8, c: 5, area: Centre, first: 2, last: 5},
		{name: "2 columns", columns: 2, c: 1, area: Centre, first: 0, last: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := HintFor(tt.columns, tt.c)
			if got != (Hint{Area: tt.area, First: tt.first, Last: tt.last}) {
				t.Errorf("HintFor(%d, %d) = %+v, want %v %d-%d", tt.columns, tt.c, got, tt.area, tt.first, tt.last)
			}
			if tt.c < got.First || tt.c > got.Last {
				t.Errorf("column %d outside its area %+v", tt.c, got)
			}
		})
	}
}

func TestThemes(t *testing.T) {
	tests := []struct {
		name string
		p    Puzzle
		want []Theme
	}{
		{name: "win", p: Puzzle{Config: std, Kind: WinIn, N: 7}, want: []Theme{"win-in-7", "board-6x7"}},
		{name: "only move", p: Puzzle{Config: std, Kind: OnlyMove}, want: []Theme{"only-move", "board-6x7"}},
		{name: "defence", p: Puzzle{Config: Normalize(game.Config{Rows: 8, Columns: 7, Connect: 4}), Kind: Defence, N: 3},
			want: []Theme{"defence", "board-8x7"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.p.Themes(); !slices.Equal(got, tt.want) {
				t.Errorf("Themes() = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestToMoveAndLength(t *testing.T) {
	p := Puzzle{Config: std, Moves: "445", Kind: WinIn, N: 4}
	if p.ToMove() != game.Player2 || p.Length() != 4 {
		t.Errorf("ToMove %v, Length %d; want player 2 and 4", p.ToMove(), p.Length())
	}
	p = Puzzle{Config: std, Moves: "44", Kind: Defence, N: 9}
	if p.ToMove() != game.Player1 || p.Length() != 1 {
		t.Errorf("ToMove %v, Length %d; want player 1 and 1", p.ToMove(), p.Length())
	}
}

func TestNames(t *testing.T) {
	tests := []struct {
		name      string
		got, want string
	}{
		{name: "kind", got: Defence.String(), want: "defence"},
		{name: "unknown kind", got: Kind(0).String(), want: "Kind(0)"},
		{name: "area", got: Centre.String(), want: "centre"},
		{name: "unknown area", got: Area(4).String(), want: "Area(4)"},
		{name: "verdict", got: Wrong.String(), want: "wrong"},
		{name: "unknown verdict", got: Verdict(9).String(), want: "Verdict(9)"},
		{name: "reason", got: ReasonForced.String(), want: "forced move"},
		{name: "unknown reason", got: Reason(0).String(), want: "Reason(0)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("got %q, want %q", tt.got, tt.want)
			}
		})
	}
}
