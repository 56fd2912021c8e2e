package puzzle

import (
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/connectn/connectn/rating"
)

// pool returns n puzzles with IDs p000, p001, ... and ratings 1000, 1010,
// ...; those whose index is in established have an RD below provisional.
func pool(n int, established ...int) []Puzzle {
	out := make([]Puzzle, n)
	for i := range out {
		out[i] = Puzzle{ID: fmt.Sprintf("p%03d", i), Rating: rating.Rating{R: 1000 + 10*float64(i), RD: 300, Sigma: 0.06}}
		if slices.Contains(established, i) {
			out[i].Rating.RD = 60
		}
	}
	return out
}

func TestPick(t *testing.T) {
	ps := pool(100)
	member := rating.Rating{R: 1500, RD: 80, Sigma: 0.06}
	// The nearest unseen: 1500 is p050; with p050 and p049..p045 seen the
	// window of 20 runs from p035 to p060 but for the seen ones.
	seen := map[string]bool{"p050": true, "p049": true, "p048": true, "p047": true, "p046": true, "p045": true}
	got := map[string]bool{}
	for seed := uint64(0); seed < 200; seed++ {
		p, ok := Pick(ps, member, seen, seed)
		if !ok {
			t.Fatal("no pick from an unseen pool")
		}
		if seen[p.ID] {
			t.Fatalf("seed %d: picked %s, already seen", seed, p.ID)
		}
		if math.Abs(p.Rating.R-member.R) > 150 {
			t.Fatalf("seed %d: picked %s at %v, not among the 20 nearest 1500", seed, p.ID, p.Rating.R)
		}
		got[p.ID] = true
		// Deterministic for a seed, whatever the pool's order.
		rev := slices.Clone(ps)
		slices.Reverse(rev)
		if q, _ := Pick(rev, member, seen, seed); q.ID != p.ID {
			t.Fatalf("seed %d: %s from the pool, %s from the pool reversed", seed, p.ID, q.ID)
		}
	}
	if len(got) < 10 {
		t.Errorf("200 seeds picked only %d puzzles: %v", len(got), got)
	}
	all := map[string]bool{}
	for _, p := range ps {
		all[p.ID] = true
	}
	if _, ok := Pick(ps, member, all, 1); ok {
		t.Error("picked a puzzle with every puzzle seen")
	}
	if p, ok := Pick(ps, rating.Rating{R: 3000}, nil, 1); !ok || p.Rating.R < 1790 {
		t.Errorf("a member at 3000 got %+v, want one of the 20 hardest", p)
	}
}

func TestDaily(t *testing.T) {
	ps := pool(60, 10, 20, 30, 40, 50)
	day := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
	first, ok := Daily(ps, day)
	if !ok {
		t.Fatal("no daily puzzle")
	}
	if first.Rating.Provisional() {
		t.Errorf("daily %s is provisional, with established puzzles in the pool", first.ID)
	}
	tests := []struct {
		name string
		pool []Puzzle
		date time.Time
	}{
		{name: "later that day", pool: ps, date: day.Add(23*time.Hour + 59*time.Minute)},
		{name: "the pool reversed", pool: reversed(ps), date: day},
		{name: "a provisional puzzle added", pool: append(slices.Clone(ps), Puzzle{ID: "new", Rating: rating.New()}), date: day},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if p, _ := Daily(tt.pool, tt.date); p.ID != first.ID {
				t.Errorf("got %s, want %s", p.ID, first.ID)
			}
		})
	}
	// Over a month, every established puzzle comes up, and no other.
	got := map[string]int{}
	for d := range 31 {
		p, _ := Daily(ps, day.AddDate(0, 0, d))
		got[p.ID]++
	}
	if len(got) != 5 {
		t.Errorf("a month of dailies: %v, want the 5 established puzzles", got)
	}
	// With none established, any puzzle of the pool.
	if p, ok := Daily(pool(7), day); !ok || p.ID == "" {
		t.Errorf("a pool with no established puzzle gives %+v, %v", p, ok)
	}
	if _, ok := Daily(nil, day); ok {
		t.Error("a daily puzzle from an empty pool")
	}
}

func reversed(ps []Puzzle) []Puzzle {
	out := slices.Clone(ps)
	slices.Reverse(out)
	return out
}
