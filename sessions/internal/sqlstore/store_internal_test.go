package sqlstore

import (
	"encoding/json"
	"fmt"
	"math/bits"
	"testing"
	"time"

	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/sessions"
)

func TestKeyedMutexForgetsIdleKeys(t *testing.T) {
	var k keyedMutex
	unlock, err := k.lock(t.Context(), "a")
	if err != nil {
		t.Fatalf("lock() error = %v", err)
	}
	unlock()
	if got := len(k.m); got != 0 {
		t.Errorf("keys held after unlock = %d, want 0", got)
	}
}

func TestRebind(t *testing.T) {
	q := `SELECT a FROM t WHERE b = ? AND c IN (?, ?)`
	if got := (Dialect{}).Rebind(q); got != q {
		t.Errorf("Rebind() for ? placeholders = %q, want it unchanged", got)
	}
	if got, want := (Dialect{Numbered: true}).Rebind(q), `SELECT a FROM t WHERE b = $1 AND c IN ($2, $3)`; got != want {
		t.Errorf("Rebind() numbered = %q, want %q", got, want)
	}
}

// TestEncodeActionsAppends checks that the actions column grows by the new
// actions only and reads back as the whole list.
func TestEncodeActionsAppends(t *testing.T) {
	m, err := game.NewMatch(game.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	empty, err := encodeActions(nil, m)
	if err != nil || empty != "" {
		t.Fatalf("encodeActions(no actions) = %q, %v, want \"\"", empty, err)
	}
	prev := &cached{sess: &sessions.Session{Match: m.Clone()}, actions: empty}
	for _, c := range []int{3, 4, 3} {
		if _, err := m.Play(m.ToMove(), c); err != nil {
			t.Fatal(err)
		}
		got, err := encodeActions(prev, m)
		if err != nil {
			t.Fatal(err)
		}
		whole, _ := encodeActions(nil, m)
		if got != whole {
			t.Fatalf("appended encoding = %s, want %s", got, whole)
		}
		prev = &cached{sess: &sessions.Session{Match: m.Clone()}, actions: got}
	}
	if got, _ := encodeActions(prev, m); got != prev.actions {
		t.Errorf("encodeActions(unchanged) = %s, want the stored text %s", got, prev.actions)
	}
	other, _ := game.NewMatch(game.DefaultConfig())
	other.Play(game.Player1, 0)
	if got, _ := encodeActions(prev, other); got != "a" {
		t.Errorf("encodeActions(not a continuation) = %s, want the list encoded whole", got)
	}
	longer, _ := game.NewMatch(game.DefaultConfig())
	for _, c := range []int{3, 4, 2, 1} { // as long as prev and more, but not after it
		longer.Play(longer.ToMove(), c)
	}
	whole, _ := encodeActions(nil, longer)
	if got, _ := encodeActions(prev, longer); got != whole {
		t.Errorf("encodeActions(longer, not a continuation) = %s, want %s", got, whole)
	}
}

func TestCacheBounded(t *testing.T) {
	in := func(channel string, revision int64) *cached {
		return &cached{revision: revision, sess: &sessions.Session{ChannelID: channel}}
	}
	c := newCache(2)
	for id := range int64(5) {
		c.put(id, in(fmt.Sprint("chan-", id), id))
	}
	if got := c.len(); got != 2 {
		t.Errorf("entries = %d, want at most 2", got)
	}
	if got := len(c.channels); got != 2 {
		t.Errorf("channels known = %d, want 2: an evicted session's channel is forgotten with it", got)
	}
	c.put(9, in("chan-9", 3))
	if c.get(9, 4) != nil || c.get(9, 3) == nil {
		t.Error("get() must return an entry at its own revision only")
	}
	off := newCache(0)
	off.put(1, in("chan-1", 0))
	if off.get(1, 0) != nil || off.len() != 0 || first(off.newest("chan-1")) != nil {
		t.Error("a cache of size 0 keeps nothing")
	}
}

func TestCacheKeepsFewSessionsThatAreOver(t *testing.T) {
	in := func(id int64, phase sessions.Phase) *cached {
		return &cached{sess: &sessions.Session{ID: id, ChannelID: fmt.Sprint("chan-", id), Phase: phase}}
	}
	c := newCache(64) // keeps 64/16 = 4 sessions that are over
	for id := range int64(20) {
		c.put(id, in(id, sessions.PhasePlaying))
	}
	for id := int64(100); id < 110; id++ {
		phase := sessions.PhaseFinished
		if id%2 == 1 {
			phase = sessions.PhaseCancelled
		}
		c.put(id, in(id, phase))
	}
	if got, want := c.len(), 20+4; got != want {
		t.Errorf("entries = %d, want %d: every session in play and the last 4 that are over", got, want)
	}
	for id := int64(100); id < 110; id++ {
		if kept, want := c.any(id) != nil, id >= 106; kept != want {
			t.Errorf("session %d over kept = %t, want %t (the last 4 put)", id, kept, want)
		}
	}
	// A session put again (its record edited, say) goes to the end of the
	// queue: its earlier place does not make it go early.
	c.put(106, in(106, sessions.PhaseFinished))
	for id := int64(110); id < 113; id++ {
		c.put(id, in(id, sessions.PhaseFinished))
	}
	if c.any(106) == nil {
		t.Error("session 106, put again after 107 to 109, went before them")
	}
	if c.any(107) != nil {
		t.Error("session 107 is still kept after 4 newer sessions that are over")
	}
	// An entry replaced by one in play (the cache's entry of a session
	// read again at an older revision, say) is not removed when its old
	// place in the queue comes up.
	c.put(110, in(110, sessions.PhasePlaying))
	for id := int64(120); id < 124; id++ {
		c.put(id, in(id, sessions.PhaseFinished))
	}
	if c.any(110) == nil {
		t.Error("session 110, in play when last put, went with the sessions that are over")
	}
}

func TestCacheNewestOfChannel(t *testing.T) {
	c := newCache(10)
	old := &cached{sess: &sessions.Session{ChannelID: "chan-1"}}
	newer := &cached{sess: &sessions.Session{ChannelID: "chan-1"}}
	c.put(7, newer)
	c.put(3, old) // History reads an older session of the channel later
	if got, _ := c.newest("chan-1"); got != newer {
		t.Errorf("newest(chan-1) = %p, want the entry of session 7 (%p), not of the older session 3", got, newer)
	}
	c.drop(7)
	if got, _ := c.newest("chan-1"); got != nil {
		t.Errorf("newest(chan-1) after dropping session 7 = %p, want nil: session 3 is not known to be the newest", got)
	}
	if first(c.newest("chan-2")) != nil {
		t.Error("newest(chan-2) of a channel never cached is not nil")
	}
}

func TestCacheContended(t *testing.T) {
	c := newCache(10)
	e := &cached{sess: &sessions.Session{ChannelID: "chan-1"}}
	c.setContended("chan-1", true) // no session cached there: nothing to record
	if len(c.contended) != 0 {
		t.Error("a channel without a cached session was recorded as contended")
	}
	c.put(4, e)
	if got, contended := c.newest("chan-1"); got != e || contended {
		t.Fatalf("newest(chan-1) = %p, %t, want the cached entry of a calm channel", got, contended)
	}
	c.setContended("chan-1", true)
	if got, contended := c.newest("chan-1"); got != e || !contended {
		t.Errorf("newest(chan-1) = %p, %t, want the entry, contended: Update reads the row first", got, contended)
	}
	c.setContended("chan-1", false)
	if _, contended := c.newest("chan-1"); contended {
		t.Error("a channel seen calm again is still contended")
	}
	c.setContended("chan-1", true)
	c.drop(4)
	if len(c.contended) != 0 {
		t.Error("dropping the channel's session left it recorded as contended")
	}
}

// first returns the entry of a newest result.
func first(e *cached, _ bool) *cached { return e }

func TestTwoRows(t *testing.T) {
	got := twoRows("INSERT INTO t (a, b, c) VALUES (?, 0, ?) ON CONFLICT (a) DO UPDATE SET b = excluded.b")
	want := "INSERT INTO t (a, b, c) VALUES (?, 0, ?), (?, 0, ?) ON CONFLICT (a) DO UPDATE SET b = excluded.b"
	if got != want {
		t.Errorf("twoRows() = %q, want %q", got, want)
	}
}

// TestReplayTail: a row whose actions extend those of the cached entry is
// rebuilt from a copy of the entry's match and the new actions alone, to
// the match a whole replay gives; anything else is left to the whole
// replay.
func TestReplayTail(t *testing.T) {
	cfg := game.DefaultConfig()
	play := func(columns ...int) *game.Match {
		m, err := game.NewMatch(cfg)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range columns {
			if _, err := m.Play(m.ToMove(), c); err != nil {
				t.Fatal(err)
			}
		}
		return m
	}
	entry := func(m *game.Match) *cached {
		actions, err := encodeActions(nil, m)
		if err != nil {
			t.Fatal(err)
		}
		return &cached{revision: 3, sess: &sessions.Session{Config: cfg, Match: m}, actions: actions}
	}
	older := entry(play(3, 3, 4))
	newer := play(3, 3, 4, 2, 5)
	text, err := encodeActions(older, newer)
	if err != nil {
		t.Fatal(err)
	}
	m, ok := replayTail(cfg, []byte(text), older)
	if !ok {
		t.Fatalf("replayTail(%s) after %s: not rebuilt from the entry", text, older.actions)
	}
	if fmt.Sprint(m.Actions()) != fmt.Sprint(newer.Actions()) || m.Round().Board().String() != newer.Round().Board().String() {
		t.Errorf("rebuilt %v\n%s\nwant %v\n%s", m.Actions(), m.Round().Board(), newer.Actions(), newer.Round().Board())
	}
	if older.sess.Match.Plies() != 3 {
		t.Errorf("the entry's match was changed: %d plies", older.sess.Match.Plies())
	}
	if m, ok := replayTail(cfg, []byte(text), entry(play())); !ok || m.Plies() != 5 {
		t.Errorf("replayTail(%s) after an empty entry: %v, want the 5 plies rebuilt", text, ok)
	}
	other := cfg
	other.Columns = 8
	jsonEntry := &cached{revision: 3, sess: older.sess, actions: `[{"kind":"drop","player":1,"column":3},{"kind":"drop","player":2,"column":3},{"kind":"drop","player":1,"column":4}]`}
	for name, tc := range map[string]struct {
		actions string
		older   *cached
		cfg     game.Config
	}{
		"no entry":             {text, nil, cfg},
		"another config":       {text, older, other},
		"an entry in JSON":     {text, jsonEntry, cfg},
		"a row in JSON":        {`[{"kind":"drop","player":1,"column":3},{"kind":"drop","player":2,"column":3},{"kind":"drop","player":1,"column":4},{"kind":"drop","player":2,"column":2}]`, older, cfg},
		"not an extension":     {"dDc", older, cfg},
		"the same actions":     {older.actions, older, cfg},
		"a tail that is wrong": {older.actions + "9z", older, cfg},
		"a tail not readable":  {older.actions + "?", older, cfg},
	} {
		if _, ok := replayTail(tc.cfg, []byte(tc.actions), tc.older); ok {
			t.Errorf("%s: rebuilt from the entry, want a whole replay", name)
		}
	}
}

// TestEncodeWebhookAsEncodingJSON: encodeWebhook writes the bytes
// encoding/json writes for the webhook (names, order, omitempty and
// omitzero, escapes, the time in UTC with nanoseconds), which rows already
// stored hold.
func TestEncodeWebhookAsEncodingJSON(t *testing.T) {
	paris := time.FixedZone("Paris", 3600)
	tests := []struct {
		name string
		w    sessions.Webhook
	}{
		{"all", sessions.Webhook{AppID: "1100000000000000001", Token: "aW50ZXJhY3Rpb24", Message: "@original", At: time.Date(2026, 11, 22, 18, 0, 0, 123456789, time.UTC)}},
		{"empty", sessions.Webhook{}},
		{"no time", sessions.Webhook{AppID: "1", Token: "t"}},
		{"time only", sessions.Webhook{At: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}},
		{"a message ID, another zone", sessions.Webhook{Token: "t", Message: "1300000000000000042", At: time.Date(2026, 6, 1, 12, 0, 0, 500, paris)}},
		{"escapes", sessions.Webhook{Token: "a\"b\\c<d>&\u00e9\u2028\x01", Message: "é"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := encodeWebhook(tt.w)
			if err != nil {
				t.Fatal(err)
			}
			w := tt.w
			w.At = w.At.UTC()
			want, err := json.Marshal(w)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("encodeWebhook = %s\nencoding/json  = %s", got, want)
			}
		})
	}
	// A time encoding/json refuses is refused too.
	for _, at := range []time.Time{time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC)} {
		w := sessions.Webhook{Token: "t", At: at}
		if _, jerr := json.Marshal(w); jerr == nil {
			t.Fatalf("json.Marshal(%v) error = nil, want the case encoding/json refuses", at)
		}
		if got, err := encodeWebhook(w); err == nil {
			t.Errorf("encodeWebhook(at %v) = %s, want an error", at, got)
		}
	}
}

