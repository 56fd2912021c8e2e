package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/sessions"
	"github.com/connectn/connectn/sessions/sqlite"
)

// runUntil steps every slot until stop is closed or its step fails with
// the server gone; with finish, a slot stops instead once it finishes the
// match it is in. It returns each slot's last error (nil for a slot that
// stopped cleanly).
func runUntil(ctx context.Context, slots []*slot, stop <-chan struct{}, finish bool) []error {
	errs := make([]error, len(slots))
	var wg sync.WaitGroup
	for k, s := range slots {
		wg.Go(func() {
			target := s.matchesDone + 1
			if finish && s.phase == phaseIdle {
				return // no match to finish
			}
			for {
				select {
				case <-stop:
					return
				default:
				}
				if finish && s.matchesDone >= target {
					return
				}
				if err := s.step(ctx); err != nil {
					errs[k] = err
					return
				}
			}
		})
	}
	wg.Wait()
	return errs
}

// crashTest kills the server with SIGKILL in the middle of a load run, when
// at least o.crashAfter moves have been acknowledged, restarts it on the
// same database, and checks that:
//   - PRAGMA integrity_check answers ok;
//   - every acknowledged move of every match is stored, in order, and
//     nothing more is, but for a request in flight at the kill (which may
//     have been applied or not: it was never acknowledged);
//   - in every channel whose match is exactly as acknowledged, the next
//     legal click on the last acknowledged board is accepted;
//   - every match then plays on to its end.
//
// It prints what it checked and returns nil when all of it holds.
func crashTest(ctx context.Context, e *env, o *options, w io.Writer) error {
	m := o.matches[0]
	slots := e.newSlots(m, o)
	var total atomic.Int64
	for _, s := range slots {
		s.keepHistory = true
		s.followTimeout = 60 * time.Second
		s.ackTotal = &total
	}
	fmt.Fprintf(w, "crash test: %d matches (%dx%d, connect %d, first to %d), kill -9 after %d acknowledged moves\n",
		m, o.settings.Rows, o.settings.Columns, o.settings.Connect, o.settings.Wins, o.crashAfter)

	// 1. Load until enough moves are acknowledged, then SIGKILL.
	loadCtx, cancelLoad := context.WithCancel(ctx)
	stop := make(chan struct{})
	var killing atomic.Bool
	monitorDone := make(chan struct{})
	go func() {
		defer close(monitorDone)
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for total.Load() < int64(o.crashAfter) {
			select {
			case <-loadCtx.Done():
				return
			case <-tick.C:
			}
		}
		killing.Store(true)
		e.srv.kill()
		close(stop)
		// Let the requests in flight fail on their own before anything is
		// cancelled, then stop the waits.
		time.Sleep(200 * time.Millisecond)
		cancelLoad()
	}()
	loadErrs := runUntil(loadCtx, slots, stop, false)
	if !killing.Load() {
		cancelLoad()
		<-monitorDone
		return fmt.Errorf("the load stopped before the kill: %v", errors.Join(loadErrs...))
	}
	<-monitorDone
	for k, err := range loadErrs {
		var gone *errServerGone
		if err != nil && !errors.As(err, &gone) && !errors.Is(err, context.Canceled) {
			return fmt.Errorf("channel %d failed before the kill: %w", k, err)
		}
	}

	// 2. With the server down: the database file as the kill left it.
	acked, inflight := 0, 0
	phases := map[string]int{}
	for _, s := range slots {
		acked += s.acknowledged()
		if s.inflight != nil {
			inflight++
			phases[s.inflight.kind+" unanswered"]++
		} else {
			phases[s.phase.String()]++
		}
	}
	fmt.Fprintf(w, "killed: %d moves acknowledged; channels: %s\n", acked, formatCounts(phases))
	if err := integrityCheck(ctx, e.srv.db); err != nil {
		return err
	}
	fmt.Fprintln(w, "PRAGMA integrity_check: ok")
	checked, committed, err := checkStored(ctx, e.srv.db, slots)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "stored: %d of %d acknowledged moves, in order, nothing more; of %d unanswered requests (in flight at the kill, or sent after it), %d were applied, %d not\n",
		checked, acked, inflight, committed, inflight-committed)
	if checked != acked {
		return fmt.Errorf("%d acknowledged moves checked, want %d", checked, acked)
	}

	// 3. Restart on the same database and play on.
	if err := e.srv.start(ctx); err != nil {
		return fmt.Errorf("restart: %w", err)
	}
	e.pids[0] = e.srv.pid()
	accepted, resumed := 0, 0
	for _, s := range slots {
		switch {
		case s.inflightApplied && s.phase == phasePlaying:
			// The last acknowledged board is one step behind: ask for
			// the board again, as a player would.
			if err := s.reboard(ctx); err != nil {
				return fmt.Errorf("channel %d: /connectn board after the restart: %w", s.n, err)
			}
			resumed++
		case s.inflightApplied && s.phase == phaseChallenge:
			// A challenge stored but never acknowledged: accept it.
			if err := s.step(ctx); err != nil {
				return fmt.Errorf("channel %d: accepting the unacknowledged challenge: %w", s.n, err)
			}
			resumed++
		case s.inflightApplied:
			resumed++ // the move in flight ended the match
		case s.phase == phasePlaying || s.phase == phaseChallenge:
			// The next legal click on the last acknowledged board.
			s.inflight = nil
			if err := s.step(ctx); err != nil {
				return fmt.Errorf("channel %d: the next click on the last acknowledged board (%s) was not accepted: %w", s.n, s.phase, err)
			}
			accepted++
		default:
			s.inflight = nil
		}
	}
	fmt.Fprintf(w, "after the restart: the next click on the last acknowledged board accepted in %d channels; %d boards asked again after an applied in-flight move\n",
		accepted, resumed)
	finishCtx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	before := 0
	for _, s := range slots {
		before += s.matchesDone
	}
	errs := runUntil(finishCtx, slots, nil, true)
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("playing on after the restart: %w", err)
	}
	ended := 0
	for _, s := range slots {
		if s.phase == phaseIdle {
			ended++
		}
	}
	if ended != len(slots) {
		return fmt.Errorf("%d of %d matches played to their end", ended, len(slots))
	}
	all := 0
	for _, s := range slots {
		all += s.acknowledged()
	}
	fmt.Fprintf(w, "played on: all %d matches to their end (%d moves acknowledged in all)\n", len(slots), all)
	// And once more from the database, with the server stopped cleanly.
	code, took, err := e.srv.stop(10 * time.Second)
	if err != nil || code != 0 {
		return fmt.Errorf("stopping the restarted server: exit %d after %v: %v", code, took, err)
	}
	if err := integrityCheck(ctx, e.srv.db); err != nil {
		return err
	}
	checked, _, err = checkStored(ctx, e.srv.db, slots)
	if err != nil {
		return fmt.Errorf("after the matches ended: %w", err)
	}
	if checked != all {
		return fmt.Errorf("after the matches ended: %d acknowledged moves checked, want %d", checked, all)
	}
	fmt.Fprintf(w, "stored after the end: all %d acknowledged moves; integrity_check ok\n", all)
	return nil
}

