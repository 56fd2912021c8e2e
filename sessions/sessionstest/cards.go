package sessionstest

import (
	"bytes"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/sessions"
)

// The contract of sessions.CardStore, run by Run on every backend: a
// match's result card is shared once, whoever asks, however the asks race
// (two stores on one database stand for two processes), and after a
// restart; a failed post gives the share back; Forget and export know the
// table.

// runCards runs the shared cards' tests, each on a fresh database.
func runCards(t *testing.T, b Backend) {
	tests := []struct {
		name string
		fn   func(*testing.T, Backend)
	}{
		{"SharedOnce", testCardSharedOnce},
		{"SharedOnceRacing", testCardSharedOnceRacing},
		{"SharedOnceAfterRestart", testCardSharedOnceAfterRestart},
		{"PostedAndUnshared", testCardPostedAndUnshared},
		{"ForgetSharedCards", testForgetSharedCards},
		{"ExportImportSharedCards", testExportImportSharedCards},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.fn(t, b) })
	}
}

// cardsOf returns the CardStore of st, a backend's Store.
func cardsOf(t *testing.T, st sessions.Store) sessions.CardStore {
	t.Helper()
	c, ok := st.(sessions.CardStore)
	if !ok {
		t.Fatalf("%T is no sessions.CardStore", st)
	}
	return c
}

// shareBy is the share of match's card by member m in chan-1 of guild-1.
func shareBy(match int64, m sessions.Member) sessions.CardShare {
	return sessions.CardShare{Match: match, GuildID: "guild-1", ChannelID: "chan-1", UserID: m.ID}
}

// testCardSharedOnce: the first claim is stored as given and timed by the
// clock; a second claim, by the same member or the other, is refused with
// the record as it stands and changes nothing; bad claims store nothing.
func testCardSharedOnce(t *testing.T, b Backend) {
	c := newClock()
	st := cardsOf(t, b.NewDB(t).Open(t, c))
	for _, bad := range []sessions.CardShare{shareBy(0, alice), shareBy(-1, alice), shareBy(7, sessions.Member{})} {
		if got, ok, err := st.ShareCard(t.Context(), bad); err == nil || ok {
			t.Errorf("ShareCard(%+v) = %+v, %t, %v, want an error", bad, got, ok, err)
		}
	}
	got, ok, err := st.ShareCard(t.Context(), shareBy(7, alice))
	want := sessions.CardShare{Match: 7, GuildID: "guild-1", ChannelID: "chan-1", UserID: alice.ID, SharedAt: t0.UTC()}
	if err != nil || !ok || got != want || got.SharedAt.Location() != time.UTC {
		t.Fatalf("ShareCard(7, alice) = %+v, %t, %v, want %+v claimed, in UTC", got, ok, err, want)
	}
	c.Advance(time.Minute)
	for _, m := range []sessions.Member{alice, bob} {
		again, ok, err := st.ShareCard(t.Context(), shareBy(7, m))
		if err != nil || ok || again != want {
			t.Errorf("ShareCard(7, %s) again = %+v, %t, %v, want %+v not claimed", m.Name, again, ok, err, want)
		}
	}
	// Another match is another card.
	if _, ok, err := st.ShareCard(t.Context(), shareBy(8, bob)); err != nil || !ok {
		t.Errorf("ShareCard(8, bob) = %t, %v, want claimed", ok, err)
	}
}

// testCardSharedOnceRacing: two stores (two processes) claiming the same
// match's card at once: exactly one claims it, every time.
func testCardSharedOnceRacing(t *testing.T, b Backend) {
	c := newClock()
	db := b.NewDB(t)
	stores := []sessions.CardStore{cardsOf(t, db.Open(t, c)), cardsOf(t, db.Open(t, c))}
	for match := int64(1); match <= 10; match++ {
		var (
			wg      sync.WaitGroup
			claimed [2]bool
			got     [2]sessions.CardShare
			errs    [2]error
		)
		for i, st := range stores {
			wg.Add(1)
			go func() {
				defer wg.Done()
				got[i], claimed[i], errs[i] = st.ShareCard(t.Context(), shareBy(match, []sessions.Member{alice, bob}[i]))
			}()
		}
		wg.Wait()
		if errs[0] != nil || errs[1] != nil || claimed[0] == claimed[1] || got[0] != got[1] {
			t.Fatalf("two ShareCard(%d) at once = %v, %+v, %v, want exactly one claim and one record", match, claimed, got, errs)
		}
	}
}

