package sessionstest

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/sessions"
)

// quietLine returns n columns to play in turn on a classic 6x7 board from
// the start, none of which ends the round: a realistic middle game.
func quietLine(tb testing.TB, n int) []int {
	tb.Helper()
	m := mustMatch(tb, game.DefaultConfig())
	var cols []int
	for ply := 0; len(cols) < n; ply++ {
		found := false
		for k := range 7 {
			c := (ply*3 + k) % 7
			if !m.Round().CanDrop(c) {
				continue
			}
			try := m.Clone()
			if _, err := try.Play(try.ToMove(), c); err != nil || try.Round().Number() != 1 || try.Over() {
				continue
			}
			mustPlay(tb, m, c)
			cols = append(cols, c)
			found = true
			break
		}
		if !found {
			tb.Fatalf("no quiet move after %v", cols)
		}
	}
	return cols
}

// click changes s as a member's click on a column of the board changes it
// (sessions.Session.Drop): a disc in column c, the click's interaction as
// the board's webhook (a new token, the n-th), and the next turn's
// deadline.
func click(s *sessions.Session, c, n int) error {
	if _, err := s.Match.Play(s.Match.ToMove(), c); err != nil {
		return err
	}
	at := t0.Add(time.Duration(n) * time.Second)
	s.Webhook = sessions.Webhook{AppID: "100000000000000009", Token: "aW50ZXJhY3Rpb246" + strconv.Itoa(n) + strings.Repeat("x", 160),
		Message: "@original", At: at}
	s.Deadline = at.Add(10 * time.Minute)
	return nil
}

// Bench runs the benchmarks of the move path on b, each with the cache of
// decoded sessions on (the default) and off:
//   - Match: one whole match through the store as the bot plays it:
//     Create (the challenge), an Update that accepts it, 30 Updates that
//     each drop a disc, and the Update that ends it (a forfeit, so that
//     the stats are written); ns/op is per match.
//   - Move: one Update that makes a click's change (see click) in a match
//     20 to 30 plies in; ns/op is per move.
//   - Move50: the same from 50 goroutines at once, each on matches of
//     its own (b.SetParallelism), as 50 channels playing at once; ns/op
//     is wall time per move over all of them, so 1e9/ns_op is moves per
//     second. Concurrent commits share PostgreSQL's disk flushes.
func Bench(b *testing.B, backend Backend) {
	for _, cache := range []struct {
		name string
		size int
	}{{"cache", sessions.DefaultCacheSize}, {"nocache", 0}} {
		b.Run("Match/"+cache.name, func(b *testing.B) {
			st := backend.NewDB(b).Open(b, newClock(), sessions.WithCacheSize(cache.size))
			line := quietLine(b, 30)
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				ch := fmt.Sprintf("chan-%d", i)
				mustCreate(b, st, newSession(b, ch))
				mustUpdate(b, st, ch, func(s *sessions.Session) error { s.Phase = sessions.PhasePlaying; return nil })
				for _, c := range line {
					mustUpdate(b, st, ch, func(s *sessions.Session) error {
						_, err := s.Match.Play(s.Match.ToMove(), c)
						return err
					})
				}
				mustUpdate(b, st, ch, func(s *sessions.Session) error { return s.Match.Forfeit(game.Player1) })
			}
		})
		b.Run("Move/"+cache.name, func(b *testing.B) {
			st := backend.NewDB(b).Open(b, newClock(), sessions.WithCacheSize(cache.size))
			line := quietLine(b, 30)
			ch, k := "", 0
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				if ch == "" || k == 10 {
					b.StopTimer()
					ch, k = fmt.Sprintf("chan-%d", i), 0
					s := newSession(b, ch)
					s.Phase, s.Match = sessions.PhasePlaying, mustMatch(b, s.Config, line[:20]...)
					mustCreate(b, st, s)
					mustGet(b, st, ch) // as the challenge's accept would have loaded it
					b.StartTimer()
				}
				c := line[20+k]
				k++
				mustUpdate(b, st, ch, func(s *sessions.Session) error { return click(s, c, i) })
			}
		})
		b.Run("Move50/"+cache.name, func(b *testing.B) {
			st := backend.NewDB(b).Open(b, newClock(), sessions.WithCacheSize(cache.size))
			line := quietLine(b, 30)
			template := newSession(b, "template")
			template.Phase, template.Match = sessions.PhasePlaying, mustMatch(b, template.Config, line[:20]...)
			var seq atomic.Int64
			b.SetParallelism((50 + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				ch, k, id := "", 0, int64(0)
				for pb.Next() {
					if ch == "" || k == 10 {
						// A fresh match every 10 moves, inside the timing: one
						// Create per 10 moves, as the bot creates them.
						id = seq.Add(1)
						ch, k = fmt.Sprintf("par-%d", id), 0
						s := template.Clone()
						s.ChannelID = ch
						if _, err := st.Create(b.Context(), s); err != nil {
							b.Error(err)
							return
						}
					}
					c := line[20+k]
					k++
					n := int(id)*10 + k
					if _, err := st.Update(b.Context(), ch, func(s *sessions.Session) error { return click(s, c, n) }); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}