// acknowledged returns the moves acknowledged in this slot so far.
func (s *slot) acknowledged() int {
	n := len(s.acked)
	for _, d := range s.history {
		n += len(d.acked)
	}
	return n
}

// reboard posts /connectn board and takes the new message as the board.
func (s *slot) reboard(ctx context.Context) error {
	s.inflight = nil
	body, seq := s.c.command(s.channel, s.a, "board")
	resp, err := s.send(ctx, &request{kind: "board"}, body)
	if err != nil {
		return err
	}
	board := boardOf(resp.Data)
	d := drops(board)
	if !newMessage(resp) || len(d) == 0 {
		return s.unexpected("board", resp)
	}
	r := parseCustomID(d[0].CustomID)
	s.board, s.boardID, s.post, s.phase = board, strconv.FormatInt(originalBase+seq, 10), r.Post, phasePlaying
	return nil
}

// integrityCheck runs PRAGMA integrity_check on the database at path.
func integrityCheck(ctx context.Context, path string) error {
	db, err := sqlite.OpenDB(ctx, path)
	if err != nil {
		return err
	}
	defer db.Close()
	var res string
	if err := db.QueryRowContext(ctx, "PRAGMA integrity_check").Scan(&res); err != nil {
		return fmt.Errorf("PRAGMA integrity_check: %w", err)
	}
	if res != "ok" {
		return fmt.Errorf("PRAGMA integrity_check: %s", res)
	}
	return nil
}

// checkStored compares each slot's matches with the store: every match the
// slot finished, and the one it is in. A request in flight may have been
// applied; the slot learns which (inflightApplied) and adopts the stored
// state. It returns the acknowledged moves found stored and how many
// requests in flight were applied.
func checkStored(ctx context.Context, path string, slots []*slot) (int, int, error) {
	st, err := sqlite.Open(ctx, path)
	if err != nil {
		return 0, 0, err
	}
	defer st.Close()
	checked, committed := 0, 0
	for _, s := range slots {
		stored, err := st.History(ctx, s.channel, 0)
		if err != nil {
			return 0, 0, fmt.Errorf("channel %d: %w", s.n, err)
		}
		byID := map[int64]*sessions.Session{}
		for _, ss := range stored {
			byID[ss.ID] = ss
		}
		for _, d := range s.history {
			got := byID[d.id]
			if got == nil {
				return 0, 0, fmt.Errorf("channel %d: finished match %d is not stored", s.n, d.id)
			}
			if got.Phase != sessions.PhaseFinished || !slices.Equal(dropsOf(got.Match), d.acked) {
				return 0, 0, fmt.Errorf("channel %d: finished match %d stored as %s with drops %v, acknowledged %v",
					s.n, d.id, got.Phase, dropsOf(got.Match), d.acked)
			}
			checked += len(d.acked)
		}
		n, applied, err := s.checkCurrent(stored)
		if err != nil {
			return 0, 0, fmt.Errorf("channel %d: %w", s.n, err)
		}
		checked += n
		if applied {
			committed++
		}
	}
	return checked, committed, nil
}

