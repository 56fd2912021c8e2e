// Package matching finds a maximum-weight matching in a general (not
// necessarily bipartite) undirected graph: a set of edges, no two sharing a
// vertex, whose weights add up to the most. With maxCardinality it finds,
// among the matchings with the most edges, one of maximum weight: that is
// how a Swiss round pairs every player and, among the complete pairings, the
// best one.
//
// The algorithm is Jack Edmonds' blossom method for augmenting paths ("Paths,
// trees, and flowers", 1965) with his primal-dual method for weights
// ("Maximum matching and a polyhedron with 0,1-vertices", 1965), in the
// O(n³) formulation of Zvi Galil, "Efficient algorithms for finding maximum
// matching in graphs" (ACM Computing Surveys 18(1), 1986), section 3. The
// bookkeeping (edge endpoints numbered 2k and 2k+1, least-slack edges kept
// per vertex and per blossom so that each dual update costs O(n)) follows
// the well-known formulation of Joris van Rantwijk's mwmatching.py, which was
// read as a reference; the code here is written for this package. The
// terms (S- and T-blossoms, delta1 to delta4, stages and substages) are
// Galil's.
//
// Weights are 128-bit integers (Weight) so that the algorithm is exact: the
// dual variables are kept doubled and every value stays an integer. The
// package uses the standard library only.
package matching

import (
	"errors"
	"fmt"
	"slices"
)

// MaxVertices is the largest number of vertices MaxWeight accepts.
const MaxVertices = 4096

// maxWeightBits bounds |weight| to 2^100: with at most MaxVertices vertices
// the doubled dual variables, which move by at most the largest slack per
// substage and stay within n times the largest weight of the initial ones,
// then fit easily in 127 bits.
const maxWeightBits = 100

// WeightLimit is the largest magnitude of an edge weight: 2^100.
var WeightLimit = Weight{hi: 1 << (maxWeightBits - 64)}

// ErrInvalidGraph means the graph given to MaxWeight is not one it accepts:
// a vertex count out of range, an edge with an endpoint out of range or a
// loop, the same pair of vertices twice, or a weight beyond WeightLimit.
var ErrInvalidGraph = errors.New("invalid graph")

// Edge is an undirected edge between vertices U and V (0-based, distinct)
// of weight W.
type Edge struct {
	U, V int
	W    Weight
}

// MaxWeight returns a maximum-weight matching of the graph with vertices
// 0..n−1 and the given edges, as mate: mate[v] is the vertex matched to v,
// or −1 when v is unmatched. With maxCardinality the matching has as many
// edges as any matching of the graph, and the greatest weight among those;
// without it, edges of negative weight are never worth taking and the
// matching may be smaller. Which of several optimal matchings is returned
// depends only on the input, so the result is deterministic. It takes
// O(n³) time and O(n + len(edges)) memory. It returns an error wrapping
// ErrInvalidGraph, and no matching, for n outside 0..MaxVertices, an
// endpoint outside 0..n−1, a loop, a pair of vertices joined twice, or a
// weight whose magnitude exceeds WeightLimit.
func MaxWeight(n int, edges []Edge, maxCardinality bool) ([]int, error) {
	s, err := solve(n, edges, maxCardinality)
	if err != nil {
		return nil, err
	}
	return s.mates(), nil
}

// check validates the graph.
func check(n int, edges []Edge) error {
	if n < 0 || n > MaxVertices {
		return fmt.Errorf("%d vertices (want 0 to %d): %w", n, MaxVertices, ErrInvalidGraph)
	}
	neg := Weight{}.Sub(WeightLimit)
	seen := make([]int, n) // seen[w] == v+1: an edge v–w was met while scanning v
	adj := make([][]int, n)
	for k, e := range edges {
		switch {
		case e.U < 0 || e.U >= n || e.V < 0 || e.V >= n:
			return fmt.Errorf("edge %d joins %d and %d, outside 0..%d: %w", k, e.U, e.V, n-1, ErrInvalidGraph)
		case e.U == e.V:
			return fmt.Errorf("edge %d is a loop at %d: %w", k, e.U, ErrInvalidGraph)
		case WeightLimit.Less(e.W) || e.W.Less(neg):
			return fmt.Errorf("edge %d weighs %v, beyond ±2^%d: %w", k, e.W, maxWeightBits, ErrInvalidGraph)
		}
		adj[e.U] = append(adj[e.U], e.V)
		adj[e.V] = append(adj[e.V], e.U)
	}
	for v, ws := range adj {
		for _, w := range ws {
			if seen[w] == v+1 {
				return fmt.Errorf("vertices %d and %d are joined twice: %w", v, w, ErrInvalidGraph)
			}
			seen[w] = v + 1
		}
	}
	return nil
}

