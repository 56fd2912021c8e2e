package sessionstest

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/sessions"
)

// longConfig is a board on which nobody can win within 100 plies when the
// columns are played in turn: 15 columns (odd) make every column alternate
// colours, and 15 cells is the longest horizontal or diagonal line.
var longConfig = game.Config{Rows: 16, Columns: 15, Connect: 16, Wins: 1}

func newLongSession(t *testing.T, channel string) *sessions.Session {
	t.Helper()
	s := newSession(t, channel)
	s.Config, s.Match, s.Phase = longConfig, mustMatch(t, longConfig), sessions.PhasePlaying
	return s
}

func testConcurrentStaleClicks(t *testing.T, b Backend) {
	st := mustOpen(t, b)
	mustCreate(t, st, newLongSession(t, "chan-1"))
	seen := mustGet(t, st, "chan-1").Match.Plies() // what every button showed

	errStale := errors.New("stale button")
	const clicks = 50
	var (
		wg      sync.WaitGroup
		start   = make(chan struct{})
		applied atomic.Int32
		errs    = make(chan error, clicks)
	)
	for range clicks {
		wg.Go(func() {
			<-start
			_, err := st.Update(t.Context(), "chan-1", func(s *sessions.Session) error {
				if s.Match.Plies() != seen {
					return errStale
				}
				_, err := s.Match.Play(s.Match.ToMove(), 3)
				return err
			})
			if err == nil {
				applied.Add(1)
			} else if !errors.Is(err, errStale) {
				errs <- err
			}
		})
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("Update() error = %v, want nil or %v", err, errStale)
	}
	if got := applied.Load(); got != 1 {
		t.Errorf("clicks applied = %d, want 1", got)
	}
	if got := mustGet(t, st, "chan-1").Match.Plies(); got != seen+1 {
		t.Errorf("Plies() = %d, want %d", got, seen+1)
	}
}

func testConcurrentAppends(t *testing.T, b Backend) {
	st := mustOpen(t, b)
	mustCreate(t, st, newLongSession(t, "chan-1"))
	const moves = 100
	var wg sync.WaitGroup
	start := make(chan struct{})
	errs := make(chan error, moves)
	for range moves {
		wg.Go(func() {
			<-start
			_, err := st.Update(t.Context(), "chan-1", func(s *sessions.Session) error {
				_, err := s.Match.Play(s.Match.ToMove(), s.Match.Plies()%longConfig.Columns)
				return err
			})
			if err != nil {
				errs <- err
			}
		})
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("Update() error = %v", err)
	}
	got := mustGet(t, st, "chan-1")
	if n := len(got.Match.Actions()); n != moves {
		t.Errorf("len(Actions()) = %d, want %d", n, moves)
	}
	if _, err := game.Replay(got.Config, got.Match.Actions()); err != nil {
		t.Errorf("Replay() error = %v", err)
	}
}

