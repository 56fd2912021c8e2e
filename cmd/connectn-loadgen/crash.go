package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	_ "modernc.org/sqlite" // the "sqlite" driver, for PRAGMA integrity_check

	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/sessions"
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
	var killed atomic.Bool
	go func() {
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-loadCtx.Done():
				return
			case <-tick.C:
			}
			if total.Load() >= int64(o.crashAfter) {
				e.srv.kill()
				killed.Store(true)
				close(stop)
				// Let the requests in flight fail on their own before
				// anything is cancelled, then stop the waits.
				time.Sleep(200 * time.Millisecond)
				cancelLoad()
				return
			}
		}
	}()
	loadErrs := runUntil(loadCtx, slots, stop, false)
	cancelLoad()
	if !killed.Load() {
		return fmt.Errorf("the load stopped before the kill: %v", errors.Join(loadErrs...))
	}
	for k, err := range loadErrs {
		var gone *errServerGone
		if err != nil && !errors.As(err, &gone) && !errors.Is(err, context.Canceled) {
			return fmt.Errorf("channel %d failed before the kill: %w", k, err)
		}
	}

	// 2. With the server down: the database file as the kill left it.
	acked, inflight := 0, 0
	for _, s := range slots {
		acked += s.acknowledged()
		if s.inflight != nil {
			inflight++
		}
	}
	fmt.Fprintf(w, "killed: %d moves acknowledged, %d requests in flight\n", acked, inflight)
	if err := integrityCheck(ctx, e.srv.db); err != nil {
		return err
	}
	fmt.Fprintln(w, "PRAGMA integrity_check: ok")
	checked, committed, err := checkStored(ctx, e.srv.db, slots)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "stored: %d of %d acknowledged moves, in order, nothing more; %d requests in flight at the kill were applied, %d not\n",
		checked, acked, committed, inflight-committed)
	if checked != acked {
		return fmt.Errorf("%d acknowledged moves checked, want %d", checked, acked)
	}

	// 3. Restart on the same database and play on.
	if err := e.srv.start(ctx); err != nil {
		return fmt.Errorf("restart: %w", err)
	}
	e.pid = e.srv.pid()
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
	body, seq := s.c.command(s.n, s.channel, s.a, "board")
	resp, err := s.send(ctx, &request{kind: "board"}, body)
	if err != nil {
		return err
	}
	d := drops(resp.Data)
	if resp.Type != respNewMessage || len(d) == 0 {
		return s.unexpected("board", resp)
	}
	r := parseCustomID(d[0].CustomID)
	s.board, s.boardID, s.post, s.phase = resp.Data, strconv.FormatInt(originalBase+seq, 10), r.Post, phasePlaying
	return nil
}

// integrityCheck runs PRAGMA integrity_check on the database at path.
func integrityCheck(ctx context.Context, path string) error {
	db, err := sql.Open("sqlite", path)
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
	st, err := sessions.Open(ctx, path)
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
		s.board = &messageData{Components: []byte(`[{"type":1,"components":[{"type":2,"style":3,"label":"Accept","custom_id":"cn:accept:` +
			strconv.FormatInt(newest.ID, 10) + `"}]}]`)}
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
// at least o.crashAfter moves have been acknowledged, and checks that it
// exits 0 within 5 seconds, that every request in flight got its answer
// (nothing stored that was not acknowledged, nothing acknowledged lost),
// and that the store was closed (SQLite removes the -wal file when the
// last connection closes cleanly).
func stopTest(ctx context.Context, e *env, o *options, w io.Writer) error {
	m := o.matches[0]
	slots := e.newSlots(m, o)
	var total atomic.Int64
	for _, s := range slots {
		s.keepHistory = true
		s.ackTotal = &total
	}
	fmt.Fprintf(w, "stop test: %d matches, SIGTERM after %d acknowledged moves\n", m, o.crashAfter)
	loadCtx, cancelLoad := context.WithCancel(ctx)
	defer cancelLoad()
	stop := make(chan struct{})
	type exit struct {
		code int
		took time.Duration
		err  error
	}
	exited := make(chan exit, 1)
	go func() {
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-loadCtx.Done():
				return
			case <-tick.C:
			}
			if total.Load() >= int64(o.crashAfter) {
				code, took, err := e.srv.stop(5 * time.Second)
				exited <- exit{code, took, err}
				close(stop)
				cancelLoad()
				return
			}
		}
	}()
	errs := runUntil(loadCtx, slots, stop, false)
	var x exit
	select {
	case x = <-exited:
	case <-time.After(30 * time.Second):
		return errors.New("the load ended without the SIGTERM")
	}
	if x.err != nil {
		return x.err
	}
	fmt.Fprintf(w, "SIGTERM: exit status %d after %v\n", x.code, x.took.Round(time.Millisecond))
	if x.code != 0 {
		return fmt.Errorf("exit status %d, want 0", x.code)
	}
	refused := 0
	for _, err := range errs {
		var gone *errServerGone
		if errors.As(err, &gone) {
			refused++
		}
	}
	inflight := 0
	for _, s := range slots {
		if s.inflight != nil {
			inflight++
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
	fmt.Fprintf(w, "stored: %d of %d acknowledged moves; %d requests failed without an answer (sent as the server stopped), %d of them applied\n",
		checked, acked, inflight, applied)
	if applied > 0 {
		return fmt.Errorf("%d requests were applied but never answered: requests in flight were cut off", applied)
	}
	if checked != acked {
		return fmt.Errorf("%d acknowledged moves stored, want %d", checked, acked)
	}
	return nil
}
