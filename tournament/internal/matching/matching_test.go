package matching

import (
	"errors"
	"math/big"
	"math/rand/v2"
	"os"
	"testing"
)

// brute returns the best matching of the graph by trying every matching:
// the most edges first when maxCard, then the greatest weight. It is the
// oracle: exponential, so for small graphs only.
func brute(n int, edges []Edge, maxCard bool) (card int, weight Weight) {
	adj := make([][]Edge, n)
	for _, e := range edges {
		adj[e.U] = append(adj[e.U], e)
		adj[e.V] = append(adj[e.V], Edge{U: e.V, V: e.U, W: e.W})
	}
	used := make([]bool, n)
	bestCard, best := -1, Weight{}
	var rec func(v, c int, w Weight)
	rec = func(v, c int, w Weight) {
		for v < n && used[v] {
			v++
		}
		if v == n {
			better := bestCard == -1
			if !better && maxCard && c != bestCard {
				better = c > bestCard
			} else if !better {
				better = best.Less(w)
			}
			if better {
				bestCard, best = c, w
			}
			return
		}
		used[v] = true
		rec(v+1, c, w) // v stays single
		for _, e := range adj[v] {
			if !used[e.V] {
				used[e.V] = true
				rec(v+1, c+1, w.Add(e.W))
				used[e.V] = false
			}
		}
		used[v] = false
	}
	rec(0, 0, Weight{})
	return bestCard, best
}

// score checks that mate is a matching of the graph (symmetric, over its
// edges) and returns its size and weight.
func score(t *testing.T, n int, edges []Edge, mate []int) (int, Weight) {
	t.Helper()
	if len(mate) != n {
		t.Fatalf("mate has %d entries, want %d", len(mate), n)
	}
	w := map[[2]int]Weight{}
	for _, e := range edges {
		w[[2]int{e.U, e.V}], w[[2]int{e.V, e.U}] = e.W, e.W
	}
	card, total := 0, Weight{}
	for v, m := range mate {
		if m == -1 {
			continue
		}
		if m < 0 || m >= n || mate[m] != v {
			t.Fatalf("mate[%d] = %d but mate[%d] is not %d: %v", v, m, m, v, mate)
		}
		ew, ok := w[[2]int{v, m}]
		if !ok {
			t.Fatalf("%d and %d are matched without an edge", v, m)
		}
		if v < m {
			card++
			total = total.Add(ew)
		}
	}
	return card, total
}

// randomGraph draws a graph of n vertices whose edges each exist with
// probability density, with weights from weight.
func randomGraph(rng *rand.Rand, n int, density float64, weight func() Weight) []Edge {
	var edges []Edge
	for u := range n {
		for v := u + 1; v < n; v++ {
			if rng.Float64() < density {
				if rng.IntN(2) == 0 {
					edges = append(edges, Edge{U: u, V: v, W: weight()})
				} else {
					edges = append(edges, Edge{U: v, V: u, W: weight()})
				}
			}
		}
	}
	rng.Shuffle(len(edges), func(i, j int) { edges[i], edges[j] = edges[j], edges[i] })
	return edges
}

// weights are the kinds of weight the random graphs use: few distinct values
// (many ties, many blossoms), a wide range, negative ones, and values near
// the limit of 2^100.
var weights = []struct {
	name string
	draw func(rng *rand.Rand) Weight
}{
	{"ties", func(rng *rand.Rand) Weight { return Int(int64(1 + rng.IntN(3))) }},
	{"wide", func(rng *rand.Rand) Weight { return Int(rng.Int64N(1_000_000)) }},
	{"negative", func(rng *rand.Rand) Weight { return Int(rng.Int64N(41) - 20) }},
	{"huge", func(rng *rand.Rand) Weight {
		w, _ := Int(rng.Int64N(1 << 40)).MulInt(1 << 59)
		return w.Add(Int(rng.Int64N(1 << 62)))
	}},
}

// runs returns how many cases a property test checks: n, long (with
// CONNECTN_LONG) or a tenth of n under the race detector.
func runs(n, long int) int {
	switch {
	case os.Getenv("CONNECTN_LONG") != "":
		return long
	case raceEnabled:
		return max(1, n/10)
	}
	return n
}

