package sessionstest

import (
	"runtime"
	"testing"
	"unsafe"
	"weak"

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