// Labels of top-level blossoms during a stage (Galil's S and T); breadcrumb
// marks a blossom on the path traced by scanBlossom.
const (
	free       = 0
	labelS     = 1
	labelT     = 2
	breadcrumb = 4
)

// solver holds the state of one run. Vertices are 0..n−1; non-trivial
// blossoms take the numbers n..2n−1. Edge k has endpoints 2k (at U) and
// 2k+1 (at V), so p^1 is the other end of endpoint p and p/2 its edge.
type solver struct {
	n       int
	edges   []Edge
	maxCard bool
	warm    bool // started by warmStart

	endpoint []int   // the vertex at each endpoint
	neighb   [][]int // neighb[v]: the far endpoints of the edges at v
	mate     []int   // mate[v]: far endpoint of v's matched edge, or −1

	label     []int // of top-level blossoms and of vertices inside T-blossoms
	labelEnd  []int // the far endpoint of the edge through which the label came, or −1
	inBlossom []int // the top-level blossom of each vertex
	parent    []int // the blossom immediately containing each blossom, or −1
	childs    [][]int
	base      []int   // the base vertex of each blossom (−1: number unused)
	endps     [][]int // endps[b][i]: endpoint on childs[b][i]'s edge to childs[b][i+1]
	bestEdge  []int   // least-slack edge to an S-blossom (see scanNeighbours)
	bestOf    [][]int // least-slack edges of a non-trivial S-blossom to other S-blossoms
	unused    []int   // free blossom numbers
	dual      []Weight
	w2        []Weight // w2[k]: edge k's weight doubled, the unit of the duals
	allowed   []bool   // edge known to have zero slack this stage
	queue     []int    // S-vertices whose edges are still to scan
	scratch   []int
}

func solve(n int, edges []Edge, maxCard bool) (*solver, error) {
	if err := check(n, edges); err != nil {
		return nil, err
	}
	s := &solver{n: n, edges: edges, maxCard: maxCard}
	s.init()
	if len(edges) > 0 {
		s.run()
	}
	return s, nil
}

func (s *solver) init() {
	n, m := s.n, len(s.edges)
	s.endpoint = make([]int, 2*m)
	s.neighb = make([][]int, n)
	maxW := Weight{}
	for k, e := range s.edges {
		s.endpoint[2*k], s.endpoint[2*k+1] = e.U, e.V
		s.neighb[e.U] = append(s.neighb[e.U], 2*k+1)
		s.neighb[e.V] = append(s.neighb[e.V], 2*k)
		if maxW.Less(e.W) {
			maxW = e.W
		}
	}
	s.mate = filled(n, -1)
	s.label = make([]int, 2*n)
	s.labelEnd = filled(2*n, -1)
	s.inBlossom = make([]int, n)
	s.base = filled(2*n, -1)
	for v := range n {
		s.inBlossom[v] = v
		s.base[v] = v
	}
	s.parent = filled(2*n, -1)
	s.childs = make([][]int, 2*n)
	s.endps = make([][]int, 2*n)
	s.bestEdge = filled(2*n, -1)
	s.bestOf = make([][]int, 2*n)
	for b := 2*n - 1; b >= n; b-- {
		s.unused = append(s.unused, b)
	}
	// Dual variables: 2u(v) for vertices, starting at the largest weight
	// (so that every slack starts non-negative), z(b) for blossoms.
	s.dual = make([]Weight, 2*n)
	for v := range n {
		s.dual[v] = maxW
	}
	s.w2 = make([]Weight, m)
	for k, e := range s.edges {
		s.w2[k] = e.W.double()
	}
	s.allowed = make([]bool, m)
}

