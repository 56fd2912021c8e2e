package ai

import (
	"fmt"
	"math/bits"
)

// maxColumns64 is the most columns a board that fits in 64 bits can have:
// a single row needs two bits per column.
const maxColumns64 = 32

// geometry describes a board whose bitboard fits in 64 bits:
// (rows+1) x columns <= 64. Bit (column*(rows+1) + row) is the cell at that
// row (0 at the bottom) and column; the extra bit on top of each column is a
// sentinel that is never set, so lines cannot wrap from one column to the
// next. The layout is Pascal Pons' ("Solving Connect 4", blog.gamesolver.org).
type geometry struct {
	rows, columns, connect int
	cells                  int    // rows x columns
	stride                 uint   // rows + 1, the shift between neighbouring columns
	bottom                 uint64 // the bottom cell of every column
	board                  uint64 // every cell of the board, no sentinel
	column                 [maxColumns64]uint64
	order                  [maxColumns64]int // columns, centre first
	// oddRows marks the cells of the odd rows counted from 1 (rows 0, 2,
	// 4 ... counted from 0): threats there favour the first player.
	oddRows uint64
	// evenRows reports an even number of rows, where claimeven applies.
	evenRows bool
	salt     uint64 // mixes the geometry into transposition table keys
	fast4    bool   // connect 4 with every shift of winning4 below 64
}

// fits reports whether a rows x columns bitboard fits in 64 bits.
func fits(rows, columns int) bool { return (rows+1)*columns <= 64 }

// newGeometry returns the geometry of a rows x columns board with connect in
// a row, or an error wrapping ErrBoardTooLarge when it does not fit in 64
// bits, and ErrInvalidBoard for sizes or connect below 1.
func newGeometry(rows, columns, connect int) (*geometry, error) {
	if rows < 1 || columns < 1 || connect < 1 {
		return nil, fmt.Errorf("board %dx%d, connect %d: sizes and connect must be at least 1: %w", rows, columns, connect, ErrInvalidBoard)
	}
	if !fits(rows, columns) {
		return nil, fmt.Errorf("board %dx%d needs %d bits: %w", rows, columns, (rows+1)*columns, ErrBoardTooLarge)
	}
	g := &geometry{rows: rows, columns: columns, connect: connect, cells: rows * columns, stride: uint(rows + 1)}
	for c := 0; c < columns; c++ {
		g.bottom |= 1 << (uint(c) * g.stride)
	}
	g.board = g.bottom * ((1 << uint(rows)) - 1)
	for c := 0; c < columns; c++ {
		g.column[c] = ((1 << uint(rows)) - 1) << (uint(c) * g.stride)
	}
	for r := 0; r < rows; r += 2 {
		g.oddRows |= g.bottom << uint(r)
	}
	copy(g.order[:], centreOrder(columns))
	g.evenRows = rows%2 == 0
	g.fast4 = connect == 4 && 3*(g.stride+1) < 64
	g.salt = mix64(uint64(rows)<<16 | uint64(columns)<<8 | uint64(connect))
	return g, nil
}

// centreOrder returns the columns 0..columns-1 centre first, alternating
// sides: 3 4 2 5 1 6 0 for seven columns (Pons' exploration order).
func centreOrder(columns int) []int {
	order := make([]int, 0, columns)
	for i := 0; i < columns; i++ {
		order = append(order, columns/2+(1-2*(i%2))*(i+1)/2)
	}
	return order
}

// mix64 is the SplitMix64 finaliser: a bijection of uint64 that spreads
// every input bit over every output bit.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// winning returns the empty cells where a disc of the player owning p would
// complete a line of g.connect. mask holds every disc on the board.
func (g *geometry) winning(p, mask uint64) uint64 {
	if g.fast4 {
		return g.winning4(p, mask)
	}
	n := g.connect
	if n == 1 {
		return g.board &^ mask
	}
	// Vertical: n-1 discs right below (above an empty cell is empty).
	r := p << 1
	for k := 2; k < n; k++ {
		r &= p << uint(k)
	}
	for _, d := range [3]uint{g.stride - 1, g.stride, g.stride + 1} {
		// before[k]: the k cells before (in direction -d) are all p's;
		// after[k] likewise after. A cell wins when before[a] and
		// after[n-1-a] hold for some a.
		var before, after [13]uint64
		before[0], after[0] = ^uint64(0), ^uint64(0)
		for k := 1; k < n; k++ {
			before[k] = before[k-1] & (p << (uint(k) * d))
			after[k] = after[k-1] & (p >> (uint(k) * d))
		}
		for a := 0; a < n; a++ {
			r |= before[a] & after[n-1-a]
		}
	}
	return r & (g.board ^ mask)
}

// winning4 is winning for connect 4, Pons' compute_winning_position. The
// shift counts are masked with 63, which lets the compiler emit plain shifts;
// newGeometry sends boards where 3 x (rows+2) >= 64 to the general code.
func (g *geometry) winning4(p, mask uint64) uint64 {
	r := (p << 1) & (p << 2) & (p << 3)
	s := g.stride
	for _, d := range [3]uint{s - 1, s, s + 1} {
		d1, d2, d3 := d&63, (2*d)&63, (3*d)&63
		q := (p << d1) & (p << d2)
		r |= q & (p << d3)
		r |= q & (p >> d1)
		q = (p >> d1) & (p >> d2)
		r |= q & (p << d1)
		r |= q & (p >> d3)
	}
	return r & (g.board ^ mask)
}

// mirrorMove returns the bit of the cell mirrored across the vertical axis
// of the cell move (one bit) in column c.
func (g *geometry) mirrorMove(move uint64, c int) uint64 {
	m := g.columns - 1 - c
	if m >= c {
		return move << (uint(m-c) * g.stride)
	}
	return move >> (uint(c-m) * g.stride)
}

