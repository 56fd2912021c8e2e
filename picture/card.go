package picture

import (
	"fmt"
	"image"
	"image/color"
	"io"
	"math"
	"strconv"

	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/connectn/connectn/game"
)

// Card is a match's result card: the final position of its deciding round
// with the winning line, the two players in their colours with their
// names, the score and the ratings' change, and the date; drawn by
// DrawCard to be posted and shared. Every text is passed in, already in
// the reader's language, and drawn only where CanDraw accepts it.
type Card struct {
	// Round is the match's deciding round as it ended (its board, its
	// winning line and its last disc are drawn): at most 12 × 12.
	Round *game.Round
	// Style is the match's theme.
	Style Style
	// Players are the two players, indexed by game.Player (index 0
	// unused).
	Players [3]CardPlayer
	// Winner is the match's winner, NoPlayer when nobody won it: the
	// winner's name and score are bold and the card's top edge takes
	// their colour.
	Winner game.Player
	// Detail is a line under the score (for example "1 draw" or "by
	// forfeit"), empty for none.
	Detail string
	// Columns labels the board's columns left to right, as the bot's
	// buttons do ("1" to "7", or letters): nil for 1 to the number of
	// columns.
	Columns []string
	// Title is the line at the bottom left (for example "Connect 4 ·
	// 6 × 7 · first to 2"), and Date the one at the bottom right, both
	// already formatted; empty for none.
	Title, Date string
}

// CardPlayer is one player on a result card.
type CardPlayer struct {
	// Name is the player's display name, drawn when CanDraw accepts it.
	// Otherwise Fallback (for example the localised "Player 1") is drawn;
	// when neither can be drawn the player's disc stands alone. The name
	// is never drawn in part: a card does not show a name it cannot
	// spell (the message around it carries the real names).
	Name, Fallback string
	// Score is the number of rounds the player won: 0 or more.
	Score int
	// Rating is the change of the player's rating, already formatted
	// with its sign (for example "+12" or "−12"), empty for an unrated
	// match; a change starting with "+" is drawn in green, with "-" or
	// "−" in red, anything else in grey.
	Rating string
}

// name returns the text a card draws for player cp: its name, else its
// fallback, else "".
func (cp CardPlayer) name() string {
	if cp.Name != "" && CanDraw(cp.Name) {
		return cp.Name
	}
	return drawable(cp.Fallback)
}

// The card's size and layout, in pixels: twice what Discord shows
// (an embed's image at 400 pixels wide), as for the chart.
const (
	CardWidth    = 800
	cardPad      = 32
	cardBar      = 10  // the band along the top, in the winner's colour
	cardHeader   = 150 // the players and the score
	cardMaxCell  = 80
	cardMaxBoard = 600 // the board's height at most, frame included
	cardLabels   = 40  // the row of column labels under the board
	cardFooter   = 56
	cardMaxSide  = 12 // the largest board a card draws
)

var (
	cardBackground = color.RGBA{0xf7, 0xf7, 0xf9, 0xff}
	ratingUp       = color.RGBA{0x1a, 0x7f, 0x37, 0xff}
	ratingDown     = color.RGBA{0xc0, 0x1f, 0x2e, 0xff}
	neutralBar     = color.RGBA{0x8a, 0x8d, 0x96, 0xff}
)

// Validate returns an error wrapping ErrInvalid when c cannot be drawn: no
// round, a board larger than 12 × 12, a winner that is neither a player
// nor NoPlayer, a negative score, or column labels of another number
// than the board's columns.
func (c Card) Validate() error {
	if c.Round == nil {
		return fmt.Errorf("result card without a round: %w", ErrInvalid)
	}
	rows, columns := c.Round.Rows(), c.Round.Columns()
	switch {
	case rows > cardMaxSide || columns > cardMaxSide:
		return fmt.Errorf("result card of a %d × %d board, want at most %d × %d: %w", rows, columns, cardMaxSide, cardMaxSide, ErrInvalid)
	case c.Winner != game.NoPlayer && !c.Winner.Valid():
		return fmt.Errorf("result card winner %d, want none, player 1 or 2: %w", c.Winner, ErrInvalid)
	case c.Players[1].Score < 0 || c.Players[2].Score < 0:
		return fmt.Errorf("result card score %d – %d, want no negative: %w", c.Players[1].Score, c.Players[2].Score, ErrInvalid)
	case c.Columns != nil && len(c.Columns) != columns:
		return fmt.Errorf("result card with %d column labels for %d columns: %w", len(c.Columns), columns, ErrInvalid)
	}
	return nil
}