// TestAgainstBruteForce compares MaxWeight with the oracle over thousands of
// random graphs of up to 10 vertices, in both modes, and checks each result
// is a matching of the graph.
func TestAgainstBruteForce(t *testing.T) {
	graphs := runs(4000, 100000)
	rng := rand.New(rand.NewPCG(27, 1))
	for i := range graphs {
		wk := weights[i%len(weights)]
		n := rng.IntN(11)
		edges := randomGraph(rng, n, 0.2+0.8*rng.Float64(), func() Weight { return wk.draw(rng) })
		for _, maxCard := range []bool{false, true} {
			mate, err := MaxWeight(n, edges, maxCard)
			if err != nil {
				t.Fatalf("graph %d: %v", i, err)
			}
			gotCard, gotW := score(t, n, edges, mate)
			wantCard, wantW := brute(n, edges, maxCard)
			if gotW.Cmp(wantW) != 0 || (maxCard && gotCard != wantCard) {
				t.Fatalf("graph %d (%s, maxCardinality %v, %d vertices, edges %v): got %d edges weighing %v, want %d weighing %v",
					i, wk.name, maxCard, n, edges, gotCard, gotW, wantCard, wantW)
			}
		}
	}
}

// verify checks the solver's final dual variables prove its matching
// optimal (Galil's complementary slackness, in doubled units): every edge has
// non-negative slack and every matched edge none, every single vertex has a
// zero dual (with maxCardinality, after adding the same offset to every
// vertex), and every blossom with a positive dual is full. A certificate
// holds for graphs far too big for the brute force.
func verify(t *testing.T, s *solver) {
	t.Helper()
	n := s.n
	offset := Weight{}
	if s.warm && !s.perfect() {
		t.Fatalf("verify of a warm start that ended with single vertices: it proves only a perfect matching optimal")
	}
	if s.maxCard {
		for v := range n {
			if s.dual[v].Less(Weight{}.Sub(offset)) {
				offset = Weight{}.Sub(s.dual[v])
			}
		}
	}
	for v := range n {
		if s.dual[v].Add(offset).Sign() < 0 {
			t.Fatalf("vertex %d has dual %v", v, s.dual[v])
		}
		if s.mate[v] == -1 && s.dual[v].Add(offset).Sign() != 0 {
			t.Fatalf("single vertex %d has dual %v (offset %v)", v, s.dual[v], offset)
		}
	}
	chain := func(v int) []int {
		out := []int{v}
		for s.parent[out[len(out)-1]] != -1 {
			out = append(out, s.parent[out[len(out)-1]])
		}
		return out
	}
	for k, e := range s.edges {
		sl := s.dual[e.U].Add(s.dual[e.V]).Sub(s.w2[k])
		cu, cv := chain(e.U), chain(e.V)
		for i, j := len(cu)-1, len(cv)-1; i >= 0 && j >= 0 && cu[i] == cv[j]; i, j = i-1, j-1 {
			sl = sl.Add(s.dual[cu[i]].double())
		}
		if sl.Sign() < 0 {
			t.Fatalf("edge %d (%v) has negative slack %v", k, e, sl)
		}
		if got := s.pricedSlack(e); got.Cmp(sl) != 0 {
			t.Fatalf("edge %d (%v): pricedSlack %v, want %v", k, e, got, sl)
		}
		matched := s.mate[e.U] != -1 && s.mate[e.U]/2 == k
		if matched && sl.Sign() != 0 {
			t.Fatalf("matched edge %d (%v) has slack %v", k, e, sl)
		}
	}
	for b := n; b < 2*n; b++ {
		if s.base[b] < 0 || s.dual[b].Sign() <= 0 {
			continue
		}
		if len(s.endps[b])%2 != 1 {
			t.Fatalf("blossom %d has an even number of sub-blossoms", b)
		}
		for i := 1; i < len(s.endps[b]); i += 2 {
			p := s.endps[b][i]
			if s.mate[s.endpoint[p]] != p^1 || s.mate[s.endpoint[p^1]] != p {
				t.Fatalf("blossom %d with dual %v is not full", b, s.dual[b])
			}
		}
	}
}

// TestCertificate checks the optimality certificate on random graphs of up
// to 120 vertices, dense and sparse, in both modes.
func TestCertificate(t *testing.T) {
	graphs := runs(150, 3000)
	rng := rand.New(rand.NewPCG(27, 2))
	for i := range graphs {
		wk := weights[i%len(weights)]
		n := 10 + rng.IntN(111)
		edges := randomGraph(rng, n, 0.02+0.98*rng.Float64(), func() Weight { return wk.draw(rng) })
		maxCard := i%2 == 0
		s, err := solve(n, edges, maxCard)
		if err != nil {
			t.Fatalf("graph %d: %v", i, err)
		}
		score(t, n, edges, s.mates())
		verify(t, s)
	}
}