// TestConcurrentTurns has several goroutines per player, each dropping its
// share of discs only when its player is to move.
func testConcurrentTurns(t *testing.T, b Backend) {
	st := mustOpen(t, b)
	mustCreate(t, st, newLongSession(t, "chan-1"))
	const (
		goroutines = 6
		each       = 10
	)
	var wg sync.WaitGroup
	errs := make(chan error, goroutines)
	for g := range goroutines {
		me := game.Player(g%2 + 1)
		wg.Go(func() {
			for made := 0; made < each; {
				_, err := st.Update(t.Context(), "chan-1", func(s *sessions.Session) error {
					_, err := s.Match.Play(me, s.Match.Plies()%longConfig.Columns)
					return err
				})
				switch {
				case err == nil:
					made++
				case errors.Is(err, game.ErrNotYourTurn):
					runtime.Gosched()
				default:
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("Update() error = %v", err)
	}
	got := mustGet(t, st, "chan-1")
	actions := got.Match.Actions()
	if n := len(actions); n != goroutines*each {
		t.Fatalf("len(Actions()) = %d, want %d", n, goroutines*each)
	}
	for i, a := range actions {
		if want := game.Player(i%2 + 1); a.Player != want {
			t.Fatalf("action %d by %v, want %v", i, a.Player, want)
		}
	}
}

func testConcurrentCreates(t *testing.T, b Backend) {
	tests := []struct {
		name        string
		channel     func(i int) string
		wantCreated int
	}{
		{name: "one channel", channel: func(int) string { return "chan-1" }, wantCreated: 1},
		{name: "a channel each", channel: func(i int) string { return fmt.Sprintf("chan-%d", i) }, wantCreated: 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := mustOpen(t, b)
			const tries = 20
			var (
				wg    sync.WaitGroup
				start = make(chan struct{})
				mu    sync.Mutex
				ids   = map[int64]bool{}
				errs  = make(chan error, tries)
			)
			for i := range tries {
				sess := newSession(t, tt.channel(i))
				wg.Go(func() {
					<-start
					got, err := st.Create(t.Context(), sess)
					switch {
					case err == nil:
						mu.Lock()
						ids[got.ID] = true
						mu.Unlock()
					case !errors.Is(err, sessions.ErrActiveSession):
						errs <- err
					}
				})
			}
			close(start)
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Errorf("Create() error = %v, want nil or %v", err, sessions.ErrActiveSession)
			}
			if got := len(ids); got != tt.wantCreated {
				t.Errorf("sessions created (distinct IDs) = %d, want %d", got, tt.wantCreated)
			}
		})
	}
}

// TestChannelsIndependent holds one channel's Update inside fn and checks
// that another channel's Update completes meanwhile, and that a second
// Update of the held channel waits and gives up with its context.
func testChannelsIndependent(t *testing.T, b Backend) {
	st := mustOpen(t, b)
	mustCreate(t, st, newSession(t, "chan-1"))
	mustCreate(t, st, newSession(t, "chan-2"))

	entered, release := make(chan struct{}), make(chan struct{})
	done := make(chan error)
	go func() {
		_, err := st.Update(t.Context(), "chan-1", func(s *sessions.Session) error {
			close(entered)
			<-release
			s.MessageID = "held"
			return nil
		})
		done <- err
	}()
	<-entered

	if got := mustUpdate(t, st, "chan-2", func(s *sessions.Session) error {
		s.MessageID = "free"
		return nil
	}); got.MessageID != "free" {
		t.Errorf("chan-2 MessageID = %q, want %q", got.MessageID, "free")
	}
	if got := mustGet(t, st, "chan-1"); got.MessageID != "" {
		t.Errorf("chan-1 MessageID while held = %q, want it unwritten", got.MessageID)
	}

	ctx, cancel := context.WithCancel(t.Context())
	waiting := make(chan error)
	go func() {
		_, err := st.Update(ctx, "chan-1", func(*sessions.Session) error {
			return errors.New("must not run while the lock is held")
		})
		waiting <- err
	}()
	cancel()
	if err := <-waiting; !errors.Is(err, context.Canceled) {
		t.Errorf("Update() waiting for a held channel error = %v, want %v", err, context.Canceled)
	}

	close(release)
	if err := <-done; err != nil {
		t.Fatalf("held Update() error = %v", err)
	}
	if got := mustGet(t, st, "chan-1"); got.MessageID != "held" {
		t.Errorf("chan-1 MessageID = %q, want %q", got.MessageID, "held")
	}
}

// testSecondUpdateWaits proves the per-channel lock without timing luck:
// while one Update of a channel holds it (its fn blocked), a second Update
// of the same channel is seen waiting for the lock (LockWaiters), and its
// fn, once the first is done, sees the first's write. Without the lock the
// second fn runs at once on the old state and the test fails.
func testSecondUpdateWaits(t *testing.T, b Backend) {
	db := b.NewDB(t)
	st := db.Open(t, newClock())
	mustCreate(t, st, newSession(t, "chan-1"))
	entered, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	first, second := make(chan error, 1), make(chan error, 1)
	go func() {
		_, err := st.Update(t.Context(), "chan-1", func(s *sessions.Session) error {
			once.Do(func() { close(entered); <-release })
			s.MessageID = "first"
			return nil
		})
		first <- err
	}()
	<-entered
	seen := make(chan string, 8)
	go func() {
		_, err := st.Update(t.Context(), "chan-1", func(s *sessions.Session) error {
			seen <- s.MessageID
			s.MessageID = "second"
			return nil
		})
		second <- err
	}()
	deadline := time.Now().Add(10 * time.Second)
	for db.LockWaiters(st, "chan-1") != 1 {
		select {
		case id := <-seen:
			close(release)
			t.Fatalf("the second Update ran its fn (on MessageID %q) while the first held the channel", id)
		default:
		}
		if time.Now().After(deadline) {
			close(release)
			t.Fatal("the second Update never waited for the channel's lock")
		}
		time.Sleep(time.Millisecond)
	}
	close(release)
	for _, ch := range []chan error{first, second} {
		if err := <-ch; err != nil {
			t.Fatalf("Update() error = %v", err)
		}
	}
	if got := <-seen; got != "first" {
		t.Errorf("the second fn saw MessageID %q, want %q: it ran before the first was written", got, "first")
	}
	if got := mustGet(t, st, "chan-1").MessageID; got != "second" {
		t.Errorf("MessageID = %q, want %q", got, "second")
	}
}

// testProcessesRaceOneClick is two processes (two Stores on one database),
// several goroutines in each, all clicking the button of the same ply at
// the same instant, turn after turn: exactly one click applies per turn,
// every other one meets the moved-on board in its fn (never an error of
// the store), and the count of moves is exact.
func testProcessesRaceOneClick(t *testing.T, b Backend) {
	db := b.NewDB(t)
	stores := []sessions.Store{db.Open(t, newClock()), db.Open(t, newClock())}
	mustCreate(t, stores[0], newLongSession(t, "chan-1"))
	errStale := errors.New("stale button")
	const (
		turns = 12
		each  = 4 // goroutines per store
	)
	for turn := range turns {
		var (
			wg      sync.WaitGroup
			start   = make(chan struct{})
			applied atomic.Int32
			errs    = make(chan error, len(stores)*each)
		)
		for _, st := range stores {
			for range each {
				wg.Go(func() {
					<-start
					_, err := st.Update(t.Context(), "chan-1", func(s *sessions.Session) error {
						if s.Match.Plies() != turn {
							return errStale
						}
						_, err := s.Match.Play(s.Match.ToMove(), turn%longConfig.Columns)
						return err
					})
					switch {
					case err == nil:
						applied.Add(1)
					case !errors.Is(err, errStale):
						errs <- err
					}
				})
			}
		}
		close(start)
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Errorf("turn %d: Update() error = %v, want nil or the stale button", turn, err)
		}
		if got := applied.Load(); got != 1 {
			t.Fatalf("turn %d: clicks applied = %d, want exactly 1", turn, got)
		}
	}
	for i, st := range stores {
		if got := mustGet(t, st, "chan-1").Match.Plies(); got != turns {
			t.Errorf("store %d: Plies() = %d, want %d", i, got, turns)
		}
	}
}

// testProcessesPlayInTurn is two processes appending moves to one match at
// once, each move whatever the state: none is lost, none applied twice.
func testProcessesPlayInTurn(t *testing.T, b Backend) {
	db := b.NewDB(t)
	stores := []sessions.Store{db.Open(t, newClock()), db.Open(t, newClock())}
	mustCreate(t, stores[0], newLongSession(t, "chan-1"))
	const each = 20
	var wg sync.WaitGroup
	errs := make(chan error, 2*each)
	for _, st := range stores {
		for range each {
			wg.Go(func() {
				_, err := st.Update(t.Context(), "chan-1", func(s *sessions.Session) error {
					_, err := s.Match.Play(s.Match.ToMove(), s.Match.Plies()%longConfig.Columns)
					return err
				})
				if err != nil {
					errs <- err
				}
			})
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("Update() error = %v", err)
	}
	got := mustGet(t, stores[1], "chan-1")
	if n := got.Match.Plies(); n != 2*each {
		t.Errorf("Plies() = %d, want %d", n, 2*each)
	}
}

// testDeadlineFiresOnce runs the scheduler's way of settling a deadline
// (Due, then Update re-checking the deadline inside fn) from two processes
// and several goroutines at once: the deadline fires once, and the loss is
// counted once.
func testDeadlineFiresOnce(t *testing.T, b Backend) {
	db := b.NewDB(t)
	stores := []sessions.Store{db.Open(t, newClock()), db.Open(t, newClock())}
	s := newSession(t, "chan-1")
	s.Config, s.Match, s.Phase = oneWin, mustMatch(t, oneWin, 3), sessions.PhasePlaying
	s.Deadline = t0.Add(-time.Second)
	mustCreate(t, stores[0], s)
	now := t0
	errNothingDue := errors.New("nothing due")
	var (
		wg    sync.WaitGroup
		start = make(chan struct{})
		fired atomic.Int32
		errs  = make(chan error, 16)
	)
	for _, st := range stores {
		for range 4 {
			// Every scheduler sees the deadline due before any settles it.
			due, err := st.Due(t.Context(), now, 0)
			if err != nil || len(due) != 1 {
				t.Fatalf("Due() = %v, %v, want [chan-1]", due, err)
			}
			wg.Go(func() {
				<-start
				didFire := false
				_, err := st.Update(t.Context(), due[0], func(s *sessions.Session) error {
					didFire = false
					if !s.Phase.Active() || now.Before(s.Deadline) {
						return errNothingDue
					}
					if err := s.Match.Forfeit(s.Match.ToMove()); err != nil {
						return err
					}
					s.Phase, s.End, didFire = sessions.PhaseFinished, sessions.EndTimeout, true
					return nil
				})
				switch {
				case err == nil && didFire:
					fired.Add(1)
				case err != nil && !errors.Is(err, errNothingDue):
					errs <- err
				}
			})
		}
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if got := fired.Load(); got != 1 {
		t.Errorf("deadline fired %d times, want once", got)
	}
	if bob, _ := stores[0].Stats(t.Context(), "guild-1", bob.ID, false); bob.Losses != 1 || bob.Matches != 1 {
		t.Errorf("Stats(bob, who let the time run out) = %+v, want one match lost", bob)
	}
	if due, _ := stores[1].Due(t.Context(), now, 0); len(due) != 0 {
		t.Errorf("Due() after it fired = %v, want none", due)
	}
}

// testManyChannelsAtOnce plays and finishes matches in many channels at
// once, as a busy server does (and as the SQLite store writes them: many
// moves to one commit): every move of every match is stored, every match
// ends finished, and every result is counted once in the players' stats.
func testManyChannelsAtOnce(t *testing.T, b Backend) {
	st := mustOpen(t, b)
	const channels, moves = 40, 12
	line := quietLine(t, moves)
	var wg sync.WaitGroup
	start := make(chan struct{})
	errs := make(chan error, channels)
	for c := range channels {
		ch := fmt.Sprintf("chan-%d", c)
		sess := newSession(t, ch)
		sess.Players = [2]sessions.Member{alice, {ID: fmt.Sprintf("2000000000000%05d", c), Name: "Opponent"}}
		mustCreate(t, st, sess)
		wg.Go(func() {
			<-start
			update := func(fn func(*sessions.Session) error) bool {
				if _, err := st.Update(t.Context(), ch, fn); err != nil {
					errs <- fmt.Errorf("%s: %w", ch, err)
					return false
				}
				return true
			}
			if !update(func(s *sessions.Session) error { s.Phase = sessions.PhasePlaying; return nil }) {
				return
			}
			for _, col := range line {
				if !update(func(s *sessions.Session) error { _, err := s.Match.Play(s.Match.ToMove(), col); return err }) {
					return
				}
			}
			update(func(s *sessions.Session) error {
				s.Phase = sessions.PhaseFinished
				return s.Match.Forfeit(game.Player2) // Alice wins
			})
		})
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("Update() error = %v", err)
	}
	for c := range channels {
		got := mustGet(t, st, fmt.Sprintf("chan-%d", c))
		if n := len(got.Match.Actions()); got.Phase != sessions.PhaseFinished || n != moves+1 {
			t.Errorf("chan-%d: phase %q with %d actions, want finished with %d (the moves and the forfeit)", c, got.Phase, n, moves+1)
		}
	}
	stats, err := st.Stats(t.Context(), "guild-1", alice.ID, false)
	if err != nil {
		t.Fatal(err)
	}
	if stats.Matches != channels || stats.Wins != channels {
		t.Errorf("Alice's stats: %d matches, %d wins, want %d and %d", stats.Matches, stats.Wins, channels, channels)
	}
}

// testManyChannelsTwoStores is two processes taking turns at the moves of
// many matches at once, each move to the process that did not write the
// last one (as two replicas behind a load balancer may): each process's
// memory of a match is always a move behind and its writes are many at
// once, yet every move is stored once, in order.
func testManyChannelsTwoStores(t *testing.T, b Backend) {
	db := b.NewDB(t)
	stores := []sessions.Store{db.Open(t, newClock()), db.Open(t, newClock())}
	const channels, moves = 24, 12
	line := quietLine(t, moves)
	errStale := errors.New("stale button")
	var wg sync.WaitGroup
	start := make(chan struct{})
	errs := make(chan error, channels)
	for c := range channels {
		ch := fmt.Sprintf("chan-%d", c)
		mustCreate(t, stores[c%2], newSession(t, ch))
		wg.Go(func() {
			<-start
			for ply, col := range line {
				_, err := stores[(c+ply)%2].Update(t.Context(), ch, func(s *sessions.Session) error {
					if s.Match.Plies() != ply { // the button showed this ply
						return errStale
					}
					_, err := s.Match.Play(s.Match.ToMove(), col)
					return err
				})
				if err != nil {
					errs <- fmt.Errorf("%s, move %d: %w", ch, ply+1, err)
					return
				}
			}
		})
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("Update() error = %v", err)
	}
	for c := range channels {
		for i, st := range stores {
			got := mustGet(t, st, fmt.Sprintf("chan-%d", c)).Match.Actions()
			if len(got) != moves {
				t.Fatalf("chan-%d in store %d: %d actions, want %d", c, i, len(got), moves)
			}
			for k, a := range got {
				if a.Column != line[k] {
					t.Errorf("chan-%d in store %d: move %d in column %d, want %d", c, i, k+1, a.Column, line[k])
					break
				}
			}
		}
	}
}
