package ai

import (
	"math/bits"
	"math/rand/v2"
	"sync/atomic"
	"time"
)

// winScore is the score of a win at the root in the heuristic search; a
// win k plies deeper scores winScore - k. Evaluations stay far below.
const winScore = 1 << 20

// isMate reports whether a heuristic score is a proven win or loss.
func isMate(score int) bool { return score > winScore-10000 || score < -winScore+10000 }

// hsearch is the heuristic search of one position on a wide bitboard:
// negamax with alpha-beta pruning and iterative deepening, a transposition
// table, the same pruning of moves that hand the opponent a win as the
// solver, and an evaluation that counts open windows and threats. It plays
// the levels below perfect on every board, and perfect beyond 64 bits.
type hsearch struct {
	w       *wide
	s       *scratch
	disc    [2][]uint64 // first player's and second player's discs
	mask    []uint64
	heights []int
	moves   int
	cells   int
	hash    uint64
	tt      *htable

	nodes     uint64
	nodeLimit uint64 // 0: none
	deadline  time.Time
	stop      *stopFlag
	aborted   bool
	killers   [][2]int
	// checkMask sets how often the search looks at the clock: every 64
	// nodes on boards of up to 256 bits, every node on larger ones, where
	// a node costs microseconds.
	checkMask uint64
}

func newHsearch(w *wide, moves []int, tt *htable) *hsearch {
	h := &hsearch{w: w, s: newScratch(w.words, 64), mask: make([]uint64, w.words), heights: make([]int, w.columns), cells: w.rows * w.columns, tt: tt}
	h.disc[0], h.disc[1] = make([]uint64, w.words), make([]uint64, w.words)
	if w.words <= 4 {
		h.checkMask = 63
	}
	for _, c := range moves {
		h.play(c)
	}
	return h
}

// zobrist returns the hash contribution of a disc of side on cell i.
func (h *hsearch) zobrist(i, side int) uint64 {
	return mix64(uint64(i)<<1 | uint64(side) ^ h.w.salt)
}

func (h *hsearch) play(c int) {
	i := h.w.bit(h.heights[c], c)
	side := h.moves & 1
	h.disc[side][i/64] |= 1 << (i % 64)
	h.mask[i/64] |= 1 << (i % 64)
	h.heights[c]++
	h.moves++
	h.hash ^= h.zobrist(i, side)
}

func (h *hsearch) undo(c int) {
	h.moves--
	h.heights[c]--
	i := h.w.bit(h.heights[c], c)
	side := h.moves & 1
	h.disc[side][i/64] &^= 1 << (i % 64)
	h.mask[i/64] &^= 1 << (i % 64)
	h.hash ^= h.zobrist(i, side)
}

// has reports whether bitset b holds the top empty cell of column c, which
// must not be full.
func (h *hsearch) has(b []uint64, c int) bool {
	i := h.w.bit(h.heights[c], c)
	return b[i/64]>>(i%64)&1 == 1
}

// above reports whether b holds the cell right above the top empty cell of
// column c.
func (h *hsearch) above(b []uint64, c int) bool {
	if h.heights[c]+1 >= h.w.rows {
		return false
	}
	i := h.w.bit(h.heights[c]+1, c)
	return b[i/64]>>(i%64)&1 == 1
}

func (h *hsearch) checkStop() {
	if h.stop != nil && h.stop.Load() {
		h.aborted = true
	}
	if !h.deadline.IsZero() && time.Now().After(h.deadline) {
		h.aborted = true
	}
	if h.nodeLimit > 0 && h.nodes >= h.nodeLimit {
		h.aborted = true
	}
}

// evaluate scores the position for the player to move, who cannot win at
// once and is not lost to a double threat. myWin and oppWin are the two
// players' winning cells.
func (h *hsearch) evaluate(me, opp, myWin, oppWin []uint64) int {
	w := h.w
	n := w.connect
	var mine, theirs [16]int
	w.windows(mine[:], me, opp, h.s)
	w.windows(theirs[:], opp, me, h.s)
	score := 0
	for c := max(1, n-3); c < n && c < 16; c++ {
		weight := 1 << (2 * (c - (n - 3))) // n-3: 1, n-2: 4, n-1: 16
		score += weight * (mine[c] - theirs[c])
	}
	// Threats: cells that would complete a line, worth more on rows of
	// the owner's parity (odd rows, counted from 1, for the first player).
	first := h.moves&1 == 0
	for i := range myWin {
		mg, og := w.oddRows[i], w.board[i]&^w.oddRows[i]
		if !first {
			mg, og = og, mg
		}
		score += 24*(bits.OnesCount64(myWin[i])-bits.OnesCount64(oppWin[i])) +
			12*(bits.OnesCount64(myWin[i]&mg)-bits.OnesCount64(oppWin[i]&og))
	}
	return score
}

