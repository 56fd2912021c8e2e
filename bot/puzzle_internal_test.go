package bot

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot/internal/outbox"
	"github.com/connectn/connectn/bot/internal/render"
	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/game/ai"
	"github.com/connectn/connectn/internal/clock/clocktest"
	"github.com/connectn/connectn/locale"
	"github.com/connectn/connectn/puzzle"
	"github.com/connectn/connectn/rating"
	"github.com/connectn/connectn/sessions"
)

// poolStore is a puzzleStore of found puzzles and ratings, for pool.
type poolStore struct {
	puzzleStore
	found   map[string][]sessions.FoundPuzzle
	ratings map[string]rating.Rating
}

func (s *poolStore) FoundPuzzles(_ context.Context, guildID string) ([]sessions.FoundPuzzle, error) {
	return s.found[guildID], nil
}

func (s *poolStore) PuzzleRatings(context.Context) (map[string]rating.Rating, error) {
	return s.ratings, nil
}

// TestPuzzlePool: the puzzles offered in a server are the starter set and
// the puzzles found in that server's matches (not another's, nor in a
// direct message), each once and at its stored rating.
func TestPuzzlePool(t *testing.T) {
	base := puzzle.Starter()
	src := puzzle.Source{Kind: puzzle.FromMatch, Guild: "g1", Match: 9, Players: [2]string{"Alice", "Bob"}, Mover: game.Player1, Round: 1, Move: 3}
	// A found puzzle of a position the starter set lacks (two discs
	// before a starter puzzle's; Parse does not re-solve, which is all
	// the pool needs), and one of a starter puzzle's position.
	extra := puzzle.Puzzle{Config: base[0].Config, Moves: base[0].Moves[:len(base[0].Moves)-2], Kind: puzzle.OnlyMove, Source: src}
	extra.Solution = mustMoves(t, base[0])[len(base[0].Moves)-2]
	again := base[1]
	again.Source = src
	for _, p := range []puzzle.Puzzle{extra, again} {
		if _, err := puzzle.Parse(p.Format()); err != nil {
			t.Fatalf("the test's found puzzle %q does not parse: %v", p.Format(), err)
		}
	}
	extra, _ = puzzle.Parse(extra.Format())
	st := &poolStore{
		found: map[string][]sessions.FoundPuzzle{"g1": {
			{GuildID: "g1", ID: extra.ID, Puzzle: extra.Format()},
			{GuildID: "g1", ID: again.ID, Puzzle: again.Format()},
			{GuildID: "g1", ID: "damaged", Puzzle: "not a puzzle"},
		}},
		ratings: map[string]rating.Rating{base[2].ID: {R: 1234, RD: 60, Sigma: 0.06}, extra.ID: {R: 1777, RD: 80, Sigma: 0.06}},
	}
	h := &puzzles{store: st, log: slog.New(slog.DiscardHandler)}
	count := func(pool []puzzle.Puzzle, f func(puzzle.Puzzle) bool) int {
		n := 0
		for _, p := range pool {
			if f(p) {
				n++
			}
		}
		return n
	}
	pools := map[string][]puzzle.Puzzle{}
	for _, g := range []string{"g1", "g2", ""} {
		pool, err := h.pool(context.Background(), g)
		if err != nil {
			t.Fatal(err)
		}
		pools[g] = pool
	}
	if n := len(pools["g1"]); n != len(base)+1 {
		t.Errorf("pool of g1 = %d puzzles, want the starter set and the one found puzzle it lacks (%d)", n, len(base)+1)
	}
	if n := count(pools["g1"], func(p puzzle.Puzzle) bool {
		return p.ID == extra.ID && p.Source.Kind == puzzle.FromMatch && p.Rating.R == 1777
	}); n != 1 {
		t.Errorf("the found puzzle is %d times in its server's pool at its stored rating, want once", n)
	}
	if n := count(pools["g1"], func(p puzzle.Puzzle) bool { return p.ID == again.ID }); n != 1 {
		t.Errorf("a found puzzle of a starter position is %d times in the pool, want once", n)
	}
	for _, g := range []string{"g1", "g2", ""} {
		if n := count(pools[g], func(p puzzle.Puzzle) bool { return p.ID == base[2].ID && p.Rating.R == 1234 }); n != 1 {
			t.Errorf("pool of %q holds the starter puzzle at its stored rating %d times, want once", g, n)
		}
	}
	for _, g := range []string{"g2", ""} {
		if n := count(pools[g], func(p puzzle.Puzzle) bool { return p.ID == extra.ID }); n != 0 || len(pools[g]) != len(base) {
			t.Errorf("pool of %q holds g1's found puzzle %d times (%d puzzles), want the starter set alone", g, n, len(pools[g]))
		}
	}
}

