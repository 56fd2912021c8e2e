package picture

import (
	"bytes"
	"errors"
	"image"
	"image/png"
	"os"
	"testing"
)

// sampleCrosstable is a round robin of five: the winner beat everyone but
// drew with the second; one game was won by forfeit; one name cannot be
// drawn (Japanese).
func sampleCrosstable() Crosstable {
	return Crosstable{
		Title:       "Friday Cup · final crosstable",
		PointsLabel: "Pts",
		Players: []CrosstableRow{
			{Name: "Alice", Points: "3½"}, {Name: "Bob", Points: "3"}, {Name: "Зоя", Points: "2"},
			{Name: "さくら", Points: "1½"}, {Name: "Dan", Points: "0"},
		},
		Cells: [][]string{
			{"", "½", "1", "1", "1"},
			{"½", "", "½", "1", "1"},
			{"0", "½", "", "½", "1"},
			{"0", "0", "½", "", "+"},
			{"0", "0", "0", "−", ""},
		},
	}
}

func TestCrosstableValidate(t *testing.T) {
	ok := sampleCrosstable()
	for _, tc := range []struct {
		name string
		c    func() Crosstable
	}{
		{"no players", func() Crosstable { c := ok; c.Players, c.Cells = nil, nil; return c }},
		{"too many players", func() Crosstable {
			c := ok
			c.Players = make([]CrosstableRow, MaxCrosstablePlayers+1)
			c.Cells = make([][]string, MaxCrosstablePlayers+1)
			for i := range c.Cells {
				c.Cells[i] = make([]string, MaxCrosstablePlayers+1)
			}
			return c
		}},
		{"a row short", func() Crosstable { c := ok; c.Cells = c.Cells[:4]; return c }},
		{"a cell short", func() Crosstable {
			c := ok
			c.Cells = append([][]string{c.Cells[0][:4]}, c.Cells[1:]...)
			return c
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := DrawCrosstable(tc.c()); !errors.Is(err, ErrInvalid) {
				t.Errorf("got %v, want ErrInvalid", err)
			}
		})
	}
}

// TestCrosstableDraws checks the picture's facts: its size follows the
// players, each result's cell has the shade of its result, the diagonal
// is grey, and a name the font cannot draw leaves its name column blank.
func TestCrosstableDraws(t *testing.T) {
	c := sampleCrosstable()
	img, err := DrawCrosstable(c)
	if err != nil {
		t.Fatal(err)
	}
	l := c.layout()
	if got := img.Bounds().Size(); got != image.Pt(l.width, l.height) || l.cell != crossMaxCel {
		t.Fatalf("size %v, cell %d; want %dx%d, cells of %d", got, l.cell, l.width, l.height, crossMaxCel)
	}
	at := func(i, j, dx, dy int) image.Point { // near the corner of cell (i, j), away from its text
		x := crossPad + crossNumber + crossName + j*l.cell + 4 + dx
		y := l.top + (i+1)*l.cell + 4 + dy
		return image.Pt(x, y)
	}
	for _, tc := range []struct {
		name string
		i, j int
		want [4]uint8
	}{
		{"a win", 0, 2, rgba(crossWin)},
		{"a draw", 0, 1, rgba(crossDraw)},
		{"a loss", 2, 0, rgba(crossLoss)},
		{"a win by forfeit", 3, 4, rgba(crossWin)},
		{"a loss by forfeit", 4, 3, rgba(crossLoss)},
		{"the diagonal", 3, 3, rgba(crossDiagonal)},
	} {
		p := at(tc.i, tc.j, 0, 0)
		r, g, b, a := img.At(p.X, p.Y).RGBA()
		if got := [4]uint8{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), uint8(a >> 8)}; got != tc.want {
			t.Errorf("%s: cell (%d, %d) is %v, want %v", tc.name, tc.i+1, tc.j+1, got, tc.want)
		}
	}
	// The row of さくら (4th, a zebra row) has nothing drawn in its name
	// column; Зоя's (3rd, white) has ink there.
	inked := func(row int, bg [4]uint8) bool {
		top := l.top + (row+1)*l.cell
		for y := top + 4; y < top+l.cell-4; y++ {
			for x := crossPad + crossNumber + 8; x < crossPad+crossNumber+crossName-8; x++ {
				r, g, b, a := img.At(x, y).RGBA()
				if [4]uint8{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), uint8(a >> 8)} != bg {
					return true
				}
			}
		}
		return false
	}
	if !inked(2, rgba(white)) {
		t.Errorf("Зоя's name is not drawn")
	}
	if inked(3, rgba(crossZebra)) {
		t.Errorf("さくら's name was drawn (as boxes?) though CanDraw refuses it")
	}
	if dir := os.Getenv("CONNECTN_RENDERS"); dir != "" {
		var buf bytes.Buffer
		if err := png.Encode(&buf, img); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dir+"/crosstable-sample.png", buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func rgba(c interface{ RGBA() (r, g, b, a uint32) }) [4]uint8 {
	r, g, b, a := c.RGBA()
	return [4]uint8{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), uint8(a >> 8)}
}

func BenchmarkEncodeCrosstable32(b *testing.B) {
	c := Crosstable{Title: "Big round robin", PointsLabel: "Pts"}
	for i := range MaxCrosstablePlayers {
		c.Players = append(c.Players, CrosstableRow{Name: "Player " + string(rune('A'+i%26)), Points: "15½"})
		row := make([]string, MaxCrosstablePlayers)
		for j := range row {
			row[j] = []string{"1", "½", "0"}[(i+j)%3]
		}
		c.Cells = append(c.Cells, row)
	}
	for b.Loop() {
		if err := EncodeCrosstable(&bytes.Buffer{}, c); err != nil {
			b.Fatal(err)
		}
	}
}
