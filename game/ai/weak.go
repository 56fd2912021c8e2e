package ai

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

//go:generate go run ./internal/weakgen -out weak7x6.txt -plies 5

// weak7x6 is the table of weak results on the standard board (7 columns, 6
// rows, connect 4): every position of up to weakPlies discs that the game
// can reach (no line made), a position and its mirror image once, with its
// result for the player to move. One line per position, "moves result":
// moves written as columns from 1 ("-" for the empty board), the smallest
// such string in dictionary order among the position's move orders and
// those of its mirror image, result 1 (the player to move wins), 0 (a draw)
// or -1 (a loss), both sides playing perfectly. Made by GenerateWeak (go
// generate, see internal/weakgen): the positions of weakPlies discs solved
// weakly with the exact solver, those with fewer derived from them.
//
//go:embed weak7x6.txt
var weak7x6 []byte

// weakTable maps positions of one board to their weak results.
type weakTable struct {
	g *geometry
	// plies is the most discs of a position in the table: every reachable
	// position with plies discs or fewer is in it.
	plies  int
	values map[uint64]int8 // by canonical key: 1, 0 or -1 for the player to move
}

var (
	weakOnce   sync.Once
	weakParsed *weakTable
)

// embeddedWeak returns the parsed 7x6 table of weak results (parsed once,
// shared).
func embeddedWeak() *weakTable {
	weakOnce.Do(func() {
		w, err := parseWeak(bytes.NewReader(weak7x6))
		if err != nil {
			panic("ai: the embedded table of weak results is corrupt: " + err.Error())
		}
		weakParsed = w
	})
	return weakParsed
}