// TestBlossomCases runs the graphs of van Rantwijk's test suite, each built
// to take one path through the blossom code (an S-blossom, a T-blossom
// expanded, nested blossoms relabelled and expanded), with vertex 0 unused;
// each row's want is the optimum, which the brute force confirms.
func TestBlossomCases(t *testing.T) {
	type e = [3]int64
	tests := []struct {
		name    string
		edges   []e
		maxCard bool
		want    int64 // the optimal weight
	}{
		{"single edge", []e{{0, 1, 1}}, false, 1},
		{"two edges", []e{{1, 2, 10}, {2, 3, 11}}, false, 11},
		{"path of three", []e{{1, 2, 5}, {2, 3, 11}, {3, 4, 5}}, false, 11},
		{"path of three, max cardinality", []e{{1, 2, 5}, {2, 3, 11}, {3, 4, 5}}, true, 10},
		{"negative weights", []e{{1, 2, 2}, {1, 3, -2}, {2, 3, 1}, {2, 4, -1}, {3, 4, -6}}, false, 2},
		{"negative weights, max cardinality", []e{{1, 2, 2}, {1, 3, -2}, {2, 3, 1}, {2, 4, -1}, {3, 4, -6}}, true, -3},
		{"S-blossom", []e{{1, 2, 8}, {1, 3, 9}, {2, 3, 10}, {3, 4, 7}}, false, 15},
		{"S-blossom augmented", []e{{1, 2, 8}, {1, 3, 9}, {2, 3, 10}, {3, 4, 7}, {1, 6, 5}, {4, 5, 6}}, false, 21},
		{"T-blossom", []e{{1, 2, 9}, {1, 3, 8}, {2, 3, 10}, {1, 4, 5}, {4, 5, 4}, {1, 6, 3}}, false, 17},
		{"T-blossom 2", []e{{1, 2, 9}, {1, 3, 8}, {2, 3, 10}, {1, 4, 5}, {4, 5, 3}, {1, 6, 4}}, false, 17},
		{"T-blossom 3", []e{{1, 2, 9}, {1, 3, 8}, {2, 3, 10}, {1, 4, 5}, {4, 5, 3}, {3, 6, 4}}, false, 16},
		{"nested S-blossom", []e{{1, 2, 9}, {1, 3, 9}, {2, 3, 10}, {2, 4, 8}, {3, 5, 8}, {4, 5, 10}, {5, 6, 6}}, false, 23},
		{"S relabelled and nested", []e{{1, 2, 10}, {1, 7, 10}, {2, 3, 12}, {3, 4, 20}, {3, 5, 20}, {4, 5, 25}, {5, 6, 10}, {6, 7, 10}, {7, 8, 8}}, false, 48},
		{"nested S expanded", []e{{1, 2, 8}, {1, 3, 8}, {2, 3, 10}, {2, 4, 12}, {3, 5, 12}, {4, 5, 14}, {4, 6, 12}, {5, 7, 12}, {6, 7, 14}, {7, 8, 12}}, false, 44},
		{"S relabelled T, expanded", []e{{1, 2, 23}, {1, 5, 22}, {1, 6, 15}, {2, 3, 25}, {3, 4, 22}, {4, 5, 25}, {4, 8, 14}, {5, 7, 13}}, false, 67},
		{"nested S relabelled T, expanded", []e{{1, 2, 19}, {1, 3, 20}, {1, 8, 8}, {2, 3, 25}, {2, 4, 18}, {3, 5, 18}, {4, 5, 13}, {4, 7, 7}, {5, 6, 7}}, false, 47},
		{"T in more than one way", []e{{1, 2, 45}, {1, 5, 45}, {2, 3, 50}, {3, 4, 45}, {4, 5, 50}, {1, 6, 30}, {3, 9, 35}, {4, 8, 35}, {5, 7, 26}, {9, 10, 5}}, false, 146},
		{"T in more than one way 2", []e{{1, 2, 45}, {1, 5, 45}, {2, 3, 50}, {3, 4, 45}, {4, 5, 50}, {1, 6, 30}, {3, 9, 35}, {4, 8, 26}, {5, 7, 40}, {9, 10, 5}}, false, 151},
		{"T expanded, new least-slack edge", []e{{1, 2, 45}, {1, 5, 45}, {2, 3, 50}, {3, 4, 45}, {4, 5, 50}, {1, 6, 30}, {3, 9, 35}, {4, 8, 28}, {5, 7, 26}, {9, 10, 5}}, false, 139},
		{"nested T expanded onto the path", []e{{1, 2, 45}, {1, 7, 45}, {2, 3, 50}, {3, 4, 45}, {4, 5, 95}, {4, 6, 94}, {5, 6, 94}, {6, 7, 50}, {1, 8, 30}, {3, 11, 35}, {5, 9, 36}, {7, 10, 26}, {11, 12, 5}}, false, 241},
		{"nested S relabelled, expanded", []e{{1, 2, 40}, {1, 3, 40}, {2, 3, 60}, {2, 4, 55}, {3, 5, 55}, {4, 5, 50}, {1, 8, 15}, {5, 7, 30}, {7, 6, 10}, {8, 10, 10}, {4, 9, 30}}, false, 145},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := 0
			var edges []Edge
			for _, x := range tt.edges {
				edges = append(edges, Edge{U: int(x[0]), V: int(x[1]), W: Int(x[2])})
				n = max(n, int(x[0])+1, int(x[1])+1)
			}
			s, err := solve(n, edges, tt.maxCard)
			if err != nil {
				t.Fatal(err)
			}
			_, got := score(t, n, edges, s.mates())
			if _, oracle := brute(n, edges, tt.maxCard); oracle.Cmp(Int(tt.want)) != 0 {
				t.Fatalf("the oracle says %v, the row %d", oracle, tt.want)
			}
			if got.Cmp(Int(tt.want)) != 0 {
				t.Errorf("weight %v, want %d (mate %v)", got, tt.want, s.mates())
			}
			verify(t, s)
		})
	}
}

