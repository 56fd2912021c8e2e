package sessions_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

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

func TestConcurrentStaleClicks(t *testing.T) {
	st := mustOpen(t)
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

func TestConcurrentAppends(t *testing.T) {
	st := mustOpen(t)
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
func TestConcurrentTurns(t *testing.T) {
	st := mustOpen(t)
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

func TestConcurrentCreates(t *testing.T) {
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
			st := mustOpen(t)
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
func TestChannelsIndependent(t *testing.T) {
	st := mustOpen(t)
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