// cardLayout is where a card's parts go, in image pixels (y down).
type cardLayout struct {
	height      int
	cell        int // a board cell's side
	frame       int // the frame around the cells
	boardX      int // the left of the frame
	boardY      int // the top of the frame
	boardW      int // the frame's outer width and height
	boardH      int
	labelsY     int // the centre line of the column labels
	footerY     int // the centre line of the footer
	headerY     int // the centre line of the names
	scoreY      int // the centre line of the score
	ratingY     int // the centre line of the ratings
	columnCount int
}

// layout computes where c's parts go.
func (c Card) layout() cardLayout {
	rows, columns := c.Round.Rows(), c.Round.Columns()
	inner := CardWidth - 2*cardPad
	cell := min(cardMaxCell, inner*5/(5*columns+2), cardMaxBoard*5/(5*rows+2))
	frame := cell / 5
	l := cardLayout{cell: cell, frame: frame, columnCount: columns}
	l.boardW, l.boardH = columns*cell+2*frame, rows*cell+2*frame
	l.boardX = (CardWidth - l.boardW) / 2
	l.headerY = cardBar + 50
	l.scoreY = cardBar + 58
	l.ratingY = cardBar + 100
	l.boardY = cardBar + cardHeader
	l.labelsY = l.boardY + l.boardH + cardLabels/2 + 2
	l.footerY = l.boardY + l.boardH + cardLabels + cardFooter/2 + 4
	l.height = l.boardY + l.boardH + cardLabels + cardFooter + 8
	return l
}