// TestChangedColumns changes one field of a session at a time and checks
// that changedColumns names exactly its column, so that Update writes it.
func TestChangedColumns(t *testing.T) {
	m, err := game.NewMatch(game.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	base := &sessions.Session{ID: 1, ChannelID: "chan-1", Players: [2]sessions.Member{{ID: "1", Name: "A"}, {ID: "2", Name: "B"}},
		Config: game.DefaultConfig(), Match: m, Phase: sessions.PhasePlaying, Deadline: at,
		Webhook: sessions.Webhook{AppID: "app", Token: "tok", Message: "@original", At: at},
		Ratings: &sessions.RatingChange{}}
	row := &cached{sess: base, actions: "[]"}
	tests := []struct {
		name    string
		change  func(s *sessions.Session)
		actions string
		want    colSet
	}{
		{"nothing", func(*sessions.Session) {}, "[]", 0},
		{"the same times in another zone", func(s *sessions.Session) {
			s.Deadline, s.Webhook.At = at.In(time.FixedZone("x", 3600)), at.In(time.FixedZone("y", -3600))
		}, "[]", 0},
		{"phase", func(s *sessions.Session) { s.Phase = sessions.PhaseChallenge }, "[]", colPhase},
		{"player 1", func(s *sessions.Session) { s.Players[0].ID = "3" }, "[]", colPlayer1ID},
		{"player 2", func(s *sessions.Session) { s.Players[1].ID = "3" }, "[]", colPlayer2ID},
		{"player 1's name", func(s *sessions.Session) { s.Players[0].Name = "C" }, "[]", colPlayer1Name},
		{"player 2's name", func(s *sessions.Session) { s.Players[1].Name = "C" }, "[]", colPlayer2Name},
		{"actions", func(*sessions.Session) {}, `[{"kind":"drop","player":1,"column":3}]`, colActions},
		{"message", func(s *sessions.Session) { s.MessageID = "m" }, "[]", colMessage},
		{"theme", func(s *sessions.Session) { s.Theme = "t" }, "[]", colTheme},
		{"AI", func(s *sessions.Session) { s.AI = "hard" }, "[]", colAI},
		{"end", func(s *sessions.Session) { s.End = sessions.EndWon }, "[]", colEnd},
		{"deadline", func(s *sessions.Session) { s.Deadline = at.Add(time.Nanosecond) }, "[]", colDeadline},
		{"no deadline", func(s *sessions.Session) { s.Deadline = time.Time{} }, "[]", colDeadline},
		{"post sequence", func(s *sessions.Session) { s.PostSeq = 1 }, "[]", colPostSeq},
		{"post due", func(s *sessions.Session) { s.PostDue = at }, "[]", colPostDue},
		{"webhook's application", func(s *sessions.Session) { s.Webhook.AppID = "x" }, "[]", colWebhook},
		{"webhook's token", func(s *sessions.Session) { s.Webhook.Token = "x" }, "[]", colWebhook},
		{"webhook's message", func(s *sessions.Session) { s.Webhook.Message = "x" }, "[]", colWebhook},
		{"webhook's time", func(s *sessions.Session) { s.Webhook.At = at.Add(time.Nanosecond) }, "[]", colWebhook},
		{"ended by", func(s *sessions.Session) { s.EndedBy = "9" }, "[]", colEndedBy},
		{"rated", func(s *sessions.Session) { s.Rated = true }, "[]", colRated},
		{"rated, capped", func(s *sessions.Session) { s.RatedCapped = true }, "[]", colRatedCapped},
		{"a rating", func(s *sessions.Session) { s.Ratings.After[0].R = 1 }, "[]", colRatings},
		{"no ratings", func(s *sessions.Session) { s.Ratings = nil }, "[]", colRatings},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := base.Clone()
			tt.change(s)
			if got := changedColumns(row, s, tt.actions); got != tt.want {
				t.Errorf("changedColumns() = %v, want %v", got.names(), tt.want.names())
			}
		})
	}
	full := &cached{sess: base, actions: "[]", full: true}
	if got := changedColumns(full, base.Clone(), "[]"); got != allColumns {
		t.Errorf("changedColumns(a settled row, no change) = %v, want every column", got.names())
	}
}