// parseWeak reads a table of weak results in the format of weak7x6 (lines
// starting with # are comments). It returns an error naming the line of a
// move string that is not a game or a result other than 1, 0 or -1.
func parseWeak(r io.Reader) (*weakTable, error) {
	g, _ := newGeometry(6, 7, 4)
	w := &weakTable{g: g, values: map[uint64]int8{}}
	err := readPositions(r, g, "weak table", 2, func(line int, p position, f []string) error {
		if len(f) != 2 {
			return fmt.Errorf("weak table line %d: %q", line, strings.Join(f, " "))
		}
		v, err := strconv.Atoi(f[1])
		if err != nil || v < -1 || v > 1 {
			return fmt.Errorf("weak table line %d: result %q is not 1, 0 or -1", line, f[1])
		}
		w.values[p.canonicalKey()] = int8(v)
		w.plies = max(w.plies, p.moves)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return w, nil
}

// lookup returns the weak result (1, 0, -1) of p for the player to move, if
// the table holds it.
func (w *weakTable) lookup(p *position) (int, bool) {
	v, ok := w.values[p.canonicalKey()]
	return int(v), ok
}

// WeakOptions configures GenerateWeak.
type WeakOptions struct {
	// Plies is the most discs of a position in the table (1 to 8).
	Plies int
	// Limit is how many positions of the order GenerateWeak follows it
	// solves (the positions the opening book settles included); 0 means
	// all of them.
	Limit int
	// From is how many positions at the start of the order a run leaves
	// to another (0 for none), so that two runs can share the work; the
	// table is made by a run from 0 given both runs' Progress as Done.
	From int
	// TableMB is the solver's table size in MiB; 0 means DefaultTableMB. The
	// table is kept from one position to the next: neighbours in the order
	// share much of their search.
	TableMB int
	// Done holds the lines a previous, interrupted run wrote to Progress
	// (nil for none): their positions are not solved again.
	Done io.Reader
	// Progress, when set, receives the line of each position as it is
	// solved, in the table's format, so that a run can resume.
	Progress io.Writer
	// Log, when set, receives one line per position solved, with its time.
	Log io.Writer
	// Reverse solves the positions of the run (From to Limit) last first,
	// so that two runs can meet in the middle of a range.
	Reverse bool
	// DoneOnly makes the table of what Done holds, the book and what
	// follows from them, solving nothing: the table of runs that shared
	// the work and were stopped.
	DoneOnly bool
	// Made says how the table was made, for its header (the commands);
	// empty for go generate's.
	Made string
}

// weakNode is a position of the table being made.
type weakNode struct {
	moves []int
	p     position
}

// weakLayers lists the reachable positions of g by number of discs, up to
// plies, a position and its mirror image once, each with the smallest move
// string (in dictionary order) that reaches it or its mirror image.
func weakLayers(g *geometry, plies int) [][]weakNode {
	layers := make([][]weakNode, plies+1)
	layers[0] = []weakNode{{}}
	for d := 0; d < plies; d++ {
		seen := map[uint64]bool{}
		// Parents in dictionary order, children in column order: the layer
		// comes out in dictionary order, and the first string met for a
		// position is its smallest.
		for _, n := range layers[d] {
			for c := 0; c < g.columns; c++ {
				if !g.canPlay(&n.p, c) || g.winsNow(&n.p, c) {
					continue
				}
				q := n.p
				g.playColumn(&q, c)
				if k := q.canonicalKey(); !seen[k] {
					seen[k] = true
					layers[d+1] = append(layers[d+1], weakNode{moves: append(append([]int(nil), n.moves...), c), p: q})
				}
			}
		}
	}
	return layers
}

// weakOrder returns the reachable positions of 1 to plies discs in the
// order GenerateWeak solves them: those of up to 3 discs first, fewer discs
// first (every match passes through them), then the others by how near the
// centre their discs are (the sum over the discs of their distance to the
// middle column: players meet those positions most) and then fewer discs
// first; ties by their moves, centre columns first.
func weakOrder(g *geometry, layers [][]weakNode) []weakNode {
	var order []weakNode
	for _, layer := range layers[1:] {
		order = append(order, layer...)
	}
	rank := make([]byte, g.columns)
	for i := 0; i < g.columns; i++ {
		rank[g.order[i]] = byte(i)
	}
	type sortKey struct {
		plies, distance int
		name            string
	}
	keys := make([]sortKey, len(order))
	for i, n := range order {
		b := make([]byte, len(n.moves))
		d := 0
		for j, c := range n.moves {
			b[j] = rank[c]
			d += abs(c - g.columns/2)
		}
		keys[i] = sortKey{len(n.moves), d, string(b)}
	}
	idx := make([]int, len(order))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool {
		x, y := keys[idx[a]], keys[idx[b]]
		if (x.plies <= 3 || y.plies <= 3) && x.plies != y.plies {
			return x.plies < y.plies
		}
		if x.distance != y.distance {
			return x.distance < y.distance
		}
		if x.plies != y.plies {
			return x.plies < y.plies
		}
		return x.name < y.name
	})
	out := make([]weakNode, len(order))
	for i, j := range idx {
		out[i] = order[j]
	}
	return out
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// GenerateWeak writes a table of weak results of the 7x6 board to out in
// the format of weak7x6, shallow positions first and each layer in
// dictionary order, after comment lines that say how it was made.
//
// It follows the reachable positions of 1 to opts.Plies discs in the order
// of weakOrder (fewer discs first, then nearer the centre), up to
// opts.Limit of them: a position the opening book holds takes the book's
// result, any other is solved weakly with the exact solver (one worker,
// the table kept from one position to the next). The empty board takes the
// book's result too. Then the results of the positions not solved follow,
// where they can, from the results of the positions one disc deeper, by
// negamax, repeated from the deepest layer up: a position is won when a
// move completes a line or leaves the opponent a lost position, and lost
// or drawn when every move's result is known. So the table is exact, and
// with no limit it holds every reachable position of up to opts.Plies
// discs. It writes nothing to out until then, and returns ctx's error when
// ctx ends first (opts.Progress then holds what was solved), and an error
// for opts.Plies outside 1 to 8.
func GenerateWeak(ctx context.Context, out io.Writer, opts WeakOptions) error {
	if opts.Plies < 1 || opts.Plies > 8 {
		return fmt.Errorf("weak table of %d plies: want 1 to 8", opts.Plies)
	}
	s, err := NewSolver(6, 7, 4, SolverOptions{TableMB: opts.TableMB, Workers: 1})
	if err != nil {
		return err
	}
	g := s.g
	have := map[string]int{}
	if opts.Done != nil {
		sc := bufio.NewScanner(opts.Done)
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			if len(f) != 2 || f[0][0] == '#' {
				continue
			}
			if v, err := strconv.Atoi(f[1]); err == nil {
				have[f[0]] = v
			}
		}
	}
	bk := embeddedBook()
	layers := weakLayers(g, opts.Plies)
	values := map[uint64]int{}
	if e, ok := bk.entries[layers[0][0].p.canonicalKey()]; ok {
		values[layers[0][0].p.canonicalKey()] = int(e.score)
	}
	order := weakOrder(g, layers)
	if opts.Limit > 0 && opts.Limit < len(order) {
		order = order[:opts.Limit]
	}
	solved := 0
	for k := range order {
		i := k
		if opts.Reverse {
			i = len(order) - 1 - k
		}
		n := order[i]
		if err := ctx.Err(); err != nil {
			return err
		}
		if i < opts.From {
			if v, ok := have[movesString(n.moves)]; ok {
				values[n.p.canonicalKey()] = v
				solved++
			}
			continue
		}
		key := n.p.canonicalKey()
		if e, ok := bk.entries[key]; ok {
			values[key] = int(e.score)
			continue
		}
		name := movesString(n.moves)
		v, ok := have[name]
		if !ok && opts.DoneOnly {
			continue
		}
		if !ok {
			start := time.Now()
			r, err := s.solve(ctx, n.p, true, nil)
			if err != nil {
				return err
			}
			v = r.Score
			if opts.Progress != nil {
				if _, err := fmt.Fprintf(opts.Progress, "%s %d\n", name, v); err != nil {
					return err
				}
			}
			if opts.Log != nil {
				fmt.Fprintf(opts.Log, "%d/%d %s %d %.3fs\n", i+1, len(order), name, v, time.Since(start).Seconds())
			}
		}
		values[key] = v
		solved++
	}
	derived := 0
	for d := opts.Plies - 1; d >= 0; d-- {
		for _, n := range layers[d] {
			key := n.p.canonicalKey()
			if _, ok := values[key]; ok {
				continue
			}
			if v, ok := weakNegamax(g, &n.p, values); ok {
				values[key] = v
				derived++
			}
		}
	}
	var sb strings.Builder
	total := 0
	for _, layer := range layers {
		total += len(layer)
	}
	made := opts.Made
	if made == "" {
		made = fmt.Sprintf("go generate ./game/ai (internal/weakgen -plies %d)", opts.Plies)
	}
	fmt.Fprintf(&sb, "# Weak results (1 win, 0 draw, -1 loss for the player to move) of positions of\n"+
		"# 7x6 connect 4 with up to %d discs, a position and its mirror image once: %d of the %d\n"+
		"# reachable ones (%d solved, %d from the opening book, %d derived from the others).\n"+
		"# Made by %s; see weak.go.\n",
		opts.Plies, len(values), total, solved, len(values)-solved-derived, derived, made)
	for _, layer := range layers {
		var names []string
		byName := map[string]int{}
		for _, n := range layer {
			v, ok := values[n.p.canonicalKey()]
			if !ok {
				continue
			}
			name := movesString(n.moves)
			names = append(names, name)
			byName[name] = v
		}
		sort.Strings(names)
		for _, name := range names {
			fmt.Fprintf(&sb, "%s %d\n", name, byName[name])
		}
	}
	_, err = io.WriteString(out, sb.String())
	return err
}

// weakNegamax returns the weak result of p (which must not be full) from
// the results of the positions its moves reach, in values by canonical
// key, and whether they settle it: 1 when a move completes a line or
// leaves a lost position, else the best of the negated results when every
// move's is known.
func weakNegamax(g *geometry, p *position, values map[uint64]int) (int, bool) {
	best, all := -1, true
	for c := 0; c < g.columns; c++ {
		if !g.canPlay(p, c) {
			continue
		}
		if g.winsNow(p, c) {
			return 1, true
		}
		q := *p
		g.playColumn(&q, c)
		v, ok := values[q.canonicalKey()]
		switch {
		case !ok:
			all = false
		case v < 0:
			return 1, true
		default:
			best = max(best, -v)
		}
	}
	return best, all
}
