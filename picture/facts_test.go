package picture

import (
	"reflect"
	"testing"

	"github.com/connectn/connectn/game"
)

func TestDescribe(t *testing.T) {
	cfg := game.Config{Rows: 6, Columns: 7, Connect: 4, Wins: 1}
	for _, tc := range []struct {
		name string
		r    *game.Round
		want BoardFacts
	}{
		{"empty board", playRound(t, cfg), BoardFacts{Rows: 6, Columns: 7, Outcome: game.InProgress, ToMove: game.Player1, Line: []game.Cell{}}},
		{"under way", playRound(t, cfg, 3, 4), BoardFacts{
			Rows: 6, Columns: 7, Discs: [3]int{0, 1, 1}, Outcome: game.InProgress, Line: []game.Cell{},
			Last: game.Cell{Row: 0, Column: 4}, LastPlayer: game.Player2, HasLast: true, ToMove: game.Player1,
		}},
		{"won", wonRound(t), BoardFacts{
			Rows: 6, Columns: 7, Discs: [3]int{0, 4, 3}, Outcome: wonRound(t).Outcome(), Winner: game.Player1,
			Line: []game.Cell{{Row: 0, Column: 2}, {Row: 1, Column: 2}, {Row: 2, Column: 2}, {Row: 3, Column: 2}},
			Last: game.Cell{Row: 3, Column: 2}, LastPlayer: game.Player1, HasLast: true,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Describe(tc.r)
			if len(got.Line) == 0 {
				got.Line = []game.Cell{}
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestEvalChartFacts(t *testing.T) {
	c := sampleChart()
	c.Plies[0].Settled, c.Plies[1].Settled = false, false
	c.Mistakes = []Mistake{{Ply: 6, Label: "2"}, {Ply: 3, Label: "1"}}
	got := c.Facts()
	want := ChartFacts{
		Plies: 13, Settled: 10,
		Unsettled: [][2]int{{0, 1}, {4, 4}},
		First:     c.Plies[2], FirstPly: 2,
		Last: c.Plies[12], LastPly: 12,
		Mistakes: []Mistake{{Ply: 3, Label: "1"}, {Ply: 6, Label: "2"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
	none := EvalChart{Plies: []Verdict{{}, {}}}.Facts()
	if none.FirstPly != -1 || none.LastPly != -1 || none.Settled != 0 || !reflect.DeepEqual(none.Unsettled, [][2]int{{0, 1}}) {
		t.Errorf("nothing settled: %+v", none)
	}
}

func TestCardFacts(t *testing.T) {
	c := sampleCard(t, Forest)
	c.Players[2].Name = "ボブ"
	got := c.Facts()
	if got.Board.Winner != game.Player1 || len(got.Board.Line) != 4 || got.Winner != game.Player1 ||
		got.Names != [3]string{"", "Alice", "Player 2"} || got.Score != [3]int{0, 2, 1} || !got.Rated {
		t.Errorf("facts %+v", got)
	}
}