// TestKindOf checks that a move's change is written as one kind, and any
// other change with exactly its columns.
func TestKindOf(t *testing.T) {
	for _, tt := range []struct {
		c, want colSet
	}{
		{0, moveColumns},
		{colActions | colWebhook | colDeadline, moveColumns},
		{colActions | colPostSeq | colPostDue | colMessage, moveColumns},
		{colActions | colPhase | colEnd, colActions | colPhase | colEnd},
		{colTheme, colTheme},
	} {
		if got := kindOf(tt.c); got != tt.want {
			t.Errorf("kindOf(%v) = %v, want %v", tt.c.names(), got.names(), tt.want.names())
		}
	}
	// Without UpdateMany (SQLite), a statement writes what changed.
	many := Dialect{UpdateMany: func(set, arrays []string) string { return "" }}
	for _, c := range []colSet{0, colActions | colWebhook | colDeadline, colActions | colPhase | colEnd} {
		if got := (Dialect{}).writes(c); got != c {
			t.Errorf("writes(%v) without UpdateMany = %v, want the same", c.names(), got.names())
		}
		if got := many.writes(c); got != kindOf(c) {
			t.Errorf("writes(%v) with UpdateMany = %v, want %v", c.names(), got.names(), kindOf(c).names())
		}
	}
	if len(columnNames) != bits.OnesCount32(uint32(allColumns)) {
		t.Errorf("%d column names for %d columns", len(columnNames), bits.OnesCount32(uint32(allColumns)))
	}
}