// warmStart replaces the uniform start with a greedy one, for
// maxCardinality only: with the weights doubled (so that every dual stays
// even, as the halving in delta3 needs), each vertex's dual starts at its
// heaviest edge and is then lowered, vertex by vertex, until one of its
// edges is tight; a greedy matching on tight edges follows (the "greedy
// initialization" of Kolmogorov's Blossom V, 2009). The duals are feasible
// and the matched edges tight, as the stages require; only single vertices
// may end with different duals, so the final duals prove the matching
// optimal when it is perfect (no single vertex), and the caller solves
// again from the uniform start otherwise.
func (s *solver) warmStart() {
	for k := range s.w2 {
		s.w2[k] = s.w2[k].double()
	}
	for v := range s.n {
		for i, p := range s.neighb[v] {
			if w := s.edges[p/2].W.double(); i == 0 || s.dual[v].Less(w) {
				s.dual[v] = w
			}
		}
	}
	for v := range s.n {
		for i, p := range s.neighb[v] {
			if d := s.w2[p/2].Sub(s.dual[s.endpoint[p]]); i == 0 || s.dual[v].Less(d) {
				s.dual[v] = d
			}
		}
	}
	for v := range s.n {
		if s.mate[v] != -1 {
			continue
		}
		for _, p := range s.neighb[v] {
			if x := s.endpoint[p]; s.mate[x] == -1 && s.slack(p/2).Sign() == 0 {
				s.mate[v], s.mate[x] = p, p^1
				break
			}
		}
	}
}