func TestInvalidGraph(t *testing.T) {
	tooBig := WeightLimit.Add(Int(1))
	tests := []struct {
		name  string
		n     int
		edges []Edge
	}{
		{"negative vertex count", -1, nil},
		{"too many vertices", MaxVertices + 1, nil},
		{"endpoint out of range", 3, []Edge{{U: 0, V: 3, W: Int(1)}}},
		{"negative endpoint", 3, []Edge{{U: -1, V: 2, W: Int(1)}}},
		{"loop", 3, []Edge{{U: 1, V: 1, W: Int(1)}}},
		{"same pair twice", 3, []Edge{{U: 0, V: 1, W: Int(1)}, {U: 2, V: 0, W: Int(1)}, {U: 1, V: 0, W: Int(2)}}},
		{"weight too heavy", 2, []Edge{{U: 0, V: 1, W: tooBig}}},
		{"weight too negative", 2, []Edge{{U: 0, V: 1, W: Weight{}.Sub(tooBig)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mate, err := MaxWeight(tt.n, tt.edges, true)
			if !errors.Is(err, ErrInvalidGraph) || mate != nil {
				t.Errorf("got %v, %v; want no matching and ErrInvalidGraph", mate, err)
			}
		})
	}
	if _, err := MaxWeight(2, []Edge{{U: 0, V: 1, W: WeightLimit}}, false); err != nil {
		t.Errorf("a weight of exactly the limit: %v", err)
	}
}

func TestEmpty(t *testing.T) {
	for _, n := range []int{0, 1, 5} {
		mate, err := MaxWeight(n, nil, true)
		if err != nil || len(mate) != n {
			t.Fatalf("%d vertices, no edges: %v, %v", n, mate, err)
		}
		for _, m := range mate {
			if m != -1 {
				t.Errorf("%d vertices, no edges: %v, want all single", n, mate)
			}
		}
	}
}

// TestWeightArithmetic checks Weight against math/big on random values
// across the whole range the package uses.
func TestWeightArithmetic(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 3))
	draw := func() Weight {
		w := Weight{hi: rng.Int64N(1<<40) - 1<<39, lo: rng.Uint64()}
		if rng.IntN(4) == 0 {
			w = Int(rng.Int64() >> rng.IntN(63))
		}
		return w
	}
	for range 20000 {
		a, b := draw(), draw()
		ab, bb := a.Big(), b.Big()
		if got, want := a.Add(b).Big(), new(big.Int).Add(ab, bb); got.Cmp(want) != 0 {
			t.Fatalf("%v + %v = %v, want %v", a, b, got, want)
		}
		if got, want := a.Sub(b).Big(), new(big.Int).Sub(ab, bb); got.Cmp(want) != 0 {
			t.Fatalf("%v − %v = %v, want %v", a, b, got, want)
		}
		if got, want := a.Cmp(b), ab.Cmp(bb); got != want {
			t.Fatalf("Cmp(%v, %v) = %d, want %d", a, b, got, want)
		}
		if got, want := a.half().Big(), new(big.Int).Rsh(ab, 1); got.Cmp(want) != 0 {
			t.Fatalf("half of %v = %v, want %v", a, got, want)
		}
		m := rng.Int64N(1 << 30)
		got, ok := a.MulInt(m)
		want := new(big.Int).Mul(ab, big.NewInt(m))
		if a.Sign() < 0 {
			if ok {
				t.Fatalf("MulInt of a negative %v accepted", a)
			}
			continue
		}
		fits := want.BitLen() <= 127
		if ok != fits || (ok && got.Big().Cmp(want) != 0) {
			t.Fatalf("%v · %d = %v (ok %v), want %v (fits %v)", a, m, got, ok, want, fits)
		}
	}
	if _, ok := (Weight{hi: 1 << 62}).MulInt(2); ok {
		t.Error("2^126 · 2 does not fit in 127 bits but MulInt accepted it")
	}
}

