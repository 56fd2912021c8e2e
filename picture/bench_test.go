package picture

import (
	"io"
	"testing"

	"github.com/connectn/connectn/game"
)

// longChart is a 42-ply chart on a 6 × 7 board with every kind of mark:
// draws, wins both ways, an unsettled stretch and three mistakes.
func longChart() EvalChart {
	c := sampleChart()
	c.Plies = make([]Verdict, 42)
	for i := range c.Plies {
		switch {
		case i < 10:
			c.Plies[i] = Verdict{Settled: true}
		case i < 14:
			c.Plies[i] = Verdict{}
		case i < 20:
			c.Plies[i] = Verdict{Settled: true, Winner: game.Player2, Distance: 30 - i}
		default:
			c.Plies[i] = Verdict{Settled: true, Winner: game.Player1, Distance: 41 - i}
		}
	}
	c.Mistakes = []Mistake{{Ply: 9, Label: "1"}, {Ply: 19, Label: "2"}, {Ply: 30, Label: "3"}}
	return c
}

func BenchmarkDrawEvalChart(b *testing.B) {
	c := longChart()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DrawEvalChart(c); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncodeEvalChart(b *testing.B) {
	c := longChart()
	b.ReportAllocs()
	for b.Loop() {
		if err := EncodeEvalChart(io.Discard, c); err != nil {
			b.Fatal(err)
		}
	}
}

// benchCard returns a result card of a rows × columns board with a few
// discs.
func benchCard(b *testing.B, rows, columns int) Card {
	b.Helper()
	m, err := game.NewMatch(game.Config{Rows: rows, Columns: columns, Connect: 4, Wins: 1})
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []int{2, 3, 2, 4, 2, 5, 2} {
		if _, err := m.Play(m.ToMove(), c); err != nil {
			b.Fatal(err)
		}
	}
	return Card{
		Round: m.Round(), Style: ColorBlind, Winner: game.Player1,
		Players: [3]CardPlayer{{}, {Name: "Alice", Score: 2, Rating: "+12"}, {Name: "Bob", Score: 1, Rating: "−12"}},
		Title:   "Connect 4", Date: "29 November 2025",
	}
}

func BenchmarkDrawCard(b *testing.B) {
	for _, size := range []struct {
		name          string
		rows, columns int
	}{{"6x7", 6, 7}, {"12x12", 12, 12}} {
		b.Run(size.name, func(b *testing.B) {
			c := benchCard(b, size.rows, size.columns)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := DrawCard(c); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkEncodeCard(b *testing.B) {
	c := benchCard(b, 6, 7)
	b.ReportAllocs()
	for b.Loop() {
		if err := EncodeCard(io.Discard, c); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEncodeBoard is the board picture the bot sends today (Encode
// at scale 2), for comparison.
func BenchmarkEncodeBoard(b *testing.B) {
	c := benchCard(b, 6, 7)
	b.ReportAllocs()
	for b.Loop() {
		if err := Encode(io.Discard, c.Round, Classic, 2); err != nil {
			b.Fatal(err)
		}
	}
}