func mustMoves(t *testing.T, p puzzle.Puzzle) []int {
	t.Helper()
	m, err := p.MoveList()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// blockingFinder is a finderStore with one queued scan after another,
// whose History waits until released: a search that takes its time.
type blockingFinder struct {
	mu      sync.Mutex
	claims  int
	release chan struct{}
	entered chan struct{}
}

func (f *blockingFinder) History(ctx context.Context, _ string, _ int) ([]*sessions.Session, error) {
	f.entered <- struct{}{}
	<-f.release
	return nil, nil
}

func (f *blockingFinder) QueuePuzzleScan(context.Context, sessions.PuzzleScan) (bool, error) {
	return true, nil
}

func (f *blockingFinder) ClaimPuzzleScan(context.Context, time.Duration) (sessions.PuzzleScan, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.claims++
	return sessions.PuzzleScan{Match: int64(f.claims), ChannelID: "c"}, true, nil
}

func (f *blockingFinder) FinishPuzzleScan(context.Context, int64, []sessions.FoundPuzzle) (int, error) {
	return 0, nil
}

// finderRig is a puzzle finder on a blockingFinder, a fake clock and a
// runner of its own, for the finder's tests; served is the count of
// interactions its finder reads (handlersBusy).
type finderRig struct {
	f      *puzzleFinder
	st     *blockingFinder
	clk    *clocktest.Fake
	run    *outbox.Runner
	served uint64
}

// newFinderRig returns a rig whose store lets up to 8 searches wait, and
// frees them and closes the runner when t ends.
func newFinderRig(t *testing.T) *finderRig {
	r := &finderRig{st: &blockingFinder{release: make(chan struct{}, 8), entered: make(chan struct{}, 8)}, clk: clocktest.New()}
	r.run = outbox.NewRunner(r.clk, slog.New(slog.DiscardHandler))
	t.Cleanup(func() {
		close(r.st.release) // frees a search a failure left waiting
		r.run.Close(context.Background())
	})
	r.f = &puzzleFinder{store: r.st, engine: engine{ai: ai.NewEngine(ai.Options{TableMB: 1, Workers: 1})}, run: r.run,
		log: slog.New(slog.DiscardHandler), clock: r.clk, served: func() uint64 { return r.served }}
	return r
}

// claims returns how many matches the finder has taken.
func (r *finderRig) claims() int {
	r.st.mu.Lock()
	defer r.st.mu.Unlock()
	return r.st.claims
}

// search lets the search taken end at once (no rest on the clock) and
// waits for its end.
func (r *finderRig) search(t *testing.T) {
	t.Helper()
	<-r.st.entered
	r.st.release <- struct{}{}
	if err := r.run.WaitIdle(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestPuzzleFinderOneAtATime: while a search runs, the scheduler's next
// ticks start no other in this process: the solver's workers go to one
// finished match at a time.
func TestPuzzleFinderOneAtATime(t *testing.T) {
	st := &blockingFinder{release: make(chan struct{}), entered: make(chan struct{}, 4)}
	clk := clocktest.New()
	run := outbox.NewRunner(clk, slog.New(slog.DiscardHandler))
	f := &puzzleFinder{store: st, engine: engine{ai: ai.NewEngine(ai.Options{TableMB: 1, Workers: 1})}, run: run, log: slog.New(slog.DiscardHandler), clock: clk}
	f.runDue(context.Background())
	<-st.entered
	f.runDue(context.Background())
	f.runDue(context.Background())
	st.mu.Lock()
	claims := st.claims
	st.mu.Unlock()
	if claims != 1 {
		t.Errorf("%d matches taken while one is searched, want 1", claims)
	}
	close(st.release)
	if err := run.WaitIdle(context.Background()); err != nil {
		t.Fatal(err)
	}
	f.runDue(context.Background())
	<-st.entered
	if st.claims != 2 {
		t.Errorf("%d matches taken after the search ended, want 2", st.claims)
	}
	run.Close(context.Background())
}

// TestPuzzleFinderRests: after a search that took d, the finder takes no
// match for nine times d, however often the scheduler asks, and takes the
// next one when its rest (findRest times d) ends: on a busy server it
// takes a tenth of a processor at most, and the queue waits in the store.
func TestPuzzleFinderRests(t *testing.T) {
	r := newFinderRig(t)
	f, st, clk := r.f, r.st, r.clk
	f.runDue(context.Background())
	<-st.entered
	const took = 2 * time.Second // the search's time
	clk.Advance(took)
	st.release <- struct{}{}
	if err := r.run.WaitIdle(context.Background()); err != nil {
		t.Fatal(err)
	}
	// A tenth of a processor: a search of d, then a rest of 9d at least.
	const tenth = 9 * took
	var rested time.Duration
	for _, step := range []time.Duration{0, time.Second, tenth - time.Second - time.Millisecond} {
		clk.Advance(step)
		rested += step
		f.runDue(context.Background())
		if n := r.claims(); n != 1 {
			t.Fatalf("%d matches taken %v into the rest after a search of %v, want 1 (no second before %v)", n, rested, took, tenth)
		}
	}
	clk.Advance(findRest*took - rested)
	f.runDue(context.Background())
	if n := r.claims(); n != 2 {
		t.Fatalf("%d matches taken after the rest, want 2", n)
	}
	r.search(t)
}

// TestPuzzleFinderGivesWay: while the handlers are given more than
// findBusy interactions a second, the finder takes no match; when they
// slow down it takes the next. A few clicks just before a look are not a
// rate: the count is over a second at least.
func TestPuzzleFinderGivesWay(t *testing.T) {
	r := newFinderRig(t)
	r.f.runDue(context.Background())
	r.search(t)
	for _, tt := range []struct {
		name    string
		advance time.Duration
		clicks  uint64
		want    int // matches taken in all after the look
	}{
		{"a few clicks at once", 0, 5, 2},
		{"busy: 25 a second", time.Second, 25, 2},
		{"busy: 250 in 10 s", 10 * time.Second, 250, 2},
		{"slower: 15 a second", time.Second, 15, 3},
		{"idle", time.Minute, 0, 4},
	} {
		r.clk.Advance(tt.advance)
		r.served += tt.clicks
		before := r.claims()
		r.f.runDue(context.Background())
		if n := r.claims(); n != tt.want {
			t.Fatalf("%s: %d matches taken in all, want %d", tt.name, n, tt.want)
		}
		if r.claims() > before {
			r.search(t)
		}
	}
}

// TestPuzzleFinderGivesWayAfterRest: the rate is of the last tick, not
// averaged over a rest: clicks that come fast only at the end of a rest
// keep the next match waiting.
func TestPuzzleFinderGivesWayAfterRest(t *testing.T) {
	r := newFinderRig(t)
	f, st, clk := r.f, r.st, r.clk
	f.runDue(context.Background())
	<-st.entered
	const took = 2 * time.Second
	clk.Advance(took)
	st.release <- struct{}{}
	if err := r.run.WaitIdle(context.Background()); err != nil {
		t.Fatal(err)
	}
	for range findRest*took/time.Second - 1 { // quiet ticks through the rest
		clk.Advance(time.Second)
		f.runDue(context.Background())
	}
	clk.Advance(time.Second)
	r.served += 25 // the rest's last second: busy
	f.runDue(context.Background())
	if n := r.claims(); n != 1 {
		t.Errorf("%d matches taken after a rest whose last second was busy, want 1 (none after the first)", n)
	}
}

// TestPuzzleFinderBusyStillSearches: a server that stays busy still has
// a match searched once every findBusyEvery, and not more often.
func TestPuzzleFinderBusyStillSearches(t *testing.T) {
	r := newFinderRig(t)
	r.f.runDue(context.Background())
	r.search(t)
	var at []int // seconds after the first search at which a match was taken
	for i := 1; i <= 150; i++ {
		r.clk.Advance(time.Second)
		r.served += 100 // busy: 100 interactions a second
		before := r.claims()
		r.f.runDue(context.Background())
		if r.claims() > before {
			at = append(at, i)
			r.search(t)
		}
	}
	every := int(findBusyEvery / time.Second)
	if want := []int{every, 2 * every}; !slices.Equal(at, want) {
		t.Errorf("a busy server's finder took matches %v s after its first, want %v", at, want)
	}
}

// TestHandlerCountsInteractions: every interaction the handler is given,
// a PING as a click, counts towards the rate the puzzle finder gives way
// to.
func TestHandlerCountsInteractions(t *testing.T) {
	h := NewHandler(emptyStore{}, slog.New(slog.DiscardHandler), WithClock(clocktest.New()))
	defer h.Close(context.Background())
	for range 3 {
		if _, err := h.Handle(context.Background(), &discordgo.Interaction{ID: "1", Type: discordgo.InteractionPing}); err != nil {
			t.Fatal(err)
		}
	}
	if n := h.served.Load(); n != 3 {
		t.Errorf("%d interactions counted after 3 PINGs, want 3", n)
	}
}

// forgetfulEvaluator is an evaluator that counts the calls of
// ForgetTables.
type forgetfulEvaluator struct {
	puzzle.Evaluator
	forgot atomic.Int32
}

func (e *forgetfulEvaluator) ForgetTables() { e.forgot.Add(1) }

// TestPuzzleFinderForgetsTables: when a search ends, the finder gives its
// tables' memory back (ai.Engine.ForgetTables), and not before.
func TestPuzzleFinderForgetsTables(t *testing.T) {
	r := newFinderRig(t)
	f, st, run := r.f, r.st, r.run
	ev := &forgetfulEvaluator{}
	f.own.Do(func() { f.eval = ev })
	f.runDue(context.Background())
	<-st.entered
	if n := ev.forgot.Load(); n != 0 {
		t.Fatalf("tables forgotten %d times during the search, want 0", n)
	}
	st.release <- struct{}{}
	if err := run.WaitIdle(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := ev.forgot.Load(); n != 1 {
		t.Errorf("tables forgotten %d times after the search, want 1", n)
	}
}

// TestPuzzleFinderOwnTable: the search values positions with a table of
// its own of findTableMB, not the AI's (CONNECTN_AI_MEMORY), which a bot
// whose members only play each other never allocates.
func TestPuzzleFinderOwnTable(t *testing.T) {
	e := ai.NewEngine(ai.Options{TableMB: 64, Workers: 1})
	f := &puzzleFinder{engine: engine{ai: e}}
	ev, ok := f.evaluator().(*ai.Engine)
	if !ok || ev == e {
		t.Fatalf("the search values positions with %T %p, want an engine of its own beside the AI's %p", f.evaluator(), ev, e)
	}
}

// TestParseClock: times of day on the 24-hour clock, and what is refused.
func TestParseClock(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int
		ok   bool
	}{
		{"08:00", 480, true}, {"8:00", 480, true}, {"00:00", 0, true}, {"23:59", 1439, true}, {" 19:30 ", 1170, true},
		{"24:00", 0, false}, {"12:60", 0, false}, {"8", 0, false}, {"8am", 0, false}, {"08:0", 0, false}, {"-1:00", 0, false},
		{"+8:00", 0, false}, {"08:00:00", 0, false}, {"", 0, false},
	} {
		got, ok := parseClock(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("parseClock(%q) = %d, %t, want %d, %t", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

// TestNextPost: the next post is the first time of day after a moment,
// in the server's zone, across a change of the clocks.
func TestNextPost(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Skipf("no time zone data: %v", err)
	}
	for _, tt := range []struct {
		name   string
		minute int
		loc    *time.Location
		after  time.Time
		want   time.Time
	}{
		{"later today", 480, time.UTC, time.Date(2026, 3, 1, 7, 0, 0, 0, time.UTC), time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC)},
		{"at the time: tomorrow", 480, time.UTC, time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC), time.Date(2026, 3, 2, 8, 0, 0, 0, time.UTC)},
		{"in Berlin", 480, berlin, time.Date(2026, 3, 1, 7, 30, 0, 0, time.UTC), time.Date(2026, 3, 2, 7, 0, 0, 0, time.UTC)},
		{"across summer time", 480, berlin, time.Date(2026, 3, 28, 8, 0, 0, 0, time.UTC), time.Date(2026, 3, 29, 6, 0, 0, 0, time.UTC)},
	} {
		if got := nextPost(tt.minute, tt.loc, tt.after); !got.Equal(tt.want) {
			t.Errorf("%s: nextPost(%d, %v, %v) = %v, want %v", tt.name, tt.minute, tt.loc, tt.after, got, tt.want)
		}
	}
}

// TestDayNumber: a day and the number its Solve button names, both
// ways; a number that names no day is refused.
func TestDayNumber(t *testing.T) {
	if n := render.DayNumber("2026-11-23"); n != 20261123 {
		t.Errorf("DayNumber = %d", n)
	}
	for n, want := range map[int64]string{20261123: "2026-11-23", 20260229: "", 20261301: "", 20261100: "", 20240229: "2024-02-29"} {
		if got := render.DayOfNumber(n); got != want {
			t.Errorf("DayOfNumber(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestCatalogCoversThePuzzles renders every message of the puzzles in
// every language, with a localizer of its own each: every message it asks
// for is in the catalog, and every message of puzzle.en.toml is read,
// by the renders or by name in the code.
func TestCatalogCoversThePuzzles(t *testing.T) {
	win := starterOf(t, func(p puzzle.Puzzle) bool { return p.Kind == puzzle.WinIn })
	only := starterOf(t, func(p puzzle.Puzzle) bool { return p.Kind == puzzle.OnlyMove })
	defence := starterOf(t, func(p puzzle.Puzzle) bool { return p.Kind == puzzle.Defence })
	found := win
	found.Source = puzzle.Source{Kind: puzzle.FromMatch, Guild: "g", Match: 1, Players: [2]string{"Alice", "Bob"}, Mover: game.Player1, Round: 2, Move: 17}
	change := &sessions.PuzzleRatingChange{MemberBefore: rating.New(), MemberAfter: rating.Rating{R: 1562, RD: 290, Sigma: 0.06}}
	values := []ai.ColumnValue{{Legal: true}, {Legal: true, Settled: true, Score: 3, In: 1}, {Legal: true, Settled: true, Score: 2, In: 4},
		{Legal: true, Settled: true}, {Legal: true, Settled: true, Score: -5, In: 1}, {Legal: true, Settled: true, Score: -2, In: 6}}
	resolved := map[string]bool{}
	for _, lang := range locale.Default().Languages() {
		l := locale.Default().NewLocalizer(lang)
		for _, p := range []puzzle.Puzzle{win, only, defence, found} {
			render.Puzzle(l, render.PuzzleView{Puzzle: p, Rating: 1500, Attempt: 1})
			render.Puzzle(l, render.PuzzleView{Puzzle: p, Rating: 1500, Attempt: 1, Moves: []int{0, 1}, Replied: true, Hint: &puzzle.Hint{Area: puzzle.Left, Last: 1}})
			for _, area := range []puzzle.Area{puzzle.Left, puzzle.Centre, puzzle.Right} {
				render.Puzzle(l, render.PuzzleView{Puzzle: p, Attempt: 1, Hint: &puzzle.Hint{Area: area, First: 2, Last: 4}})
			}
			render.Puzzle(l, render.PuzzleView{Puzzle: p, Moves: []int{0}, Result: sessions.AttemptSolved, Change: change, First: true, Streak: 1})
			render.Puzzle(l, render.PuzzleView{Puzzle: p, Moves: []int{0}, Result: sessions.AttemptSolved, Streak: 3})
			for _, v := range values {
				render.Puzzle(l, render.PuzzleView{Puzzle: p, Moves: []int{0}, Result: sessions.AttemptFailed, Step: puzzle.Step{Value: v},
					Refutation: []int{1, 2}, Solution: []int{3}, First: true, Change: change})
			}
			for _, n := range []int{0, 1, 2, 5} {
				render.DailyPost(l, render.DailyView{Puzzle: p, Day: "2026-11-23", Solvers: n, Previous: &win})
			}
		}
		for _, n := range []int{1, 2, 5, 22} {
			q := win
			q.N = n
			render.PuzzleTask(l, q)
			render.PuzzleTheme(l, q)
			d := defence
			d.N = n
			render.PuzzleTask(l, d)
		}
		render.PuzzleLeaderboard(l, nil)
		render.PuzzleLeaderboard(l, []sessions.PuzzlePlayer{{UserID: "1", Rated: 5, Solved: 3}, {UserID: "2"}, {UserID: "3"}, {UserID: "4"}})
		for _, n := range []int{1, 2, 5} {
			msg := &render.Message{Embeds: []*discordgo.MessageEmbed{{}}}
			render.AddPuzzleStats(l, msg, sessions.PuzzlePlayer{Rated: n, Solved: 1})
		}
		dailyStatus(l, sessions.DailyPuzzle{})
		for _, cause := range []string{dailyErrorToken, dailyErrorChannel, dailyErrorPermission, dailyErrorOther} {
			dailyStatus(l, sessions.DailyPuzzle{ChannelID: "1", Minute: 480, LastError: cause})
		}
		for k, cmd := range commands(l) {
			localize(cmd, commands(l)[k], l, "xx")
		}
		for _, r := range sessions.Reasons() {
			l.T(r.MessageID())
		}
		if m := l.Missing(); len(m) > 0 {
			t.Errorf("%s: the renders ask for messages the catalog lacks: %q", lang, m)
		}
		for _, id := range l.Resolved() {
			resolved[id] = true
		}
	}
	_, literals := namedInCode(t)
	for _, id := range locale.Default().IDsIn("puzzle.en.toml") {
		if !resolved[id] && !literals[id] {
			t.Errorf("message %q of puzzle.en.toml is never read", id)
		}
	}
}

// starterOf returns the first starter puzzle on the standard board for
// which f holds.
func starterOf(t *testing.T, f func(puzzle.Puzzle) bool) puzzle.Puzzle {
	t.Helper()
	for _, p := range puzzle.Starter() {
		if p.Config.Rows == 6 && p.Config.Columns == 7 && f(p) {
			return p
		}
	}
	t.Fatal("no starter puzzle fits")
	return puzzle.Puzzle{}
}