// TestPriced checks MaxWeightPriced against MaxWeight (the same number of
// edges and the same weight) on random graphs, dense and sparse, with and
// without a perfect matching, whatever edges it is told to try first (none,
// some at random, all); and against the brute force on small ones.
func TestPriced(t *testing.T) {
	graphs := runs(1500, 30000)
	rng := rand.New(rand.NewPCG(27, 4))
	for i := range graphs {
		wk := weights[i%len(weights)]
		n := 2 * rng.IntN(31)
		if i%7 == 0 {
			n++ // odd: never perfect, so the whole graph is solved
		}
		edges := randomGraph(rng, n, 0.1+0.9*rng.Float64(), func() Weight { return wk.draw(rng) })
		first := make([]bool, len(edges))
		share := []float64{0, 0.15, 0.5, 1}[i%4]
		for k := range first {
			first[k] = rng.Float64() < share
		}
		got, err := MaxWeightPriced(n, edges, first)
		if err != nil {
			t.Fatalf("graph %d: %v", i, err)
		}
		want, _ := MaxWeight(n, edges, true)
		gotCard, gotW := score(t, n, edges, got)
		wantCard, wantW := score(t, n, edges, want)
		if gotCard != wantCard || gotW.Cmp(wantW) != 0 {
			t.Fatalf("graph %d (%s, %d vertices, %d edges, share %v tried first): %d edges weighing %v, MaxWeight %d weighing %v",
				i, wk.name, n, len(edges), share, gotCard, gotW, wantCard, wantW)
		}
		if n <= 10 {
			if c, w := brute(n, edges, true); c != gotCard || w.Cmp(gotW) != 0 {
				t.Fatalf("graph %d: %d edges weighing %v, the brute force %d weighing %v", i, gotCard, gotW, c, w)
			}
		}
	}
	if _, err := MaxWeightPriced(2, []Edge{{U: 0, V: 1, W: Int(1)}}, nil); !errors.Is(err, ErrInvalidGraph) {
		t.Errorf("marks of the wrong length: %v, want ErrInvalidGraph", err)
	}
	if _, err := MaxWeightPriced(2, []Edge{{U: 0, V: 0, W: Int(1)}}, []bool{true}); !errors.Is(err, ErrInvalidGraph) {
		t.Errorf("a loop: %v, want ErrInvalidGraph", err)
	}
}

// TestWarmCertificate checks the warm start's final duals prove its
// matching optimal whenever that matching is perfect.
func TestWarmCertificate(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 5))
	perfect := 0
	graphs := runs(300, 3000)
	for i := range graphs {
		wk := weights[i%len(weights)]
		n := 2 + 2*rng.IntN(40)
		edges := randomGraph(rng, n, 0.2+0.8*rng.Float64(), func() Weight { return wk.draw(rng) })
		s := newWarm(n, edges)
		score(t, n, edges, s.mates())
		if s.perfect() {
			perfect++
			verify(t, s)
		}
	}
	if perfect < graphs*2/3 {
		t.Fatalf("only %d of %d random graphs had a perfect matching: the test proves little", perfect, graphs)
	}
}