// columnOf returns the column of the single-bit move.
func (g *geometry) columnOf(move uint64) int {
	return bits.TrailingZeros64(move) / int(g.stride)
}

// position is a board that fits in 64 bits, seen from the player to move:
// cur holds that player's discs, mask every disc. mcur and mmask are the
// same board mirrored left to right, kept so that a position and its mirror
// image share one transposition table entry.
type position struct {
	cur, mask   uint64
	mcur, mmask uint64
	moves       int // discs on the board
}

// key returns the position's unique key (Pons: current + mask).
func (p *position) key() uint64 { return p.cur + p.mask }

// canonicalKey returns the smaller of the keys of the position and of its
// mirror image.
func (p *position) canonicalKey() uint64 { return min(p.cur+p.mask, p.mcur+p.mmask) }

// possible returns the cells where a disc can be dropped now.
func (g *geometry) possible(p *position) uint64 { return g.playable(p.mask) }

// playable returns the cells where a disc can be dropped on the board whose
// discs are mask: the lowest empty cell of each column not full.
func (g *geometry) playable(mask uint64) uint64 { return (mask + g.bottom) & g.board }

// play drops the player to move's disc on move (one bit of possible) in
// column c.
func (g *geometry) play(p *position, move uint64, c int) {
	p.cur ^= p.mask
	p.mask |= move
	p.mcur ^= p.mmask
	p.mmask |= g.mirrorMove(move, c)
	p.moves++
}

// playColumn drops a disc in column c, which must not be full.
func (g *geometry) playColumn(p *position, c int) {
	g.play(p, (p.mask+g.bottom)&g.column[c], c)
}

// canPlay reports whether column c is on the board and not full.
func (g *geometry) canPlay(p *position, c int) bool {
	return c >= 0 && c < g.columns && g.possible(p)&g.column[c] != 0
}

// winsNow reports whether the player to move completes a line by playing
// column c (which must be playable).
func (g *geometry) winsNow(p *position, c int) bool {
	return g.winning(p.cur, p.mask)&g.possible(p)&g.column[c] != 0
}

// nonLosing returns the cells the player to move may play without letting
// the opponent complete a line at once: the single forced block if there is
// one, nothing if the opponent has two immediate wins, and never a cell right
// below an opponent's winning cell. It assumes the player to move cannot win
// at once (Pons' possibleNonLosingMoves).
func (g *geometry) nonLosing(p *position) uint64 {
	return g.nonLosingWith(p, g.winning(p.cur^p.mask, p.mask))
}

// nonLosingWith is nonLosing given opp, the opponent's winning cells
// (g.winning(p.cur^p.mask, p.mask)), which the caller has at hand.
func (g *geometry) nonLosingWith(p *position, opp uint64) uint64 {
	possible := g.possible(p)
	forced := possible & opp
	if forced != 0 {
		if forced&(forced-1) != 0 {
			return 0
		}
		possible = forced
	}
	return possible &^ (opp >> 1)
}

// nonLosingAfter is nonLosingWith for the player to move on a board whose
// discs are mask (the cells each player holds do not matter beyond opp,
// the opponent's winning cells).
func (g *geometry) nonLosingAfter(mask, opp uint64) uint64 {
	possible := g.playable(mask)
	if forced := possible & opp; forced != 0 {
		if forced&(forced-1) != 0 {
			return 0
		}
		possible = forced
	}
	return possible &^ (opp >> 1)
}

// canStillWin reports whether the player owning p can still complete a line
// in some window of g.connect cells holding none of the opponent's discs
// (opp), on the board.
func (g *geometry) canStillWin(opp uint64) bool {
	avail := g.board &^ opp
	if g.fast4 {
		// Four in a row: pairs of free cells, then pairs of pairs.
		st := g.stride
		for _, d := range [4]uint{st, 1, st + 1, st - 1} {
			a := avail & (avail >> d)
			if a&(a>>(2*d)) != 0 {
				return true
			}
		}
		return false
	}
	n := g.connect
	for _, d := range [4]uint{1, g.stride - 1, g.stride, g.stride + 1} {
		f := avail
		for k := 1; k < n && f != 0; k++ {
			f &= avail >> (uint(k) * d)
		}
		if f != 0 {
			return true
		}
	}
	return false
}

// hasLine reports whether the cells of set hold a whole line of g.connect
// cells in some direction.
func (g *geometry) hasLine(set uint64) bool { return g.canStillWin(g.board &^ set) }

// claimeven returns an upper bound of the score of p for the player to
// move, who must be the first player (an even number of discs on the
// board), on a board of even rows: Allis' claimeven. The opponent can
// answer every move on a cell of an odd row (counted from 1) by taking the
// cell right above, and a move on a column of odd height by playing at the
// bottom of another column of odd height (there is always one: their
// number is even before the move). The opponent thus ends with at least
// their discs and every empty cell of the even rows that is not playable
// now, and the player with at most the other cells. If those hold no line
// for the player, the player can never win: the bound is 0, and -1 when the
// opponent's cells hold a line, which they then complete. Otherwise the
// bound says nothing: (cells+1)/2.
func (g *geometry) claimeven(p *position) int { return g.claimevenOf(p.cur^p.mask, p.mask) }

// claimevenOf is claimeven for the position whose discs are mask, opp
// those of the opponent of the player to move.
func (g *geometry) claimevenOf(opp, mask uint64) int {
	empty := g.board &^ mask
	theirs := opp | (empty &^ g.oddRows &^ g.playable(mask))
	if faults&faultClaimeven == 0 && g.hasLine(g.board&^theirs) {
		return (g.cells + 1) / 2
	}
	if g.hasLine(theirs) {
		return -1
	}
	return 0
}