// checkCurrent compares the slot's current match with what is stored
// (newest first), and returns the acknowledged moves it found and whether
// the request in flight was applied.
func (s *slot) checkCurrent(stored []*sessions.Session) (int, bool, error) {
	s.inflightApplied = false
	var newest *sessions.Session
	if len(stored) > 0 {
		newest = stored[0]
	}
	if s.phase == phaseIdle {
		// No match, or a challenge in flight.
		if newest == nil || !newest.Phase.Active() {
			return 0, false, nil
		}
		if s.inflight == nil || s.inflight.kind != "challenge" || newest.Phase != sessions.PhaseChallenge {
			return 0, false, fmt.Errorf("an active session %d (%s) that nothing acknowledged started", newest.ID, newest.Phase)
		}
		// The challenge was stored but never acknowledged: it will be
		// answered as its message (which nobody saw) offered.
		s.inflightApplied = true
		s.match, s.phase, s.boardID, s.inflight = newest.ID, phaseChallenge, "0", nil
		s.board = acceptBoard(newest.ID)
		return 0, true, nil
	}
	if newest == nil || newest.ID != s.match {
		return 0, false, fmt.Errorf("match %d is not the channel's newest session", s.match)
	}
	got := dropsOf(newest.Match)
	for _, a := range newest.Match.Actions() {
		if a.Kind != game.Drop {
			return 0, false, fmt.Errorf("match %d has a %v nobody asked for", s.match, a)
		}
	}
	switch {
	case slices.Equal(got, s.acked):
		if want := s.phase == phaseChallenge; want != (newest.Phase == sessions.PhaseChallenge) {
			if s.inflight != nil && s.inflight.kind == "accept" && newest.Phase == sessions.PhasePlaying {
				s.inflightApplied = true // accepted, never acknowledged
				s.phase, s.inflight = phasePlaying, nil
				return 0, true, nil
			}
			return 0, false, fmt.Errorf("match %d stored as %s, acknowledged as %s", s.match, newest.Phase, s.phase)
		}
		return len(s.acked), false, nil
	case s.inflight != nil && s.inflight.kind == "move" && slices.Equal(got, append(slices.Clone(s.acked), s.inflight.column)):
		// The move in flight was applied; it was never acknowledged.
		s.inflightApplied, s.inflight, s.acked = true, nil, got
		if newest.Phase == sessions.PhaseFinished {
			s.endMatch()
		}
		return len(got) - 1, true, nil
	}
	return 0, false, fmt.Errorf("match %d stored with drops %v, acknowledged %v (in flight: %+v)", s.match, got, s.acked, s.inflight)
}

// dropsOf returns the columns of m's drops, in order.
func dropsOf(m *game.Match) []int {
	var out []int
	for _, a := range m.Actions() {
		if a.Kind == game.Drop {
			out = append(out, a.Column)
		}
	}
	return out
}