// testCardSharedOnceAfterRestart: a share survives the store: a store
// opened later on the database (a restarted process) finds it.
func testCardSharedOnceAfterRestart(t *testing.T, b Backend) {
	c := newClock()
	db := b.NewDB(t)
	first := db.Open(t, c)
	if _, ok, err := cardsOf(t, first).ShareCard(t.Context(), shareBy(3, alice)); err != nil || !ok {
		t.Fatalf("ShareCard(3) = %t, %v", ok, err)
	}
	if err := cardsOf(t, first).CardPosted(t.Context(), 3, "msg-3"); err != nil {
		t.Fatal(err)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	got, ok, err := cardsOf(t, db.Open(t, c)).ShareCard(t.Context(), shareBy(3, bob))
	if err != nil || ok || got.UserID != alice.ID || got.MessageID != "msg-3" {
		t.Errorf("ShareCard(3) after a restart = %+v, %t, %v, want alice's share posted as msg-3, not claimed", got, ok, err)
	}
}

// testCardPostedAndUnshared: a posted card keeps its message; a claim
// whose post failed is given back by its member alone, and only before a
// message is recorded.
func testCardPostedAndUnshared(t *testing.T, b Backend) {
	st := cardsOf(t, b.NewDB(t).Open(t, newClock()))
	if err := st.CardPosted(t.Context(), 5, "msg-5"); !errors.Is(err, sessions.ErrNotFound) {
		t.Errorf("CardPosted(never shared) error = %v, want %v", err, sessions.ErrNotFound)
	}
	st.ShareCard(t.Context(), shareBy(5, alice))
	if ok, err := st.UnshareCard(t.Context(), 5, bob.ID); err != nil || ok {
		t.Errorf("UnshareCard(5, bob) of alice's share = %t, %v, want it kept", ok, err)
	}
	if ok, err := st.UnshareCard(t.Context(), 5, alice.ID); err != nil || !ok {
		t.Errorf("UnshareCard(5, alice) = %t, %v, want it given back", ok, err)
	}
	if got, ok, err := st.ShareCard(t.Context(), shareBy(5, bob)); err != nil || !ok || got.UserID != bob.ID {
		t.Fatalf("ShareCard(5, bob) after it was given back = %+v, %t, %v, want bob's claim", got, ok, err)
	}
	if err := st.CardPosted(t.Context(), 5, "msg-5"); err != nil {
		t.Fatal(err)
	}
	if ok, err := st.UnshareCard(t.Context(), 5, bob.ID); err != nil || ok {
		t.Errorf("UnshareCard(5, bob) of a posted card = %t, %v, want it kept", ok, err)
	}
	if got, ok, _ := st.ShareCard(t.Context(), shareBy(5, alice)); ok || got.MessageID != "msg-5" || got.UserID != bob.ID {
		t.Errorf("ShareCard(5, alice) of a posted card = %+v, %t, want bob's, posted as msg-5", got, ok)
	}
}

// testForgetSharedCards: Forget removes the shares of the member's
// matches, whoever shared them, and keeps the others'.
func testForgetSharedCards(t *testing.T, b Backend) {
	db := b.NewDB(t)
	base := db.Open(t, newClock())
	st := cardsOf(t, base)
	ab := finish(t, base, "chan-1", alice, bob, game.Player1, false)
	bc := finish(t, base, "chan-2", bob, carol, game.Player2, false)
	st.ShareCard(t.Context(), shareBy(ab.ID, bob)) // alice's match, shared by bob
	st.ShareCard(t.Context(), shareBy(bc.ID, carol))
	n, err := base.Forget(t.Context(), alice.ID)
	if err != nil || n.SharedCards != 1 {
		t.Fatalf("Forget(alice) = %+v, %v, want 1 shared card", n, err)
	}
	if got, ok, _ := st.ShareCard(t.Context(), shareBy(ab.ID, carol)); !ok {
		t.Errorf("ShareCard() of alice's forgotten match = %+v, want no share left of it", got)
	}
	if got, ok, _ := st.ShareCard(t.Context(), shareBy(bc.ID, bob)); ok || got.UserID != carol.ID {
		t.Errorf("ShareCard() of bob and carol's match after Forget(alice) = %+v, %t, want carol's share kept", got, ok)
	}
	if rows := db.Dump(t)["shared_cards"]; len(rows) != 2 {
		t.Errorf("shared_cards after Forget = %q, want carol's share and the new claim", rows)
	}
}

// testExportImportSharedCards: shares are exported with everything and
// with their server, and an import keeps them shared.
func testExportImportSharedCards(t *testing.T, b Backend) {
	c := newClock()
	srcBase := b.NewDB(t).Open(t, c)
	src := cardsOf(t, srcBase)
	src.ShareCard(t.Context(), shareBy(11, alice))
	src.CardPosted(t.Context(), 11, "msg-11")
	other := shareBy(12, bob)
	other.GuildID = "guild-2"
	src.ShareCard(t.Context(), other)
	var file bytes.Buffer
	n, err := exportOf(t, srcBase).Export(t.Context(), &file, sessions.ExportOptions{})
	if err != nil || n != (sessions.ExportCounts{SharedCards: 2}) {
		t.Fatalf("Export() = %+v, %v, want 2 shared cards", n, err)
	}
	dstBase := b.NewDB(t).Open(t, c)
	if got, err := importOf(t, dstBase).Import(t.Context(), bytes.NewReader(file.Bytes())); err != nil || got != n {
		t.Fatalf("Import() = %+v, %v, want %+v", got, err, n)
	}
	got, ok, err := cardsOf(t, dstBase).ShareCard(t.Context(), shareBy(11, bob))
	if err != nil || ok || fmt.Sprint(got) != fmt.Sprint(sessions.CardShare{Match: 11, GuildID: "guild-1", ChannelID: "chan-1", UserID: alice.ID, MessageID: "msg-11", SharedAt: t0.UTC()}) {
		t.Errorf("ShareCard(11) in the copy = %+v, %t, %v, want alice's, posted", got, ok, err)
	}
	var one bytes.Buffer
	if n, err := exportOf(t, srcBase).Export(t.Context(), &one, sessions.ExportOptions{GuildID: "guild-1"}); err != nil || n != (sessions.ExportCounts{SharedCards: 1}) {
		t.Errorf("Export(guild-1) = %+v, %v, want its one shared card", n, err)
	}
}
