package ai

import "math/bits"

// wide is the bitboard of any board, however large: the layout of
// geometry (column-major, rows+1 bits per column, the top bit of each
// column a sentinel that is never set) spread over as many 64-bit words as
// needed; a 12x12 board takes 156 bits in 3 words, the console's largest
// 256x256 board 1,028 words. The heuristic search of the levels below
// perfect, and of perfect on boards beyond 64 bits, runs on it.
type wide struct {
	rows, columns, connect int
	stride                 int // rows + 1
	words                  int
	board                  []uint64 // every cell, no sentinel
	colOrder               []int    // columns, centre first
	oddRows                []uint64 // rows 0, 2, 4 ... (odd counted from 1)
	salt                   uint64
}

func newWide(rows, columns, connect int) *wide {
	w := &wide{rows: rows, columns: columns, connect: connect, stride: rows + 1}
	w.words = (w.stride*columns + 63) / 64
	w.board = make([]uint64, w.words)
	w.oddRows = make([]uint64, w.words)
	for c := 0; c < columns; c++ {
		for r := 0; r < rows; r++ {
			i := c*w.stride + r
			w.board[i/64] |= 1 << (i % 64)
			if r%2 == 0 {
				w.oddRows[i/64] |= 1 << (i % 64)
			}
		}
	}
	w.colOrder = centreOrder(columns)
	w.salt = mix64(uint64(rows)<<20 ^ uint64(columns)<<8 ^ uint64(connect) ^ 0x5bd1e995)
	return w
}

// bit returns the index of the cell (row, column).
func (w *wide) bit(row, column int) int { return column*w.stride + row }

// scratch holds the temporary bitsets of the wide operations, so a search
// allocates nothing per node.
type scratch struct {
	words         int
	buf           []uint64
	used          int
	before, after [][]uint64 // headers reused by winning
}

func newScratch(words, sets int) *scratch {
	return &scratch{words: words, buf: make([]uint64, words*sets)}
}

// get returns a zeroed bitset; put returns the last n obtained.
func (s *scratch) get() []uint64 {
	if s.used+s.words > len(s.buf) {
		// Grow; bitsets already handed out keep the old array, which
		// stays valid until they are put back.
		s.buf = make([]uint64, 2*len(s.buf)+s.words)
	}
	b := s.buf[s.used : s.used+s.words : s.used+s.words]
	s.used += s.words
	clear(b)
	return b
}

func (s *scratch) put(n int) { s.used -= n * s.words }

// shl sets dst to src shifted towards higher bits by k (bits pushed past
// the top are lost).
func shl(dst, src []uint64, k int) {
	ws, bs := k/64, uint(k%64)
	for i := len(dst) - 1; i >= 0; i-- {
		j := i - ws
		var v uint64
		if j >= 0 {
			v = src[j] << bs
			if bs != 0 && j > 0 {
				v |= src[j-1] >> (64 - bs)
			}
		}
		dst[i] = v
	}
}

// shr sets dst to src shifted towards lower bits by k.
func shr(dst, src []uint64, k int) {
	ws, bs := k/64, uint(k%64)
	n := len(dst)
	for i := 0; i < n; i++ {
		j := i + ws
		var v uint64
		if j < n {
			v = src[j] >> bs
			if bs != 0 && j+1 < n {
				v |= src[j+1] << (64 - bs)
			}
		}
		dst[i] = v
	}
}

func and(dst, a []uint64) {
	for i := range dst {
		dst[i] &= a[i]
	}
}

func or(dst, a []uint64) {
	for i := range dst {
		dst[i] |= a[i]
	}
}

// directions returns the bit distances of the four line directions:
// vertical, anti-diagonal, horizontal, diagonal.
func (w *wide) directions() [4]int { return [4]int{1, w.stride - 1, w.stride, w.stride + 1} }

// winning sets dst to the empty cells (not in mask) where a disc of the
// player owning p completes a line of w.connect.
func (w *wide) winning(dst, p, mask []uint64, s *scratch) {
	n := w.connect
	clear(dst)
	if n == 1 {
		for i := range dst {
			dst[i] = w.board[i] &^ mask[i]
		}
		return
	}
	t := s.get()
	if len(s.before) < n {
		s.before, s.after = make([][]uint64, n), make([][]uint64, n)
	}
	before, after := s.before, s.after
	for k := 1; k < n; k++ {
		before[k], after[k] = s.get(), s.get()
	}
	for di, d := range w.directions() {
		for k := 1; k < n; k++ {
			shl(t, p, k*d)
			copy(before[k], t)
			if k > 1 {
				and(before[k], before[k-1])
			}
			if di == 0 {
				continue // vertical: nothing above an empty cell
			}
			shr(t, p, k*d)
			copy(after[k], t)
			if k > 1 {
				and(after[k], after[k-1])
			}
		}
		if di == 0 {
			or(dst, before[n-1])
			continue
		}
		or(dst, before[n-1])
		or(dst, after[n-1])
		for a := 1; a < n-1; a++ {
			copy(t, before[a])
			and(t, after[n-1-a])
			or(dst, t)
		}
	}
	for i := range dst {
		dst[i] &= w.board[i] &^ mask[i]
	}
	s.put(1 + 2*(n-1))
}

// windows adds to counts[c] the number of windows of w.connect cells, in
// any direction and on the board, that hold c of the discs in p and none of
// the discs in q, for c from 1 to w.connect-1.
func (w *wide) windows(counts []int, p, q []uint64, s *scratch) {
	n := w.connect
	avail := s.get()
	for i := range avail {
		avail[i] = w.board[i] &^ q[i]
	}
	free, t := s.get(), s.get()
	// Bit-sliced counters: the count of p's discs in the window starting
	// at each cell, 4 bits wide (n <= 15).
	var cnt [4][]uint64
	for b := range cnt {
		cnt[b] = s.get()
	}
	carry := s.get()
	for _, d := range w.directions() {
		copy(free, avail)
		for b := range cnt {
			clear(cnt[b])
		}
		for k := 0; k < n; k++ {
			if k > 0 {
				shr(t, avail, k*d)
				and(free, t)
			}
			shr(t, p, k*d)
			// cnt += t, bit-sliced.
			copy(carry, t)
			for b := 0; b < 4; b++ {
				for i := range carry {
					c := cnt[b][i] & carry[i]
					cnt[b][i] ^= carry[i]
					carry[i] = c
				}
			}
		}
		for c := 1; c < n && c < 16; c++ {
			total := 0
			for i := range free {
				m := free[i]
				for b := 0; b < 4; b++ {
					if c>>b&1 == 1 {
						m &= cnt[b][i]
					} else {
						m &^= cnt[b][i]
					}
				}
				total += bits.OnesCount64(m)
			}
			counts[c] += total
		}
	}
	s.put(8)
}