func filled(n, v int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// slack returns twice the slack of edge k, valid between vertices of
// different top-level blossoms: 2u(i) + 2u(j) − 2w.
func (s *solver) slack(k int) Weight {
	e := s.edges[k]
	return s.dual[e.U].Add(s.dual[e.V]).Sub(s.w2[k])
}

// leaves appends the vertices inside blossom b to out.
func (s *solver) leaves(b int, out []int) []int {
	if b < s.n {
		return append(out, b)
	}
	for _, c := range s.childs[b] {
		out = s.leaves(c, out)
	}
	return out
}

// assignLabel labels the top-level blossom of vertex w with t, reached
// through the edge whose far endpoint is p (−1: none). An S-blossom's
// vertices join the queue; a T-blossom's base is matched, and its mate
// becomes S.
func (s *solver) assignLabel(w, t, p int) {
	b := s.inBlossom[w]
	s.label[w], s.label[b] = t, t
	s.labelEnd[w], s.labelEnd[b] = p, p
	s.bestEdge[w], s.bestEdge[b] = -1, -1
	switch t {
	case labelS:
		s.queue = s.leaves(b, s.queue)
	case labelT:
		m := s.mate[s.base[b]]
		s.assignLabel(s.endpoint[m], labelS, m^1)
	}
}

// scanBlossom traces back from the S-vertices v and w, joined by a tight
// edge, towards the roots of their trees. If the two paths meet, the edge
// closes a new blossom and scanBlossom returns its base vertex; if they
// reach two different single vertices, the edge lies on an augmenting path
// and it returns −1.
func (s *solver) scanBlossom(v, w int) int {
	path := s.scratch[:0]
	base := -1
	for v != -1 {
		b := s.inBlossom[v]
		if s.label[b]&breadcrumb != 0 {
			base = s.base[b]
			break
		}
		path = append(path, b)
		s.label[b] = labelS | breadcrumb
		if s.labelEnd[b] == -1 {
			v = -1 // the root of this tree: a single vertex
		} else {
			t := s.inBlossom[s.endpoint[s.labelEnd[b]]] // a T-blossom
			v = s.endpoint[s.labelEnd[t]]
		}
		if w != -1 {
			v, w = w, v // alternate between the two paths
		}
	}
	for _, b := range path {
		s.label[b] = labelS
	}
	s.scratch = path[:0]
	return base
}

// addBlossom makes a new S-blossom with the given base from the two tree
// paths that edge k closes, with dual variable 0; its T-vertices become S.
func (s *solver) addBlossom(base, k int) {
	v, w := s.edges[k].U, s.edges[k].V
	bb, bv, bw := s.inBlossom[base], s.inBlossom[v], s.inBlossom[w]
	b := s.unused[len(s.unused)-1]
	s.unused = s.unused[:len(s.unused)-1]
	s.base[b] = base
	s.parent[b] = -1
	s.parent[bb] = b
	var path, endps []int
	for bv != bb { // from v's side down to the base
		s.parent[bv] = b
		path = append(path, bv)
		endps = append(endps, s.labelEnd[bv])
		v = s.endpoint[s.labelEnd[bv]]
		bv = s.inBlossom[v]
	}
	path = append(path, bb)
	slices.Reverse(path)
	slices.Reverse(endps)
	endps = append(endps, 2*k)
	for bw != bb { // then up w's side
		s.parent[bw] = b
		path = append(path, bw)
		endps = append(endps, s.labelEnd[bw]^1)
		w = s.endpoint[s.labelEnd[bw]]
		bw = s.inBlossom[w]
	}
	s.childs[b], s.endps[b] = path, endps
	s.label[b] = labelS
	s.labelEnd[b] = s.labelEnd[bb]
	s.dual[b] = Weight{}
	leaves := s.leaves(b, nil)
	for _, x := range leaves {
		if s.label[s.inBlossom[x]] == labelT {
			s.queue = append(s.queue, x) // a T-vertex turned S
		}
		s.inBlossom[x] = b
	}
	// The least-slack edge from the new blossom to each other S-blossom,
	// from the lists of its sub-blossoms or from their vertices' edges.
	bestTo := filled(2*s.n, -1)
	consider := func(k int) {
		j := s.edges[k].V // the end outside b
		if s.inBlossom[j] == b {
			j = s.edges[k].U
		}
		bj := s.inBlossom[j]
		if bj != b && s.label[bj] == labelS && (bestTo[bj] == -1 || s.slack(k).Less(s.slack(bestTo[bj]))) {
			bestTo[bj] = k
		}
	}
	for _, sub := range path {
		if s.bestOf[sub] == nil {
			for _, x := range s.leaves(sub, s.scratch[:0]) {
				for _, p := range s.neighb[x] {
					consider(p / 2)
				}
			}
		} else {
			for _, k := range s.bestOf[sub] {
				consider(k)
			}
		}
		s.bestOf[sub] = nil
		s.bestEdge[sub] = -1
	}
	best := []int{}
	for _, k := range bestTo {
		if k != -1 {
			best = append(best, k)
		}
	}
	s.bestOf[b] = best
	s.bestEdge[b] = -1
	for _, k := range best {
		if s.bestEdge[b] == -1 || s.slack(k).Less(s.slack(s.bestEdge[b])) {
			s.bestEdge[b] = k
		}
	}
}

// at returns list[j] with j taken modulo len(list), negative j counting
// from the end.
func at(list []int, j int) int {
	l := len(list)
	return list[((j%l)+l)%l]
}

// expandBlossom turns the sub-blossoms of top-level blossom b into
// top-level blossoms. At the end of a stage (endStage) sub-blossoms with a
// zero dual are expanded too; during a stage, an expanded T-blossom's
// sub-blossoms on the path from where it was reached to its base are
// relabelled T and S in turn, and the others keep the labels their vertices
// earned.
func (s *solver) expandBlossom(b int, endStage bool) {
	for _, sub := range s.childs[b] {
		s.parent[sub] = -1
		switch {
		case sub < s.n:
			s.inBlossom[sub] = sub
		case endStage && s.dual[sub].Sign() == 0:
			s.expandBlossom(sub, endStage)
		default:
			for _, x := range s.leaves(sub, s.scratch[:0]) {
				s.inBlossom[x] = sub
			}
		}
	}
	if !endStage && s.label[b] == labelT {
		childs, endps := s.childs[b], s.endps[b]
		entry := s.inBlossom[s.endpoint[s.labelEnd[b]^1]]
		j := slices.Index(childs, entry)
		step, trick := -1, 1 // even index: go backwards
		if j&1 != 0 {
			j -= len(childs) // odd index: go forwards, wrapping
			step, trick = 1, 0
		}
		p := s.labelEnd[b]
		for j != 0 {
			// Relabel the T-sub-blossom, then step over the S one.
			s.label[s.endpoint[p^1]] = free
			s.label[s.endpoint[at(endps, j-trick)^trick^1]] = free
			s.assignLabel(s.endpoint[p^1], labelT, p)
			s.allowed[at(endps, j-trick)/2] = true
			j += step
			p = at(endps, j-trick) ^ trick
			s.allowed[p/2] = true
			j += step
		}
		// The base sub-blossom becomes T without passing the label on
		// to its mate, which already has it.
		bv := at(childs, j)
		s.label[s.endpoint[p^1]], s.label[bv] = labelT, labelT
		s.labelEnd[s.endpoint[p^1]], s.labelEnd[bv] = p, p
		s.bestEdge[bv] = -1
		j += step
		for at(childs, j) != entry {
			bv := at(childs, j)
			j += step
			if s.label[bv] == labelS {
				continue // labelled S through a neighbour meanwhile
			}
			reached := -1
			for _, x := range s.leaves(bv, s.scratch[:0]) {
				if s.label[x] != free {
					reached = x
					break
				}
			}
			if reached != -1 { // reachable from outside: it becomes T
				s.label[reached] = free
				s.label[s.endpoint[s.mate[s.base[bv]]]] = free
				s.assignLabel(reached, labelT, s.labelEnd[reached])
			}
		}
	}
	s.label[b], s.labelEnd[b] = -1, -1
	s.childs[b], s.endps[b] = nil, nil
	s.base[b] = -1
	s.bestOf[b] = nil
	s.bestEdge[b] = -1
	s.unused = append(s.unused, b)
}

// augmentBlossom swaps matched and unmatched edges along the even path
// inside blossom b from vertex v to b's base, recursively through
// sub-blossoms, and makes v the new base.
func (s *solver) augmentBlossom(b, v int) {
	t := v
	for s.parent[t] != b {
		t = s.parent[t]
	}
	if t >= s.n {
		s.augmentBlossom(t, v)
	}
	childs := s.childs[b]
	i := slices.Index(childs, t)
	j := i
	step, trick := -1, 1
	if i&1 != 0 {
		j -= len(childs)
		step, trick = 1, 0
	}
	for j != 0 {
		j += step
		t = at(childs, j)
		p := at(s.endps[b], j-trick) ^ trick
		if t >= s.n {
			s.augmentBlossom(t, s.endpoint[p])
		}
		j += step
		t = at(childs, j)
		if t >= s.n {
			s.augmentBlossom(t, s.endpoint[p^1])
		}
		s.mate[s.endpoint[p]] = p ^ 1
		s.mate[s.endpoint[p^1]] = p
	}
	s.childs[b] = append(append([]int(nil), childs[i:]...), childs[:i]...)
	s.endps[b] = append(append([]int(nil), s.endps[b][i:]...), s.endps[b][:i]...)
	s.base[b] = s.base[s.childs[b][0]]
}

// augmentMatching flips the augmenting path through edge k, which joins
// two S-vertices of different trees, back to the two single roots.
func (s *solver) augmentMatching(k int) {
	for _, start := range [2][2]int{{s.edges[k].U, 2*k + 1}, {s.edges[k].V, 2 * k}} {
		v, p := start[0], start[1]
		for {
			bs := s.inBlossom[v]
			if bs >= s.n {
				s.augmentBlossom(bs, v)
			}
			s.mate[v] = p
			if s.labelEnd[bs] == -1 {
				break // reached the single root
			}
			bt := s.inBlossom[s.endpoint[s.labelEnd[bs]]]
			v = s.endpoint[s.labelEnd[bt]]
			j := s.endpoint[s.labelEnd[bt]^1]
			if bt >= s.n {
				s.augmentBlossom(bt, j)
			}
			s.mate[j] = s.labelEnd[bt]
			p = s.labelEnd[bt] ^ 1
		}
	}
}

// scanNeighbours scans the edges of S-vertex v: a tight edge to a free
// blossom grows the tree, one to another S-blossom closes a blossom or
// completes an augmenting path (it returns true after augmenting); other
// edges update the least-slack bookkeeping used by delta2 and delta3.
func (s *solver) scanNeighbours(v int) bool {
	for _, p := range s.neighb[v] {
		k, w := p/2, s.endpoint[p]
		bv, bw := s.inBlossom[v], s.inBlossom[w]
		if bv == bw {
			continue // inside one blossom
		}
		var ks Weight
		if !s.allowed[k] {
			ks = s.slack(k)
			if ks.Sign() <= 0 {
				s.allowed[k] = true
			}
		}
		switch {
		case s.allowed[k] && s.label[bw] == free:
			s.assignLabel(w, labelT, p^1)
		case s.allowed[k] && s.label[bw] == labelS:
			if base := s.scanBlossom(v, w); base >= 0 {
				s.addBlossom(base, k)
			} else {
				s.augmentMatching(k)
				return true
			}
		case s.allowed[k]:
			if s.label[w] == free { // w in a T-blossom, now reached from outside
				s.label[w] = labelT
				s.labelEnd[w] = p ^ 1
			}
		case s.label[bw] == labelS:
			if s.bestEdge[bv] == -1 || ks.Less(s.slack(s.bestEdge[bv])) {
				s.bestEdge[bv] = k
			}
		case s.label[w] == free:
			if s.bestEdge[w] == -1 || ks.Less(s.slack(s.bestEdge[w])) {
				s.bestEdge[w] = k
			}
		}
	}
	return false
}

// run performs up to n stages; each finds an augmenting path and grows the
// matching by one edge, or proves there is none worth taking.
func (s *solver) run() {
	n := s.n
	for range n {
		clear(s.label)
		for i := range s.bestEdge {
			s.bestEdge[i] = -1
		}
		for b := n; b < 2*n; b++ {
			s.bestOf[b] = nil
		}
		clear(s.allowed)
		s.queue = s.queue[:0]
		for v := range n {
			if s.mate[v] == -1 && s.label[s.inBlossom[v]] == free {
				s.assignLabel(v, labelS, -1)
			}
		}
		augmented := false
		for !augmented {
			for len(s.queue) > 0 && !augmented {
				v := s.queue[len(s.queue)-1]
				s.queue = s.queue[:len(s.queue)-1]
				augmented = s.scanNeighbours(v)
			}
			if augmented {
				break
			}
			if !s.adjustDuals() {
				break
			}
		}
		if !augmented {
			break
		}
		// End of a stage: expand the S-blossoms whose dual reached 0.
		for b := n; b < 2*n; b++ {
			if s.parent[b] == -1 && s.base[b] >= 0 && s.label[b] == labelS && s.dual[b].Sign() == 0 {
				s.expandBlossom(b, true)
			}
		}
	}
}

// adjustDuals finds no augmenting path among the tight edges, so it changes
// the duals by the largest delta that keeps them feasible (Galil's delta1
// to delta4) and acts where the minimum occurred. It returns false when no
// further improvement is possible: the optimum is reached.
func (s *solver) adjustDuals() bool {
	n := s.n
	kind, edge, blossom := 0, -1, -1
	var delta Weight
	take := func(k int, d Weight, e, b int) {
		if kind == 0 || d.Less(delta) {
			kind, delta, edge, blossom = k, d, e, b
		}
	}
	if !s.maxCard { // delta1: the least vertex dual
		for v := range n {
			take(1, s.dual[v], -1, -1)
		}
	}
	for v := range n { // delta2: least slack from an S-vertex to a free vertex
		if s.label[s.inBlossom[v]] == free && s.bestEdge[v] != -1 {
			take(2, s.slack(s.bestEdge[v]), s.bestEdge[v], -1)
		}
	}
	for b := range 2 * n { // delta3: half the least slack between S-blossoms
		if s.parent[b] == -1 && s.label[b] == labelS && s.bestEdge[b] != -1 {
			take(3, s.slack(s.bestEdge[b]).half(), s.bestEdge[b], -1)
		}
	}
	for b := n; b < 2*n; b++ { // delta4: the least z of a T-blossom
		if s.base[b] >= 0 && s.parent[b] == -1 && s.label[b] == labelT {
			take(4, s.dual[b], -1, b)
		}
	}
	if kind == 0 {
		// Only with maxCardinality: no edge left to grow on. A last
		// delta1, capped at 0, keeps the duals a certificate.
		kind = 1
		delta = s.dual[0]
		for v := 1; v < n; v++ {
			if s.dual[v].Less(delta) {
				delta = s.dual[v]
			}
		}
		if delta.Sign() < 0 {
			delta = Weight{}
		}
	}
	for v := range n {
		switch s.label[s.inBlossom[v]] {
		case labelS:
			s.dual[v] = s.dual[v].Sub(delta)
		case labelT:
			s.dual[v] = s.dual[v].Add(delta)
		}
	}
	for b := n; b < 2*n; b++ {
		if s.base[b] >= 0 && s.parent[b] == -1 {
			switch s.label[b] {
			case labelS:
				s.dual[b] = s.dual[b].Add(delta)
			case labelT:
				s.dual[b] = s.dual[b].Sub(delta)
			}
		}
	}
	switch kind {
	case 1:
		return false
	case 2:
		s.allowed[edge] = true
		i := s.edges[edge].U
		if s.label[s.inBlossom[i]] == free {
			i = s.edges[edge].V
		}
		s.queue = append(s.queue, i)
	case 3:
		s.allowed[edge] = true
		s.queue = append(s.queue, s.edges[edge].U)
	case 4:
		s.expandBlossom(blossom, false)
	}
	return true
}

// mates returns the matching as vertex → vertex (−1: unmatched).
func (s *solver) mates() []int {
	out := make([]int, s.n)
	for v, p := range s.mate {
		out[v] = -1
		if p >= 0 {
			out[v] = s.endpoint[p]
		}
	}
	return out
}
