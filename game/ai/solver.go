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

// etcAfter is how many interior nodes a worker explores in one solve before
// it looks children up in the table (enhanced transposition cutoff): in the
// table a solve begins with, empty or holding other positions, nearly every
// look-up misses and each costs a trip to memory (a small search of Pons'
// Begin-Easy set took 1.7 times as long with them; docs/ai.md, "What each
// idea pays").
var etcAfter uint64 = 1 << 15

// nearEmpty is the most empty cells a position may have to be kept in the
// small table, which stays in the processor's cache, when the main table
// is larger than 64 MiB: most nodes lie near the end of the game, and their
// entries are short-lived. nearEmptySmall is the same with a main table of
// 64 MiB or less (the bot's), where more positions in the small table took
// 0.70 to 0.89 of the time on Pons' sets; with a 1 GiB table they cost the
// empty board's weak solve 13 % more nodes (docs/ai.md, "What each idea
// pays").
var nearEmpty, nearEmptySmall = 18, 21

// nearReach returns the most empty cells of a position kept in the small
// table beside main table t.
func nearReach(t *table) int {
	if uint64(len(t.slots)) <= 64<<20/8 {
		return nearEmptySmall
	}
	return nearEmpty
}

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
	g    *geometry
	t    *table
	near *table // for positions with at most nearMost empty cells
	// nearMost is the most empty cells of a position kept in near
	// (nearReach).
	nearMost int
	nodes    uint64       // interior nodes: positions whose moves are searched (c4's count)
	calls    uint64       // negamax calls, counted as Pons counts them
	stop     *atomic.Bool // set when the search must end
	quit     *atomic.Bool // for a helper: set, never cleared, when it must end for good; for the main worker: set when a helper settled the probe (probeBoard.done)
	// variant, for a helper, reorders the first moves of every node near
	// the root, so that the helper explores other subtrees first and fills
	// the shared table for the others (lazy SMP); 0 for the main worker.
	variant   int
	rootMoves int
	// allParity, for a helper, is the parity of the distance from the
	// root of the positions where it reorders moves (see helperOddOnly):
	// those where every move must be searched, 1 (the replies) for a probe
	// expected to fail high, 0 (the root and the replies' replies) for one
	// expected to fail low.
	allParity int
	// marks, with helpers, is shared by the workers of a solve (see
	// markPlies).
	marks *marks
	// extra, when set, is called every checkEvery nodes by the main worker
	// (to start a helper once a search proves long).
	extra func()
}

// Scores follow Pons' convention: from the point of view of the player to
// move, a win with the k-th disc of the winner scores (cells/2 + 1 - k), or
// more precisely (cells + 1 - plies)/2 with plies the discs on the board
// before the winning one; a loss is the negative of the opponent's win; a
// draw is 0.

// Faults are test-only knobs: each one removes the guard of one pruning
// rule, making it unsound, so that a test can watch a wrong score appear
// (guard_test.go). They are all off outside tests.
const (
	faultLower       = 1 << iota // the opponent is assumed unable to win with their next two discs
	faultUpper                   // the player is assumed unable to win with their next two discs
	faultDraw                    // a player is bounded by a draw whether or not a line is still open to them
	faultClaimeven               // the claimeven bound applies whether or not the player can still make a line
	faultParity                  // the claimeven bound applies with either player to move
	faultTable                   // a table entry's lower bound is taken for an exact score
	faultETC                     // a child's lower bound in the table cuts off its parent
	faultBlock                   // a single immediate threat of the opponent is not blocked at once
	faultWinTwo                  // the player is assumed unable to win with their next two discs whatever their moves
	faultWinNow                  // a move that leaves the opponent a single non-losing reply is taken for a win with the next disc but one
	faultChildParity             // claimeven is tried on every child, whoever moves in it
	faultETCForced               // the enhanced transposition cutoff looks up the grandchild after one of several replies, as if it were forced
	faultWinThree                // a move after whose forced reply the opponent has a single non-losing reply to a move of the player's is taken for a win with the third disc
)

// faults holds the knobs set by a test; 0 outside tests.
var faults uint32