// negamax searches depth plies more; ply is the distance from the root.
func (h *hsearch) negamax(depth, alpha, beta, ply int) int {
	h.nodes++
	if h.nodes&h.checkMask == 0 {
		h.checkStop()
		yield() // as the solver does: the handlers first
	}
	if h.aborted {
		return 0
	}
	w := h.w
	side := h.moves & 1
	me, opp := h.disc[side], h.disc[side^1]
	myWin, oppWin := h.s.get(), h.s.get()
	defer h.s.put(2)
	w.winning(myWin, me, h.mask, h.s)
	for _, c := range w.colOrder {
		if h.heights[c] < w.rows && h.has(myWin, c) {
			return winScore - ply
		}
	}
	if h.moves >= h.cells {
		return 0
	}
	w.winning(oppWin, opp, h.mask, h.s)
	forced, nForced := -1, 0
	for c := 0; c < w.columns; c++ {
		if h.heights[c] < w.rows && h.has(oppWin, c) {
			forced = c
			nForced++
		}
	}
	if nForced > 1 {
		return -(winScore - ply - 1)
	}
	if h.moves+1 >= h.cells {
		return 0 // our last disc cannot win (checked), the board is full after it
	}
	if depth <= 0 {
		return h.evaluate(me, opp, myWin, oppWin)
	}

	alpha0 := alpha
	ttMove := -1
	if e, ok := h.tt.get(h.hash); ok {
		ttMove = e.move
		if e.depth >= depth {
			switch {
			case e.flag == flagExact:
				return e.score
			case e.flag == flagLower && e.score >= beta:
				return e.score
			case e.flag == flagUpper && e.score <= alpha:
				return e.score
			}
		}
	}

	// Candidate moves: the forced block alone, else every column whose
	// next cell is not right under an opponent's winning cell.
	var list [maxListed]int
	var keys [maxListed]int
	n := 0
	add := func(c, key int) {
		if n == maxListed {
			return
		}
		i := n
		for ; i > 0 && keys[i-1] < key; i-- {
			list[i], keys[i] = list[i-1], keys[i-1]
		}
		list[i], keys[i] = c, key
		n++
	}
	if forced >= 0 {
		add(forced, 0)
	} else {
		var k0, k1 = -1, -1
		if ply < len(h.killers) {
			k0, k1 = h.killers[ply][0], h.killers[ply][1]
		}
		for rank, c := range w.colOrder {
			if h.heights[c] >= w.rows || h.above(oppWin, c) {
				continue
			}
			key := -rank
			switch c {
			case ttMove:
				key += 1 << 20
			case k0:
				key += 1 << 16
			case k1:
				key += 1 << 15
			}
			if h.above(myWin, c) {
				key -= 1 << 10 // wastes our own threat
			}
			add(c, key)
		}
		if n == 0 {
			return -(winScore - ply - 1) // every move lets the opponent win
		}
	}
	best, bestMove := -winScore*2, list[0]
	for i := 0; i < n; i++ {
		c := list[i]
		h.play(c)
		score := -h.negamax(depth-1, -beta, -alpha, ply+1)
		h.undo(c)
		if h.aborted {
			return 0
		}
		if score > best {
			best, bestMove = score, c
		}
		if score > alpha {
			alpha = score
		}
		if alpha >= beta {
			if ply < len(h.killers) && h.killers[ply][0] != c {
				h.killers[ply][1], h.killers[ply][0] = h.killers[ply][0], c
			}
			break
		}
	}
	flag := flagExact
	switch {
	case best <= alpha0:
		flag = flagUpper
	case best >= beta:
		flag = flagLower
	}
	h.tt.put(h.hash, hentry{score: best, depth: depth, flag: flag, move: bestMove})
	return best
}

// maxListed bounds the moves considered at one node: every column of the
// largest board.
const maxListed = 256

// rootResult is the outcome of one heuristic search.
type rootResult struct {
	column int
	score  int
	depth  int // deepest iteration finished
	scores []int
}

