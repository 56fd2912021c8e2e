package ai

import (
	"errors"
	"math/bits"
	"runtime"
	"sync/atomic"
)

// errStopped unwinds a search whose deadline passed or whose context ended.
// It never leaves the package: callers see the context's error instead.
var errStopped = errors.New("search stopped")

// etcMinEmpty is the fewest empty cells at which negamax looks its children
// up in the table before searching them.
var etcMinEmpty = 0

// nearEmpty is the most empty cells a position may have to be kept in the
// small table, which stays in the processor's cache: most nodes lie near the
// end of the game, and their entries are short-lived.
var nearEmpty = 18

// yield hands the processor to the goroutines waiting for it (the bot's
// interaction handlers), as searches do every few thousand nodes;
// a variable for tests to count the yields.
var yield = runtime.Gosched

// checkEvery is how many nodes a search explores between two looks at its
// stop flag; a power of two.
const checkEvery = 1 << 10

// searcher is one worker of the exact solver: negamax with alpha-beta
// pruning on a 64-bit bitboard, after Pascal Pons, "Solving Connect 4"
// (blog.gamesolver.org), which itself follows John Tromp's Fhourstones.
type searcher struct {
	g     *geometry
	t     *table
	near  *table       // for positions with at most nearEmpty empty cells
	nodes uint64       // negamax calls, counted as Pons counts them
	stop  *atomic.Bool // set when the search must end
	quit  *atomic.Bool // for a helper: set, never cleared, when it must end for good
	// variant reorders the first moves of every node near the root, so that
	// a helper worker explores other subtrees first and fills the shared
	// table for the main one (lazy SMP).
	variant   bool
	rootMoves int
	// extra, when set, is called every checkEvery nodes by the main worker
	// (to start a helper once a search proves long).
	extra func()
}

// Scores follow Pons' convention: from the point of view of the player to
// move, a win with the k-th disc of the winner scores (cells/2 + 1 - k), or
// more precisely (cells + 1 - plies)/2 with plies the discs on the board
// before the winning one; a loss is the negative of the opponent's win; a
// draw is 0.

// negamax returns the score of p within [alpha, beta] (alpha < beta):
// the exact score when it lies strictly inside, otherwise a bound on the
// side of the window it fell (fail-soft). The player to move in p must not
// be able to complete a line at once; children are only created through
// nonLosing moves, which keeps that true.
func (s *searcher) negamax(p position, alpha, beta int) int {
	s.nodes++
	if s.nodes&(checkEvery-1) == 0 {
		if s.stop.Load() || (s.quit != nil && s.quit.Load()) {
			panic(errStopped)
		}
		if s.extra != nil {
			s.extra()
		}
		// Let the goroutines waiting for this processor run first (the
		// bot's interaction handlers): a search yields every checkEvery
		// nodes (tens of microseconds) instead of holding it for the
		// scheduler's 10 ms time slice.
		yield()
	}
	g := s.g
	possible := g.nonLosing(&p)
	if possible == 0 { // the opponent wins with the next disc
		return -(g.cells - p.moves) / 2
	}
	if p.moves >= g.cells-2 { // neither side can win in the last two discs
		return 0
	}
	lower := -(g.cells - 2 - p.moves) / 2 // the opponent cannot win next disc
	if alpha < lower {
		alpha = lower
		if alpha >= beta {
			return alpha
		}
	}
	upper := (g.cells - 1 - p.moves) / 2 // we cannot win with this disc
	if beta > upper {
		beta = upper
		if alpha >= beta {
			return beta
		}
	}
	// A player with no window left free of the other's discs cannot win:
	// a draw is the best they can hope for.
	if upper > 0 && !g.canStillWin(p.cur^p.mask) {
		upper = 0
		if beta > upper {
			beta = upper
			if alpha >= beta {
				return beta
			}
		}
	}
	if lower < 0 && !g.canStillWin(p.cur) {
		lower = 0
		if alpha < lower {
			alpha = lower
			if alpha >= beta {
				return alpha
			}
		}
	}
	key, mirrored := p.cur+p.mask, false
	if mk := p.mcur + p.mmask; mk < key {
		key, mirrored = mk, true
	}
	ttColumn := -1
	t := s.t
	if g.cells-p.moves <= nearEmpty {
		t = s.near
	}
	if lo, hi, c, ok := t.get(key, g.salt); ok {
		if lo > alpha {
			alpha = lo
			if alpha >= beta {
				return alpha
			}
		}
		if hi < beta {
			beta = hi
			if alpha >= beta {
				return beta
			}
		}
		lower, upper = max(lower, lo), min(upper, hi)
		if c >= 0 {
			ttColumn = c
			if mirrored {
				ttColumn = g.columns - 1 - c
			}
		}
	}
	alpha0 := alpha

	// Enhanced transposition cutoff: a child the table already proves good
	// enough ends the search here without exploring any move. Looking the
	// children up together also lets the processor fetch their entries in
	// parallel, before the recursive calls need them.
	if g.cells-p.moves > etcMinEmpty {
		ct := s.t
		if g.cells-p.moves-1 <= nearEmpty {
			ct = s.near
		}
		for m := possible; m != 0; m &= m - 1 {
			move := m & -m
			c := g.columnOf(move)
			q := p
			g.play(&q, move, c)
			if _, hi, _, ok := ct.get(q.canonicalKey(), g.salt); ok && -hi >= beta {
				s.store(t, key, mirrored, max(lower, -hi), upper, c)
				return -hi
			}
		}
	}

	// Order the moves: the table's best move first, then by the number of
	// cells where the move leaves us a winning threat (Pons' move score),
	// centre first among equals.
	var list [maxColumns64]uint16
	n := 0
	for rank := 0; rank < g.columns; rank++ {
		c := g.order[rank]
		m := possible & g.column[c]
		if m == 0 {
			continue
		}
		var score int
		if c == ttColumn {
			score = 127
		} else {
			score = bits.OnesCount64(g.winning(p.cur|m, p.mask))
		}
		k := uint16(score<<5 | (31 - rank))
		i := n
		for ; i > 0 && list[i-1] < k; i-- {
			list[i] = list[i-1]
		}
		list[i] = k
		n++
	}
	if s.variant && p.moves < s.rootMoves+3 && n > 1 {
		list[0], list[1] = list[1], list[0]
	}

	best := -1
	for i := 0; i < n; i++ {
		c := g.order[31-int(list[i]&31)]
		q := p
		g.play(&q, possible&g.column[c], c)
		score := -s.negamax(q, -beta, -alpha)
		if score >= beta {
			s.store(t, key, mirrored, max(lower, score), upper, c)
			return score
		}
		if score > alpha {
			alpha, best = score, c
		}
	}
	if alpha > alpha0 {
		// Strictly inside the window: the exact score.
		s.store(t, key, mirrored, alpha, alpha, best)
	} else {
		if best < 0 {
			best = ttColumn
		}
		s.store(t, key, mirrored, lower, min(upper, alpha), best)
	}
	return alpha
}

