package matching

import "fmt"

// maxPricingRounds bounds how many times MaxWeightPriced adds edges before
// it solves the whole graph.
const maxPricingRounds = 8

// MaxWeightPriced returns what MaxWeight(n, edges, true) returns (a
// maximum-weight matching among those with the most edges), faster when
// the graph is dense, has a perfect matching, and the caller can tell which
// edges are likely to be in it (first[k] for edges[k]). It solves the graph
// of those edges first; if that matching is perfect, the final dual
// variables are a certificate of optimality for every edge they price at a
// non-negative slack (the linear programming dual of the perfect matching
// polytope, Edmonds 1965): when every other edge passes, the matching is
// optimal for the whole graph. Otherwise the edge of most negative slack at
// each vertex is added and the graph solved again; after maxPricingRounds, or when the smaller graph has no
// perfect matching, the whole graph is solved. The matching returned may
// differ from MaxWeight's when several are optimal. It returns an error
// wrapping ErrInvalidGraph as MaxWeight does, or when first and edges
// differ in length.
func MaxWeightPriced(n int, edges []Edge, first []bool) ([]int, error) {
	if len(first) != len(edges) {
		return nil, fmt.Errorf("%d edges but %d marks: %w", len(edges), len(first), ErrInvalidGraph)
	}
	if err := check(n, edges); err != nil {
		return nil, err
	}
	in := append([]bool(nil), first...)
	for range maxPricingRounds {
		var sub []Edge
		for k, e := range edges {
			if in[k] {
				sub = append(sub, e)
			}
		}
		s := newWarm(n, sub)
		if !s.perfect() {
			break
		}
		// Add, for each vertex, its edge of most negative slack: adding
		// every failing edge would bring most of a dense graph back.
		worst := make([]int, n)
		worstSlack := make([]Weight, n)
		for v := range worst {
			worst[v] = -1
		}
		for k, e := range edges {
			if in[k] {
				continue
			}
			sl := s.pricedSlack(e)
			if sl.Sign() >= 0 {
				continue
			}
			for _, v := range [2]int{e.U, e.V} {
				if worst[v] == -1 || sl.Less(worstSlack[v]) {
					worst[v], worstSlack[v] = k, sl
				}
			}
		}
		added := 0
		for _, k := range worst {
			if k != -1 && !in[k] {
				in[k] = true
				added++
			}
		}
		if added == 0 {
			return s.mates(), nil
		}
	}
	if s := newWarm(n, edges); s.perfect() {
		return s.mates(), nil
	}
	s := &solver{n: n, edges: edges, maxCard: true}
	s.init()
	if len(edges) > 0 {
		s.run()
	}
	return s.mates(), nil
}

// newWarm solves the graph in maxCardinality mode from warmStart.
func newWarm(n int, edges []Edge) *solver {
	s := &solver{n: n, edges: edges, maxCard: true, warm: true}
	s.init()
	s.warmStart()
	if len(edges) > 0 {
		s.run()
	}
	return s
}

// perfect reports whether every vertex is matched.
func (s *solver) perfect() bool {
	for _, p := range s.mate {
		if p == -1 {
			return false
		}
	}
	return true
}

// pricedSlack returns twice the slack of an edge (of the solver's graph or
// not) under the final duals: 2u(u) + 2u(v) − 2w plus 2z for every blossom
// that holds both ends.
func (s *solver) pricedSlack(e Edge) Weight {
	w2 := e.W.double()
	if s.warm {
		w2 = w2.double()
	}
	sl := s.dual[e.U].Add(s.dual[e.V]).Sub(w2)
	var cu, cv [64]int
	chainU, chainV := s.chain(e.U, cu[:0]), s.chain(e.V, cv[:0])
	for i, j := len(chainU)-1, len(chainV)-1; i >= 0 && j >= 0 && chainU[i] == chainV[j]; i, j = i-1, j-1 {
		sl = sl.Add(s.dual[chainU[i]].double())
	}
	return sl
}

// chain appends the blossoms that hold vertex v, innermost first.
func (s *solver) chain(v int, out []int) []int {
	for b := s.parent[v]; b != -1; b = s.parent[b] {
		out = append(out, b)
	}
	return out
}