// negamax returns the score of p within [alpha, beta] (alpha < beta):
// the exact score when it lies strictly inside, otherwise a bound on the
// side of the window it fell (fail-soft). The player to move in p must not
// be able to complete a line at once; children are only created through
// nonLosing moves, which keeps that true. A position with a single move
// that does not lose at once passes straight to its child: only positions
// whose moves are searched count as interior nodes, as c4 counts its
// nodes; every call counts in calls, as Pons counts his.
//
// opp is the opponent's winning cells in p, g.winning(p.cur^p.mask,
// p.mask): the parent has them at hand from ordering its moves, so that
// each position's are computed once.
func (s *searcher) negamax(p position, alpha, beta int, opp uint64) int {
	s.calls++
	g := s.g
	possible := g.nonLosingWith(&p, opp)
	if faults&faultBlock != 0 {
		possible = g.possible(&p) &^ (opp >> 1)
		if possible == 0 {
			possible = g.nonLosing(&p)
		}
	}
	if possible == 0 { // the opponent wins with the next disc
		return -(g.cells - p.moves) / 2
	}
	if p.moves >= g.cells-2 { // neither side can win in the last two discs
		return 0
	}
	lower := -(g.cells - 2 - p.moves) / 2 // the opponent cannot win next disc
	upper := (g.cells - 1 - p.moves) / 2  // we cannot win with this disc
	if faults&(faultLower|faultUpper) != 0 {
		if faults&faultLower != 0 {
			lower = -(g.cells - 4 - p.moves) / 2
		}
		if faults&faultUpper != 0 {
			upper = (g.cells - 3 - p.moves) / 2
		}
	}
	if alpha < lower {
		alpha = lower
		if alpha >= beta {
			return alpha
		}
	}
	if beta > upper {
		beta = upper
		if alpha >= beta {
			return beta
		}
	}
	if possible&(possible-1) == 0 && !noForced {
		// A single move does not lose at once: play it, no node.
		q := p
		g.play(&q, possible, g.columnOf(possible))
		return -s.negamax(q, -beta, -alpha, g.winning(p.cur|possible, q.mask))
	}
	// A player with no window left free of the other's discs cannot win:
	// a draw is the best they can hope for.
	if upper > 0 && (!g.canStillWin(p.cur^p.mask) || faults&faultDraw != 0) {
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
	// Claimeven (Allis): on a board of even rows, with the first player to
	// move, the opponent can answer every move in the same column, taking
	// the even rows' cells, and pair the columns of odd height: a bound.
	if g.evenRows && !noClaimeven && upper > -1 && (p.moves&1 == 0 || faults&faultParity != 0) {
		if u := g.claimeven(&p); u < upper {
			upper = u
			if beta > upper {
				beta = upper
				if alpha >= beta {
					return beta
				}
			}
		}
	}
	key, mirrored := p.cur+p.mask, false
	if mk := p.mcur + p.mmask; mk < key {
		key, mirrored = mk, true
	}
	ttColumn := -1
	t := s.tableFor(g.cells - p.moves)
	if lo, hi, c, ok := t.get(key, g.salt); ok {
		if faults&faultTable != 0 {
			hi = lo
		}
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
		// nodes instead of holding it for the scheduler's 10 ms time slice.
		yield()
	}
	alpha0, nodes0 := alpha, s.nodes

	// Order the moves: the table's best move first, then by the threats
	// the move leaves us (ordering, below), centre first among equals.
	var list [maxColumns64]uint16
	var childOpp [maxColumns64]uint64 // each child's opp, by column
	n := 0
	winsInTwo := false // a move after which the opponent loses at once
	// forcing: the moves after which the opponent has a single reply
	// that does not lose at once, a bit per column.
	var forcing uint64
	// The first player's odd threats count more away from the end
	// (moveScore): the cells that weigh, once for every move.
	var odd uint64
	if p.moves&1 == 0 && g.cells-p.moves >= oddThreatsFrom && !noOddThreats {
		odd = g.oddRows
	}
	for rank := 0; rank < g.columns; rank++ {
		c := g.order[rank]
		m := possible & g.column[c]
		if m == 0 {
			continue
		}
		w := g.winning(p.cur|m, p.mask|m)
		childOpp[c] = w
		if r := g.nonLosingAfter(p.mask|m, w); r == 0 || (faults&faultWinNow != 0 && r&(r-1) == 0) {
			if !noWinNow && faults&faultWinTwo == 0 {
				// The opponent loses at once: a win with the
				// player's second disc, the best left (upper).
				v := (g.cells - 1 - p.moves) / 2
				s.store(t, key, mirrored, v, v, c, s.nodes-nodes0)
				return v
			}
			winsInTwo = true
		} else if r&(r-1) == 0 {
			forcing |= 1 << c
		}
		// Claimeven on the child, whose player to move is then the
		// first player: its upper bound (0 or -1 when it says
		// anything) is the move's lower bound, a cutoff before any
		// move is searched (c4's static evaluation of children).
		if g.evenRows && beta <= 1 && (p.moves&1 == 1 || faults&faultChildParity != 0) && !noChildClaimeven && !noClaimeven {
			if u := g.claimevenOf(p.cur|m, p.mask|m); -u >= beta {
				s.store(t, key, mirrored, max(lower, -u), upper, c, s.nodes-nodes0)
				return -u
			}
		}
		var score int
		if c == ttColumn {
			score = 1023
		} else {
			score = s.moveScore(&p, m, opp, w, odd)
		}
		k := uint16(score<<5 | (31 - rank))
		i := n
		for ; i > 0 && list[i-1] < k; i-- {
			list[i] = list[i-1]
		}
		list[i] = k
		n++
	}
	// No move leaves the opponent lost at once: the player cannot win
	// with their next two discs, only with the third (c4's bound).
	if (!winsInTwo || faults&faultWinTwo != 0) && !noWinTwo {
		if u := (g.cells - 3 - p.moves) / 2; u < upper {
			upper = u
			if beta > upper {
				beta = upper
				if alpha >= beta {
					s.store(t, key, mirrored, lower, upper, ttColumn, s.nodes-nodes0)
					return beta
				}
			}
		}
		// A move whose single reply leaves the player a move after
		// which the opponent loses at once wins with the third disc:
		// the best left (c4's static evaluation follows forced moves).
		if forcing != 0 && !noWinThree && g.cells-p.moves >= 5 {
			if c := s.winThree(&p, forcing, &childOpp); c >= 0 {
				v := (g.cells - 3 - p.moves) / 2
				s.store(t, key, mirrored, v, v, c, s.nodes-nodes0)
				return v
			}
		}
	}
	// Enhanced transposition cutoff: a child the table already proves good
	// enough ends the search here without exploring any move. Looking the
	// children up together also lets the processor fetch their entries in
	// parallel, before the recursive calls need them. A child with a
	// single reply that does not lose at once has no entry (it passes
	// straight to that reply): its grandchild is looked up instead.
	if g.cells-p.moves > etcMinEmpty && s.nodes > etcAfter {
		ct, gt := s.tableFor(g.cells-p.moves-1), s.tableFor(g.cells-p.moves-2) // children's, grandchildren's
		for m := possible; m != 0; m &= m - 1 {
			move := m & -m
			c := g.columnOf(move)
			q := p
			g.play(&q, move, c)
			if forcing&(1<<c) != 0 && !noETCForced || faults&faultETCForced != 0 {
				r := g.nonLosingAfter(p.mask|move, childOpp[c])
				if r == 0 {
					continue
				}
				r &= -r // the reply (under faultETCForced, one of several)
				g.play(&q, r, g.columnOf(r))
				if lo, hi, _, ok := gt.get(q.canonicalKey(), g.salt); ok {
					if faults&faultETC != 0 {
						lo = hi
					}
					if lo >= beta {
						s.store(t, key, mirrored, max(lower, lo), upper, c, 1)
						return lo
					}
				}
				continue
			}
			if lo, hi, _, ok := ct.get(q.canonicalKey(), g.salt); ok {
				if faults&faultETC != 0 {
					hi = lo
				}
				if -hi >= beta {
					s.store(t, key, mirrored, max(lower, -hi), upper, c, 1)
					return -hi
				}
			}
		}
	}

	// hint, when not -1, is the move the table keeps as this position's
	// best when a move cuts off the search instead of the cutting one:
	// for a helper that put another move first, the common order's first
	// (the table's old hint if any), so that its order leaves no trace.
	hint := -1
	if s.variant > 0 && p.moves < s.rootMoves+3 && n > 1 && (!helperOddOnly || (p.moves-s.rootMoves)&1 == s.allParity) {
		j := s.swapWith(p.moves, n)
		if !helperHints {
			hint = g.order[31-int(list[0]&31)]
		}
		list[0], list[j] = list[j], list[0]
	}

	best := -1
	// With helpers, near the root, a move another worker is searching
	// waits until the others are done (ABDADA's deferral): by then the
	// table likely holds its result.
	mk := s.marks
	if mk != nil && p.moves >= s.rootMoves+markPlies {
		mk = nil
	}
	var deferred uint64 // the indices in list of the moves put off, in order
	for j, nd := 0, 0; j < n+nd; j++ {
		i := j
		if j >= n {
			i = bits.TrailingZeros64(deferred)
			deferred &= deferred - 1
		}
		c := g.order[31-int(list[i]&31)]
		q := p
		g.play(&q, possible&g.column[c], c)
		var ck uint64
		if mk != nil {
			ck = q.canonicalKey()
			if j > 0 && j < n && mk.busy(ck) {
				deferred |= 1 << j
				nd++
				continue
			}
			mk.enter(ck)
		}
		score := -s.negamax(q, -beta, -alpha, childOpp[c])
		if mk != nil {
			mk.leave(ck)
		}
		if score >= beta {
			if hint >= 0 {
				// A helper's cut, maybe with a move it put first: any
				// move cuts in a window far from the score, and the
				// next search would take the helper's order for the
				// position's best move. The hint the main worker
				// starts from is as good a guess.
				c = hint
			}
			s.store(t, key, mirrored, max(lower, score), upper, c, s.nodes-nodes0)
			return score
		}
		if score > alpha {
			alpha, best = score, c
		}
	}
	if alpha > alpha0 {
		// Strictly inside the window: the exact score.
		s.store(t, key, mirrored, alpha, alpha, best, s.nodes-nodes0)
	} else {
		if best < 0 {
			best = ttColumn
		}
		s.store(t, key, mirrored, lower, min(upper, alpha), best, s.nodes-nodes0)
	}
	return alpha
}

// winThree returns a column of the player to move in p after which the
// opponent has a single reply that does not lose at once (forcing, a bit
// per column; childOpp, the player's winning cells after each move) and
// the player then a move after which the opponent loses at once: a win
// with the player's third disc; -1 for none. p must leave at least five
// empty cells.
func (s *searcher) winThree(p *position, forcing uint64, childOpp *[maxColumns64]uint64) int {
	g := s.g
	for f := forcing; f != 0; f &= f - 1 {
		c := bits.TrailingZeros64(f)
		m := g.possible(p) & g.column[c]
		r := g.nonLosingAfter(p.mask|m, childOpp[c])
		mine, mask := p.cur|m, p.mask|m|r
		theirs := mask &^ mine
		nl := g.nonLosingAfter(mask, g.winning(theirs, mask))
		for ; nl != 0; nl &= nl - 1 {
			m2 := nl & -nl
			w := g.winning(mine|m2, mask|m2)
			if x := g.nonLosingAfter(mask|m2, w); x == 0 || (faults&faultWinThree != 0 && x&(x-1) == 0) {
				return c
			}
		}
	}
	return -1
}

// marks holds the keys of positions some worker is searching, near the
// root, so that the others search other moves first (after Weill's
// ABDADA, 1996). A slot keeps one key; a collision only loses a mark,
// which changes an order, never a score.
type marks struct {
	slots [1 << 12]atomic.Uint64
}

func (m *marks) slot(key uint64) *atomic.Uint64 {
	return &m.slots[key*hashMul>>52]
}

func (m *marks) busy(key uint64) bool { return m.slot(key).Load() == key }
func (m *marks) enter(key uint64)     { m.slot(key).Store(key) }
func (m *marks) leave(key uint64)     { m.slot(key).CompareAndSwap(key, 0) }

// swapWith returns which of a helper's n > 1 ordered moves it explores
// first, at a node with moves discs: the second for the first helper,
// others for the next ones, varying with depth. With helperOddOnly (the
// default) a helper reorders only the replies to the root's moves.
func (s *searcher) swapWith(moves, n int) int {
	return 1 + (s.variant-1+moves-s.rootMoves)%(n-1)
}

// moveScore rates the move m (one bit) of the player to move in p for the
// move ordering, from 0 to 1000: the cells where the move leaves the
// player a line to complete (Pons' count), the ones right above a
// playable cell, which the opponent cannot play under, counting more
// (after c4's ordering), as do the first player's threats on odd rows
// (counted from 1), and none directly above an opponent's threat (opp),
// which could never be played.
//
// mine is the player's winning cells after the move, g.winning(p.cur|m,
// p.mask|m); odd is the cells whose threats count four times too (the odd
// rows for the first player with at least oddThreatsFrom empty cells, else
// none).
func (s *searcher) moveScore(p *position, m, opp, mine, odd uint64) int {
	g := s.g
	mask := p.mask | m
	w := mine &^ (opp << 1)
	next := (mask + g.bottom) & g.board
	switch orderBy {
	case 1:
		return bits.OnesCount64(mine)
	case 2:
		return bits.OnesCount64(w)
	case 3:
		return 3*bits.OnesCount64(w) + 12*bits.OnesCount64(w&(next<<1)) + 5*bits.OnesCount64(w&(next<<2))
	}
	// The first player's threats on odd rows (counted from 1) count four
	// times too, with at least oddThreatsFrom empty cells (odd): in the end
	// game the second player's follow-up takes the even rows, and an odd
	// threat is what wins the first player the game (Allis' zugzwang rules).
	score := bits.OnesCount64(w) + 3*bits.OnesCount64(w&(next<<1))
	if odd != 0 {
		score += 3 * bits.OnesCount64(w&odd)
	}
	return min(score, 1000)
}

// store records bounds and a best column (in the position's own
// orientation, -1 for none) under the canonical key.
func (s *searcher) store(t *table, key uint64, mirrored bool, lower, upper, column int, nodes uint64) {
	if mirrored && column >= 0 {
		column = s.g.columns - 1 - column
	}
	t.put(key, s.g.salt, lower, upper, column, nodes)
}

// tableFor returns the table that keeps positions of empty empty cells:
// the small one near the end of the game (at most nearMost), else the main
// one.
func (s *searcher) tableFor(empty int) *table {
	if empty <= s.nearMost {
		return s.near
	}
	return s.t
}

// rootTrace, when set (by tests and benchmarks), is called by rootProbe
// before (done false) and after (done true, with its score) each root move
// a worker searches, with the worker's variant (0 for the main worker) and
// its interior nodes so far. A move cut short by a stop never reports done.
var rootTrace func(variant, column int, done bool, score int, nodes uint64)

// rootProbe is negamax at the root: it searches every move (no table
// cutoff) and also returns the column whose score decided the result: the
// move that failed high, or the best one seen when all failed low (-1 when
// no move beat alpha).
func (s *searcher) rootProbe(p position, alpha, beta int) (score, column int) {
	s.nodes++
	s.calls++
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
	if s.variant > 0 && n > 1 && (!helperOddOnly || s.allParity == 0) {
		j := s.swapWith(p.moves, n)
		cols[0], cols[j] = cols[j], cols[0]
	}
	best, bestColumn := -1<<30, -1
	for i := 0; i < n; i++ {
		c := cols[i]
		q := p
		m := possible & g.column[c]
		g.play(&q, m, c)
		if rootTrace != nil {
			rootTrace(s.variant, c, false, 0, s.nodes)
		}
		sc := -s.negamax(q, -beta, -alpha, g.winning(p.cur|m, q.mask))
		if rootTrace != nil {
			rootTrace(s.variant, c, true, sc, s.nodes)
		}
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