// search runs iterative deepening up to maxDepth plies (0: until stopped)
// and returns the best move of the deepest finished iteration (depth 0 and
// the column of quickMove when not even the first one finished). noise,
// when rng is set, is added to every root move's score to pick among moves
// of similar value.
func (h *hsearch) search(maxDepth int, rng *rand.Rand, noise int) rootResult {
	w := h.w
	if maxDepth <= 0 || maxDepth > h.cells-h.moves {
		maxDepth = h.cells - h.moves
	}
	h.killers = make([][2]int, maxDepth+2)
	for i := range h.killers {
		h.killers[i] = [2]int{-1, -1}
	}
	var cols []int
	for _, c := range w.colOrder {
		if h.heights[c] < w.rows {
			cols = append(cols, c)
		}
	}
	res := rootResult{column: h.quickMove(), score: -winScore * 2}
	jitter := make([]int, w.columns)
	if rng != nil && noise > 0 {
		for i := range jitter {
			jitter[i] = rng.IntN(2*noise+1) - noise
		}
	}
	for depth := 1; depth <= maxDepth; depth++ {
		scores := make([]int, w.columns)
		best, bestCol := -winScore*2, -1
		alpha := -winScore * 2
		for _, c := range cols {
			// A losing move's exact value does not matter: a null window
			// above it is enough.
			h.play(c)
			var sc int
			if h.wins(c) {
				sc = winScore
			} else {
				sc = -h.negamax(depth-1, -winScore*2, -(alpha - noise*2), 1)
			}
			h.undo(c)
			if !h.aborted {
				h.checkStop()
			}
			if h.aborted {
				break
			}
			if !isMate(sc) {
				sc += jitter[c]
			}
			scores[c] = sc
			if sc > best {
				best, bestCol = sc, c
			}
			alpha = max(alpha, best)
		}
		if h.aborted {
			break
		}
		res = rootResult{column: bestCol, score: best, depth: depth, scores: scores}
		// Search the best move first next time.
		for i, c := range cols {
			if c == bestCol {
				copy(cols[1:i+1], cols[:i])
				cols[0] = c
				break
			}
		}
		if isMate(best) {
			break
		}
	}
	return res
}

// wins reports whether the disc just dropped in column c completed a line.
func (h *hsearch) wins(c int) bool {
	w := h.w
	side := (h.moves - 1) & 1
	row := h.heights[c] - 1
	p := h.disc[side]
	at := func(r, col int) bool {
		if r < 0 || r >= w.rows || col < 0 || col >= w.columns {
			return false
		}
		i := w.bit(r, col)
		return p[i/64]>>(i%64)&1 == 1
	}
	for _, d := range [4][2]int{{0, 1}, {1, 0}, {1, 1}, {-1, 1}} {
		n := 1
		for r, col := row+d[0], c+d[1]; at(r, col); r, col = r+d[0], col+d[1] {
			n++
		}
		for r, col := row-d[0], c-d[1]; at(r, col); r, col = r-d[0], col-d[1] {
			n++
		}
		if n >= w.connect {
			return true
		}
	}
	return false
}

const (
	flagExact = iota
	flagLower
	flagUpper
)

type hentry struct {
	score, depth, flag, move int
}

// htable is the heuristic search's transposition table: pairs of words
// (key XOR data, data) written and read with atomic operations, so an entry
// torn by two concurrent writers fails its key check instead of lying
// (Hyatt's lockless hashing).
type htable struct {
	slots []uint64
	mask  uint64
}

func newHtable(sizeMB int) *htable {
	pairs := uint64(max(sizeMB, 1)) << 20 / 16
	log := bits.Len64(pairs) - 1
	return &htable{slots: make([]uint64, 2<<log), mask: 1<<log - 1}
}

func (t *htable) get(key uint64) (hentry, bool) {
	i := (key & t.mask) * 2
	k := atomic.LoadUint64(&t.slots[i])
	d := atomic.LoadUint64(&t.slots[i+1])
	if k^d != key || d == 0 {
		return hentry{}, false
	}
	return hentry{score: int(int32(uint32(d))), depth: int(d >> 32 & 0xff), flag: int(d >> 40 & 3), move: int(d>>42&0x3ff) - 1}, true
}

func (t *htable) put(key uint64, e hentry) {
	i := (key & t.mask) * 2
	d := uint64(uint32(int32(e.score))) | uint64(min(e.depth, 255))<<32 | uint64(e.flag)<<40 | uint64(e.move+1)<<42 | 1<<63
	atomic.StoreUint64(&t.slots[i], key^d)
	atomic.StoreUint64(&t.slots[i+1], d)
}

// stopFlag is set when a search must end.
type stopFlag = atomic.Bool
