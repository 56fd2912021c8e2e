package picture_test

import (
	"bytes"
	"image/color"
	"image/png"
	"testing"

	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/picture"
)

// round returns the current or last round of a 4x5 match, connect 3, after
// the moves.
func round(t *testing.T, moves ...int) *game.Round {
	t.Helper()
	m, err := game.NewMatch(game.Config{Rows: 4, Columns: 5, Connect: 3, Wins: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range moves {
		if _, err := m.Play(m.ToMove(), c); err != nil {
			t.Fatal(err)
		}
	}
	return m.Round()
}

// centre returns the colour at the centre of cell (row, column) of a
// picture of rows rows at scale.
func centre(t *testing.T, st picture.Style, r *game.Round, scale, row, column int, dx int) color.RGBA {
	t.Helper()
	img, err := picture.Draw(r, st, scale)
	if err != nil {
		t.Fatal(err)
	}
	cell := 25 * scale
	rows := r.Board().Rows()
	return img.RGBAAt(column*cell+cell/2+dx, (rows-1-row)*cell+cell/2)
}

func TestDraw(t *testing.T) {
	// Player 1 plays columns 0, 0, 0 (a vertical line of 3); player 2
	// plays 1, 2 in between.
	won := round(t, 0, 1, 0, 2, 0)
	mid := round(t, 0, 1, 3)
	st := picture.Classic
	for _, scale := range []int{1, 2} {
		img, err := picture.Draw(mid, st, scale)
		if err != nil {
			t.Fatal(err)
		}
		if b := img.Bounds(); b.Dx() != 5*25*scale || b.Dy() != 4*25*scale {
			t.Fatalf("scale %d: %v, want %dx%d", scale, b, 5*25*scale, 4*25*scale)
		}
		if got := img.RGBAAt(0, 0); got != st.Frame {
			t.Errorf("scale %d: corner %v, want the frame %v", scale, got, st.Frame)
		}
		off := 6 * scale // away from the centre dot, inside the disc
		for _, c := range []struct {
			row, column int
			want        color.RGBA
		}{
			{0, 0, st.Discs[game.Player1]},
			{0, 1, st.Discs[game.Player2]},
			{0, 2, st.Empty},
			{3, 4, st.Empty},
		} {
			if got := centre(t, st, mid, scale, c.row, c.column, off); got != c.want {
				t.Errorf("scale %d: cell (%d,%d) = %v, want %v", scale, c.row, c.column, got, c.want)
			}
		}
		// The last disc (column 3, player 1) has a dot in its centre.
		if got := centre(t, st, mid, scale, 0, 3, 0); got != st.Ring {
			t.Errorf("scale %d: last disc centre %v, want the dot %v", scale, got, st.Ring)
		}
		if got := centre(t, st, mid, scale, 0, 0, 0); got != st.Discs[game.Player1] {
			t.Errorf("scale %d: an older disc has a dot: %v", scale, got)
		}
	}
	// The winning line's discs carry a ring (at 70% of the radius); the
	// loser's discs do not.
	ringAt := 6 // 70% of the inner radius (9 at scale 1)
	for row := 0; row < 3; row++ {
		if got := centre(t, st, won, 1, row, 0, ringAt); got != st.Ring {
			t.Errorf("winning disc (%d,0) at the ring: %v, want %v", row, got, st.Ring)
		}
	}
	if got := centre(t, st, won, 1, 0, 1, ringAt); got != st.Discs[game.Player2] {
		t.Errorf("a disc off the line has a ring: %v", got)
	}
}

func TestEncode(t *testing.T) {
	var buf bytes.Buffer
	if err := picture.Encode(&buf, round(t, 2, 2), picture.Forest, 2); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatalf("not a PNG: %v", err)
	}
	if b := img.Bounds(); b.Dx() != 250 || b.Dy() != 200 {
		t.Errorf("decoded %v, want 250x200", b)
	}
}

func TestScaleBounds(t *testing.T) {
	for _, scale := range []int{0, -1, picture.MaxScale + 1} {
		if _, err := picture.Draw(round(t), picture.Classic, scale); err == nil {
			t.Errorf("scale %d: no error", scale)
		}
	}
}