// store records bounds and a best column (in the position's own
// orientation, -1 for none) under the canonical key.
func (s *searcher) store(t *table, key uint64, mirrored bool, lower, upper, column int) {
	if mirrored && column >= 0 {
		column = s.g.columns - 1 - column
	}
	t.put(key, s.g.salt, lower, upper, column)
}

// rootProbe is negamax at the root: it searches every move (no table
// cutoff) and also returns the column whose score decided the result: the
// move that failed high, or the best one seen when all failed low (-1 when
// no move beat alpha).
func (s *searcher) rootProbe(p position, alpha, beta int) (score, column int) {
	s.nodes++
	g := s.g
	possible := g.nonLosing(&p)
	if possible == 0 {
		return -(g.cells - p.moves) / 2, -1
	}
	if p.moves >= g.cells-2 {
		return 0, g.columnOf(possible & -possible)
	}
	ttColumn := -1
	key, mirrored := p.cur+p.mask, false
	if mk := p.mcur + p.mmask; mk < key {
		key, mirrored = mk, true
	}
	if _, _, c, ok := s.t.get(key, g.salt); ok && c >= 0 {
		ttColumn = c
		if mirrored {
			ttColumn = g.columns - 1 - c
		}
	}
	var cols [maxColumns64]int
	var scores [maxColumns64]int
	n := 0
	for rank := 0; rank < g.columns; rank++ {
		c := g.order[rank]
		m := possible & g.column[c]
		if m == 0 {
			continue
		}
		sc := bits.OnesCount64(g.winning(p.cur|m, p.mask))
		if c == ttColumn {
			sc = 1000
		}
		i := n
		for ; i > 0 && scores[i-1] < sc; i-- {
			cols[i], scores[i] = cols[i-1], scores[i-1]
		}
		cols[i], scores[i] = c, sc
		n++
	}
	if s.variant && n > 1 {
		cols[0], cols[1] = cols[1], cols[0]
	}
	best, bestColumn := -1<<30, -1
	for i := 0; i < n; i++ {
		c := cols[i]
		q := p
		g.play(&q, possible&g.column[c], c)
		sc := -s.negamax(q, -beta, -alpha)
		if sc > best {
			best = sc
			if sc > alpha {
				bestColumn = c
			}
		}
		if sc >= beta {
			return sc, c
		}
		if sc > alpha {
			alpha = sc
		}
	}
	return best, bestColumn
}
