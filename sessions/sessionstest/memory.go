package sessionstest

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"unsafe"
	"weak"

	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/sessions"
)

// testKeepsNoCallerMemory checks that a Store keeps none of the memory of
// the strings it is given: the bot decodes an interaction's strings as views
// into its request body, and a store that kept a session's channel, names
// or webhook token as given (in its cache of decoded sessions, say) would
// keep every such body alive.
func testKeepsNoCallerMemory(t *testing.T, b Backend) {
	st := b.NewDB(t).Open(t, newClock())
	// body stands for a request body; big, so that it is an allocation of
	// its own.
	body := make([]byte, 64<<10)
	text := "chan-mem guild-mem alice-view bob-view token-1 token-2 en-GB msg-view"
	copy(body, text)
	view := func(s string) string {
		for i := range len(text) - len(s) + 1 {
			if text[i:i+len(s)] == s {
				return unsafe.String(&body[i], len(s))
			}
		}
		t.Fatalf("%q is not in the body", s)
		return ""
	}
	gone := weak.Make(&body[0])
	sess := newSession(t, view("chan-mem"))
	sess.GuildID = view("guild-mem")
	sess.Players[0].Name, sess.Players[1].Name = view("alice-view"), view("bob-view")
	sess.Webhook.Token, sess.Place.Locale = view("token-1"), view("en-GB")
	mustCreate(t, st, sess)
	mustUpdate(t, st, view("chan-mem"), func(s *sessions.Session) error {
		s.Phase = sessions.PhasePlaying
		s.Webhook.Token, s.MessageID = view("token-2"), view("msg-view")
		mustPlay(t, s.Match, 3)
		return nil
	})
	mustGet(t, st, view("chan-mem"))
	sess, body = nil, nil
	runtime.GC()
	if gone.Value() != nil {
		t.Error("the store keeps the memory of the strings it was given (a request body, in the bot) alive")
	}
	// The store's session is whole.
	got := mustGet(t, st, "chan-mem")
	if got.Webhook.Token != "token-2" || got.Players[1].Name != "bob-view" || got.MessageID != "msg-view" || got.Place.Locale != "en-GB" {
		t.Errorf("Get() = token %q, name %q, message %q, locale %q after the caller's memory went", got.Webhook.Token, got.Players[1].Name, got.MessageID, got.Place.Locale)
	}
}

// testHandsOutOwnCopies checks that every session a Store hands out, and
// the one given to Create, is the caller's own: playing on it changes
// neither what the store holds (its cache of decoded sessions, say) nor
// any other caller's copy, though copies may share the history played
// before (game.Match.Clone). Two Gets, the sessions given to and returned
// by Create, and the one Update returns each play their own column at the
// same length; each must keep its own, and the store its own. It does so
// after 8, 9 and 10 plies, so that some copies share arrays with room to
// grow whatever the capacities. It fails when the store hands out its
// cached session or caches the caller's, or when copies of a match may
// append into the same slot of the arrays they share.
func testHandsOutOwnCopies(t *testing.T, b Backend) {
	st := b.NewDB(t).Open(t, newClock())
	for _, tt := range []struct {
		prefix []int // none of the moves below ends the round
		// the columns played by the session given to Create, the one it
		// returned, two Gets and Update, and then by the one Update returned
		given, created, first, second, update, after int
	}{
		{[]int{3, 3, 4, 4, 2, 2, 0, 0}, 6, 3, 0, 2, 4, 1},
		{[]int{3, 3, 4, 4, 2, 2, 0, 0, 6}, 0, 1, 2, 3, 5, 6},
		{[]int{3, 3, 4, 4, 2, 2, 0, 0, 6, 6}, 6, 3, 0, 2, 4, 1},
	} {
		n := len(tt.prefix)
		ch := "chan-own-" + strconv.Itoa(n)
		sess := newSession(t, ch)
		sess.Phase = sessions.PhasePlaying
		mustPlay(t, sess.Match, tt.prefix...)
		created := mustCreate(t, st, sess)
		mustPlay(t, sess.Match, tt.given)
		mustPlay(t, created.Match, tt.created)
		first, second := mustGet(t, st, ch), mustGet(t, st, ch)
		mustPlay(t, first.Match, tt.first)
		mustPlay(t, second.Match, tt.second)
		updated := mustUpdate(t, st, ch, func(s *sessions.Session) error {
			_, err := s.Match.Play(s.Match.ToMove(), tt.update)
			return err
		})
		mustPlay(t, updated.Match, tt.after) // after the stored move
		stored := mustGet(t, st, ch)
		check := func(name string, s *sessions.Session, columns ...int) {
			t.Helper()
			if s.Match.Plies() != n+len(columns) {
				t.Errorf("after %d plies, %s: %d plies, want %d", n, name, s.Match.Plies(), n+len(columns))
				return
			}
			moves := s.Match.Round().Moves()
			for i, c := range columns {
				if a := s.Match.Action(n + i); a.Kind != game.Drop || a.Column != c {
					t.Errorf("after %d plies, %s: action %d = %v, want a drop in column index %d", n, name, n+i, a, c)
				}
				if moves[n+i] != c {
					t.Errorf("after %d plies, %s: move %d in column index %d, want %d", n, name, n+i, moves[n+i], c)
				}
			}
			board := s.Match.Round().Board()
			for c := range 7 {
				if h, want := board.Height(c), strings.Count(fmt.Sprint(moves), strconv.Itoa(c)); h != want {
					t.Errorf("after %d plies, %s: column index %d holds %d discs, want %d", n, name, c, h, want)
				}
			}
		}
		check("the session given to Create", sess, tt.given)
		check("the session Create returned", created, tt.created)
		check("the first Get", first, tt.first)
		check("the second Get", second, tt.second)
		check("the session Update returned", updated, tt.update, tt.after)
		check("the stored session", stored, tt.update)
	}
}