// DrawCard draws c, CardWidth pixels wide and as high as its board needs
// (a 6 × 7 board: 776 pixels; 12 × 12: 858): on a light background, a
// band along the top in the winner's colour (grey when nobody won), the
// players' discs, names and rating changes left and right with the score
// between them, the board in c's style with its winning line ringed and
// its last disc dotted, the column labels under it, and the title and the
// date along the bottom. It returns an error wrapping ErrInvalid for a
// card Validate refuses.
func DrawCard(c Card) (*image.RGBA, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	l := c.layout()
	H := vg.Length(l.height)
	canvas := vgimg.NewWith(vgimg.UseWH(CardWidth, H), vgimg.UseDPI(72), vgimg.UseBackgroundColor(cardBackground))
	dc := draw.New(canvas)
	y := func(imgY int) vg.Length { return H - vg.Length(imgY) } // image rows down, canvas lengths up

	bar := neutralBar
	if c.Winner.Valid() {
		bar = c.Style.Discs[c.Winner]
	}
	dc.FillPolygon(bar, []vg.Point{{X: 0, Y: H}, {X: CardWidth, Y: H}, {X: CardWidth, Y: H - cardBar}, {X: 0, Y: H - cardBar}})

	// The score, between the players.
	scoreStyle := textStyle(boldFont, 56, ink, text.XCenter, text.YCenter)
	score := strconv.Itoa(c.Players[1].Score) + " – " + strconv.Itoa(c.Players[2].Score)
	dc.FillText(scoreStyle, vg.Point{X: CardWidth / 2, Y: y(l.scoreY)}, score)
	if d := drawable(c.Detail); d != "" {
		sty := textStyle(sansFont, 22, muted, text.XCenter, text.YCenter)
		dc.FillText(sty, vg.Point{X: CardWidth / 2, Y: y(l.ratingY + 4)}, fit(sty, d, 220))
	}

	// The players: Player 1 on the left, Player 2 on the right, each disc
	// at the outer edge with the name towards the score.
	const discR = 22
	room := vg.Length(CardWidth/2) - cardPad - 2*discR - 14 - scoreStyle.Width(score)/2 - 16
	for _, p := range []game.Player{game.Player1, game.Player2} {
		cp := c.Players[p]
		discX, align, dir := vg.Length(cardPad+discR), text.XLeft, vg.Length(1)
		if p == game.Player2 {
			discX, align, dir = CardWidth-cardPad-discR, text.XRight, -1
		}
		drawDisc(&dc, vg.Point{X: discX, Y: y(l.headerY)}, discR, c.Style.Side(p, ""))
		textX := discX + dir*(discR+14)
		font := sansFont
		if p == c.Winner {
			font = boldFont
		}
		if name := cp.name(); name != "" {
			sty := textStyle(font, 32, ink, align, text.YCenter)
			dc.FillText(sty, vg.Point{X: textX, Y: y(l.headerY)}, fit(sty, name, room))
		}
		if r := drawable(cp.Rating); r != "" {
			col := muted
			switch {
			case r[0] == '+':
				col = ratingUp
			case r[0] == '-' || len(r) >= 3 && r[:3] == "−":
				col = ratingDown
			}
			sty := textStyle(boldFont, 24, col, align, text.YCenter)
			dc.FillText(sty, vg.Point{X: textX, Y: y(l.ratingY)}, fit(sty, r, room))
		}
	}

	// The board's frame, rounded, under the cells drawn below.
	frameR := vg.Length(l.frame)
	x0, x1 := vg.Length(l.boardX), vg.Length(l.boardX+l.boardW)
	y0, y1 := y(l.boardY+l.boardH), y(l.boardY)
	dc.SetColor(c.Style.Frame)
	dc.Fill(roundedRect(x0, y0, x1, y1, frameR))

	// The column labels and the footer.
	labelStyle := textStyle(boldFont, min(26, vg.Length(l.cell)*0.45), muted, text.XCenter, text.YCenter)
	for col := 0; col < l.columnCount; col++ {
		label := strconv.Itoa(col + 1)
		if c.Columns != nil {
			label = drawable(c.Columns[col])
		}
		cx := vg.Length(l.boardX + l.frame + col*l.cell + l.cell/2)
		dc.FillText(labelStyle, vg.Point{X: cx, Y: y(l.labelsY)}, fit(labelStyle, label, vg.Length(l.cell)))
	}
	footer := textStyle(sansFont, 22, muted, text.XLeft, text.YCenter)
	date := drawable(c.Date)
	dateW := footer.Width(date)
	if t := drawable(c.Title); t != "" {
		dc.FillText(footer, vg.Point{X: cardPad, Y: y(l.footerY)}, fit(footer, t, CardWidth-2*cardPad-dateW-24))
	}
	if date != "" {
		footer.XAlign = text.XRight
		dc.FillText(footer, vg.Point{X: CardWidth - cardPad, Y: y(l.footerY)}, fit(footer, date, CardWidth-2*cardPad))
	}

	img := canvas.Image().(*image.RGBA)
	drawBoard(img, c.Round, c.Style, l.boardX+l.frame, l.boardY+l.frame, l.cell)
	return img, nil
}

// EncodeCard writes c drawn by DrawCard as a PNG to w, compressed for
// speed (see fastPNG).
func EncodeCard(w io.Writer, c Card) error {
	img, err := DrawCard(c)
	if err != nil {
		return err
	}
	if err := fastPNG.Encode(w, img); err != nil {
		return fmt.Errorf("encode the result card: %w", err)
	}
	return nil
}

// roundedRect returns the path of a rectangle from (x0, y0) to (x1, y1)
// with corners rounded to radius r.
func roundedRect(x0, y0, x1, y1, r vg.Length) vg.Path {
	var p vg.Path
	p.Move(vg.Point{X: x0 + r, Y: y0})
	p.Line(vg.Point{X: x1 - r, Y: y0})
	p.Arc(vg.Point{X: x1 - r, Y: y0 + r}, r, -math.Pi/2, math.Pi/2)
	p.Line(vg.Point{X: x1, Y: y1 - r})
	p.Arc(vg.Point{X: x1 - r, Y: y1 - r}, r, 0, math.Pi/2)
	p.Line(vg.Point{X: x0 + r, Y: y1})
	p.Arc(vg.Point{X: x0 + r, Y: y1 - r}, r, math.Pi/2, math.Pi/2)
	p.Line(vg.Point{X: x0, Y: y0 + r})
	p.Arc(vg.Point{X: x0 + r, Y: y0 + r}, r, math.Pi, math.Pi/2)
	p.Close()
	return p
}