// stopTest sends SIGTERM to the server in the middle of a load run, when
// at least o.crashAfter moves have been acknowledged, while every match
// has a request in flight: a lock taken on the database by this process
// holds the server's writes for 100 ms before the SIGTERM and 300 ms
// after, and the fake webhooks answer follow-ups 300 ms late. It checks
// that the server answers every request it was handling (each of them
// acknowledged and stored), takes no new one, finishes the work that
// follows its responses (every board owed as a follow-up posted and
// recorded), exits 0 within 5 seconds, and closes the store (SQLite
// removes the -wal file when the last connection closes cleanly); nothing
// stored was left unanswered.
func stopTest(ctx context.Context, e *env, o *options, w io.Writer) error {
	m := o.matches[0]
	slots := e.newSlots(m, o)
	var total atomic.Int64
	for _, s := range slots {
		s.keepHistory = true
		s.ackTotal = &total
	}
	e.c.mu.Lock()
	e.c.track, e.c.pending = true, map[int64]bool{}
	e.c.mu.Unlock()
	fmt.Fprintf(w, "stop test: %d matches, SIGTERM after %d acknowledged moves, with the database locked from 100 ms before to 300 ms after\n", m, o.crashAfter)
	loadCtx, cancelLoad := context.WithCancel(ctx)
	defer cancelLoad()
	stop := make(chan struct{})
	type outcome struct {
		code     int
		took     time.Duration
		inflight map[int64]bool
		err      error
	}
	done := make(chan outcome, 1)
	go func() {
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for total.Load() < int64(o.crashAfter) {
			select {
			case <-loadCtx.Done():
				done <- outcome{err: errors.New("the load stopped before the SIGTERM")}
				return
			case <-tick.C:
			}
		}
		// Follow-ups slow from now on, so that the work after the last
		// responses is still under way when the server stops serving.
		e.d.SetLatency(300 * time.Millisecond)
		defer e.d.SetLatency(0)
		unlock, err := lockDatabase(ctx, e.srv.db)
		if err != nil {
			done <- outcome{err: err}
			return
		}
		time.Sleep(100 * time.Millisecond)
		inflight := e.c.unanswered()
		exited := make(chan outcome, 1)
		go func() {
			code, took, err := e.srv.stop(5 * time.Second)
			exited <- outcome{code: code, took: took, err: err}
		}()
		time.Sleep(300 * time.Millisecond)
		unlock()
		x := <-exited
		x.inflight = inflight
		close(stop)
		done <- x
	}()
	errs := runUntil(loadCtx, slots, stop, false)
	x := <-done
	cancelLoad()
	if x.err != nil {
		return x.err
	}
	fmt.Fprintf(w, "SIGTERM with %d requests in flight: exit status %d after %v\n", len(x.inflight), x.code, x.took.Round(time.Millisecond))
	if x.code != 0 {
		return fmt.Errorf("exit status %d, want 0", x.code)
	}
	if len(x.inflight) == 0 {
		return errors.New("no request was in flight at the SIGTERM: the test proved nothing")
	}
	cut := 0
	after := e.c.unanswered()
	for n := range x.inflight {
		if after[n] {
			cut++
		}
	}
	if cut > 0 {
		return fmt.Errorf("%d of the %d requests in flight at the SIGTERM got no answer", cut, len(x.inflight))
	}
	fmt.Fprintf(w, "all %d requests in flight at the SIGTERM were answered\n", len(x.inflight))
	refused := 0
	for _, err := range errs {
		var gone *errServerGone
		if errors.As(err, &gone) {
			refused++
		}
	}
	if _, err := os.Stat(e.srv.db + "-wal"); err == nil {
		return fmt.Errorf("%s-wal is still there: the store was not closed", e.srv.db)
	}
	fmt.Fprintln(w, "store closed: no -wal file left")
	checked, applied, err := checkStored(ctx, e.srv.db, slots)
	if err != nil {
		return err
	}
	acked := 0
	for _, s := range slots {
		acked += s.acknowledged()
	}
	fmt.Fprintf(w, "stored: %d of %d acknowledged moves; %d requests sent after the SIGTERM found no server, %d of them applied\n",
		checked, acked, refused, applied)
	if applied > 0 {
		return fmt.Errorf("%d requests were applied but never answered", applied)
	}
	if checked != acked {
		return fmt.Errorf("%d acknowledged moves stored, want %d", checked, acked)
	}
	return checkPosted(ctx, e.srv.db, slots, w)
}

// checkPosted checks the work that follows responses after a stop: every
// board the server owed as a follow-up was posted and recorded before the
// exit, so no such post is left pending in the store. The server waits for
// that work before it closes the store. A next round's board that the
// response to the click ending its round carried (the session reaches it
// as that interaction's @original) stays due until a click on it or the
// scheduler confirms it: it was posted, and is not counted.
func checkPosted(ctx context.Context, path string, slots []*slot, w io.Writer) error {
	st, err := sqlite.Open(ctx, path)
	if err != nil {
		return err
	}
	defer st.Close()
	pending := 0
	for _, s := range slots {
		sess, err := st.Get(ctx, s.channel)
		if err == nil && sess.Phase.Active() && !sess.PostDue.IsZero() && sess.Webhook.Message != "@original" {
			pending++
		}
	}
	fmt.Fprintf(w, "board posts left pending in the store: %d\n", pending)
	if pending > 0 {
		return fmt.Errorf("the work after responses was cut off by the exit: %d board posts pending", pending)
	}
	return nil
}

// lockDatabase takes SQLite's write lock on the database at path, as
// another process writing to it would, and returns the function that
// releases it.
func lockDatabase(ctx context.Context, path string) (func(), error) {
	db, err := sqlite.OpenDB(ctx, path)
	if err != nil {
		return nil, err
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		return nil, err
	}
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		conn.Close()
		db.Close()
		return nil, fmt.Errorf("lock the database: %w", err)
	}
	return func() {
		conn.ExecContext(context.Background(), "ROLLBACK")
		conn.Close()
		db.Close()
	}, nil
}
