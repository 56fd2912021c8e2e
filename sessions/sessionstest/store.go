package sessionstest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/rating"
	"github.com/connectn/connectn/sessions"
)

func testCreateGetRoundtrip(t *testing.T, b Backend) {
	twoWins := game.Config{Rows: 6, Columns: 7, Connect: 4, Wins: 2, Openers: game.AlwaysFirst, FirstOpener: game.Player2}
	tests := []struct {
		name string
		sess sessions.Session
	}{
		{
			name: "challenge without moves",
			sess: sessions.Session{
				ChannelID: "chan-1", GuildID: "guild-1", Players: [2]sessions.Member{alice, bob},
				Config: game.DefaultConfig(), Match: mustMatch(t, game.DefaultConfig()), Phase: sessions.PhaseChallenge,
			},
		},
		{
			// Player2 opens and wins round 1 with a vertical line; round 2
			// has three discs.
			name: "second round under way",
			sess: sessions.Session{
				ChannelID: "chan-2", GuildID: "guild-1", Players: [2]sessions.Member{bob, carol},
				Config: twoWins, Match: mustMatch(t, twoWins, 0, 1, 0, 1, 0, 1, 0, 6, 5, 6),
				Phase: sessions.PhasePlaying, MessageID: "msg-42",
			},
		},
		{
			name: "direct message, unnamed players, zero first opener",
			sess: sessions.Session{
				ChannelID: "dm-1", Players: [2]sessions.Member{{ID: "1"}, {ID: "2"}},
				Config: game.Config{Rows: 4, Columns: 4, Connect: 3, Wins: 1},
				Match:  mustMatch(t, game.Config{Rows: 4, Columns: 4, Connect: 3, Wins: 1}, 3),
				Phase:  sessions.PhasePlaying,
			},
		},
		{
			name: "finished by forfeit",
			sess: func() sessions.Session {
				m := mustMatch(t, game.DefaultConfig(), 3, 3)
				if err := m.Forfeit(game.Player1); err != nil {
					t.Fatalf("Forfeit() error = %v", err)
				}
				return sessions.Session{
					ChannelID: "chan-3", GuildID: "guild-2", Players: [2]sessions.Member{alice, carol},
					Config: game.DefaultConfig(), Match: m, Phase: sessions.PhaseFinished, MessageID: "msg-7",
					End: sessions.EndForfeit,
				}
			}(),
		},
		{
			name: "every field of issue 6: theme, deadline, pending post, webhook",
			sess: sessions.Session{
				ChannelID: "chan-4", GuildID: "guild-1", Players: [2]sessions.Member{alice, bob},
				Config: twoWins, Match: mustMatch(t, twoWins, 3), Phase: sessions.PhasePlaying, MessageID: "msg-9",
				Theme: "colorblind", Deadline: t0.Add(5 * time.Minute).UTC(), PostSeq: 2, PostDue: t0.UTC(),
				Webhook: sessions.Webhook{AppID: "app-1", Token: "secret-token", Message: "@original", At: t0.UTC()},
			},
		},
		{
			name: "a place: a group DM in German, reached by webhook only",
			sess: sessions.Session{
				ChannelID: "chan-6", Players: [2]sessions.Member{alice, bob},
				Config: game.DefaultConfig(), Match: mustMatch(t, game.DefaultConfig()), Phase: sessions.PhaseChallenge,
				Place: sessions.Place{Locale: "de", WebhookOnly: true, Thread: true},
			},
		},
		{
			name: "ended by a moderator",
			sess: sessions.Session{
				ChannelID: "chan-7", GuildID: "guild-1", Players: [2]sessions.Member{alice, bob},
				Config: game.DefaultConfig(), Match: mustMatch(t, game.DefaultConfig(), 3), Phase: sessions.PhaseCancelled,
				End: sessions.EndEnded, EndedBy: carol.ID,
			},
		},
		{
			name: "rated and capped, with the ratings of a replay",
			sess: sessions.Session{
				ChannelID: "chan-8", GuildID: "guild-1", Players: [2]sessions.Member{alice, bob},
				Config: game.DefaultConfig(), Match: mustMatch(t, game.DefaultConfig(), 3), Phase: sessions.PhasePlaying,
				Rated: true, RatedCapped: true, Ratings: &sessions.RatingChange{
					Before: [2]rating.Rating{rating.New(), {R: 1623.25, RD: 88.125, Sigma: 0.0600001}},
					After:  [2]rating.Rating{{R: 1488.0000001, RD: 320.5, Sigma: 0.06}, {R: 1630.75, RD: 87.5, Sigma: 0.0599999}},
				},
			},
		},
		{
			name: "against the bot",
			sess: sessions.Session{
				ChannelID: "chan-5", GuildID: "guild-1", Players: [2]sessions.Member{alice, {ID: "900", Name: "ConnectN"}},
				Config: game.DefaultConfig(), Match: mustMatch(t, game.DefaultConfig()), Phase: sessions.PhasePlaying, AI: "hard",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := mustOpen(t, b)
			in := tt.sess
			in.ID, in.CreatedAt = 99, t0.Add(-time.Hour) // Create overwrites them
			created := mustCreate(t, st, &in)

			want := tt.sess
			want.ID = created.ID
			want.CreatedAt, want.UpdatedAt = t0.UTC(), t0.UTC()
			assertSameSession(t, created, &want)
			if created.ID < 1 {
				t.Errorf("Create().ID = %d, want at least 1", created.ID)
			}
			if created.Match == in.Match {
				t.Error("Create() returned the caller's match, want a match of its own")
			}
			if in.ID != 99 {
				t.Errorf("Create() changed its argument's ID to %d", in.ID)
			}

			got := mustGet(t, st, tt.sess.ChannelID)
			assertSameSession(t, got, &want)
			if got.CreatedAt.Location() != time.UTC {
				t.Errorf("Get().CreatedAt.Location() = %v, want UTC", got.CreatedAt.Location())
			}
		})
	}
}

func testUpdateRoundtrip(t *testing.T, b Backend) {
	clock := newClock()
	st := b.NewDB(t).Open(t, clock)
	created := mustCreate(t, st, newSession(t, "chan-1"))

	clock.Advance(90 * time.Second)
	updated := mustUpdate(t, st, "chan-1", func(s *sessions.Session) error {
		s.Phase = sessions.PhasePlaying
		s.MessageID = "msg-1"
		s.Players[1].Name = "Bobby"
		mustPlay(t, s.Match, 3, 3, 4)
		return nil
	})

	want := *created
	want.Phase, want.MessageID = sessions.PhasePlaying, "msg-1"
	want.Players[1].Name = "Bobby"
	want.Match = mustMatch(t, game.DefaultConfig(), 3, 3, 4)
	want.UpdatedAt = t0.Add(90 * time.Second).UTC()
	assertSameSession(t, updated, &want)
	assertSameSession(t, mustGet(t, st, "chan-1"), &want)
	if got, want := mustGet(t, st, "chan-1").Match.Round().Board().String(), ".......\n.......\n.......\n.......\n...o...\n...xx..\n"; got != want {
		t.Errorf("board after reload =\n%s want\n%s", got, want)
	}
}

func testReopenMidMatch(t *testing.T, b Backend) {
	db := b.NewDB(t)
	clock := newClock()
	st := db.Open(t, clock)
	mustCreate(t, st, newSession(t, "chan-1"))
	mustUpdate(t, st, "chan-1", func(s *sessions.Session) error {
		s.Phase = sessions.PhasePlaying
		return nil
	})
	for _, column := range []int{0, 1, 0, 1} {
		mustUpdate(t, st, "chan-1", func(s *sessions.Session) error {
			_, err := s.Match.Play(s.Match.ToMove(), column)
			return err
		})
	}
	before := mustGet(t, st, "chan-1")
	if err := st.Close(); err != nil {
		t.Fatalf("Close() error = %v", err)
	}

	clock.Advance(time.Hour)
	st = db.Open(t, clock)
	got := mustGet(t, st, "chan-1")
	assertSameSession(t, got, before)

	// Player 1 completes a vertical line in column 1.
	for _, column := range []int{0, 1, 0} {
		got = mustUpdate(t, st, "chan-1", func(s *sessions.Session) error {
			_, err := s.Match.Play(s.Match.ToMove(), column)
			return err
		})
	}
	if !got.Match.Over() || got.Match.Winner() != game.Player1 {
		t.Fatalf("after the last move over, winner = %t, %v, want true, player 1", got.Match.Over(), got.Match.Winner())
	}
	if got.Phase != sessions.PhaseFinished {
		t.Errorf("Phase after the winning move = %q, want %q", got.Phase, sessions.PhaseFinished)
	}
	assertSameSession(t, mustGet(t, st, "chan-1"), got)
	if got, want := len(got.Match.Actions()), 7; got != want {
		t.Errorf("len(Actions()) = %d, want %d", got, want)
	}
}

func testCreateActiveSession(t *testing.T, b Backend) {
	tests := []struct {
		name    string
		phase   sessions.Phase // the first session's phase when the second is created
		channel string         // the second session's channel
		wantErr error
	}{
		{name: "challenge pending", phase: sessions.PhaseChallenge, channel: "chan-1", wantErr: sessions.ErrActiveSession},
		{name: "match playing", phase: sessions.PhasePlaying, channel: "chan-1", wantErr: sessions.ErrActiveSession},
		{name: "match finished", phase: sessions.PhaseFinished, channel: "chan-1"},
		{name: "challenge cancelled", phase: sessions.PhaseCancelled, channel: "chan-1"},
		{name: "other channel while playing", phase: sessions.PhasePlaying, channel: "chan-2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := mustOpen(t, b)
			mustCreate(t, st, newSession(t, "chan-1"))
			first := mustUpdate(t, st, "chan-1", func(s *sessions.Session) error {
				s.Phase = tt.phase
				switch tt.phase {
				case sessions.PhaseFinished:
					return s.Match.Forfeit(game.Player1)
				case sessions.PhaseCancelled:
					s.End = sessions.EndDeclined
				}
				return nil
			})

			second, err := st.Create(t.Context(), newSession(t, tt.channel))
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("second Create() error = %v, want %v", err, tt.wantErr)
			}
			if tt.wantErr != nil {
				assertSameSession(t, mustGet(t, st, "chan-1"), first)
				return
			}
			if second.ID <= first.ID {
				t.Errorf("second ID = %d, want more than the first's %d", second.ID, first.ID)
			}
			assertSameSession(t, mustGet(t, st, tt.channel), second)

			history, err := st.History(t.Context(), "chan-1", 0)
			if err != nil {
				t.Fatalf("History() error = %v", err)
			}
			var ids []int64
			for _, s := range history {
				ids = append(ids, s.ID)
			}
			wantIDs := []int64{first.ID}
			if tt.channel == "chan-1" {
				wantIDs = []int64{second.ID, first.ID}
			}
			if fmt.Sprint(ids) != fmt.Sprint(wantIDs) {
				t.Fatalf("History() IDs = %v, want %v", ids, wantIDs)
			}
			assertSameSession(t, history[len(history)-1], first)
		})
	}
}

func testIDsNeverReused(t *testing.T, b Backend) {
	st := mustOpen(t, b)
	var last int64
	for i := range 5 {
		s := mustCreate(t, st, newSession(t, "chan-1"))
		if s.ID <= last {
			t.Fatalf("session %d got ID %d, want more than %d", i, s.ID, last)
		}
		last = s.ID
		if _, err := st.Abandon(t.Context(), "chan-1"); err != nil {
			t.Fatalf("Abandon() error = %v", err)
		}
	}
	history, err := st.History(t.Context(), "chan-1", 2)
	if err != nil {
		t.Fatalf("History() error = %v", err)
	}
	if got, want := len(history), 2; got != want {
		t.Fatalf("len(History(limit 2)) = %d, want %d", got, want)
	}
	if history[0].ID != last || history[0].Phase != sessions.PhaseCancelled {
		t.Errorf("History()[0] = ID %d %q, want ID %d %q", history[0].ID, history[0].Phase, last, sessions.PhaseCancelled)
	}
	empty, err := st.History(t.Context(), "nowhere", 0)
	if err != nil || empty == nil || len(empty) != 0 {
		t.Errorf("History(nowhere) = %v, %v, want an empty slice, nil", empty, err)
	}
}

func testCreateValidation(t *testing.T, b Backend) {
	tests := []struct {
		name      string
		edit      func(*sessions.Session)
		wantErr   error
		wantPhase sessions.Phase
	}{
		{name: "empty channel", edit: func(s *sessions.Session) { s.ChannelID = "" }, wantErr: sessions.ErrInvalidSession},
		{name: "player without id", edit: func(s *sessions.Session) { s.Players[1].ID = "" }, wantErr: sessions.ErrInvalidSession},
		{name: "same member twice", edit: func(s *sessions.Session) { s.Players[1] = s.Players[0] }, wantErr: sessions.ErrInvalidSession},
		{name: "unknown phase", edit: func(s *sessions.Session) { s.Phase = "paused" }, wantErr: sessions.ErrInvalidSession},
		{name: "match of another config", edit: func(s *sessions.Session) { s.Config.Wins = 3 }, wantErr: sessions.ErrInvalidSession},
		{name: "invalid config without match", edit: func(s *sessions.Session) { s.Config.Rows, s.Match = 0, nil }, wantErr: game.ErrInvalidConfig},
		{name: "no match is built from config", edit: func(s *sessions.Session) { s.Match = nil }, wantPhase: sessions.PhaseChallenge},
		{name: "empty phase means challenge", edit: func(s *sessions.Session) { s.Phase = "" }, wantPhase: sessions.PhaseChallenge},
		{name: "bot match starts playing", edit: func(s *sessions.Session) { s.Phase = sessions.PhasePlaying }, wantPhase: sessions.PhasePlaying},
		{
			name: "active phase with a match over is finished",
			edit: func(s *sessions.Session) {
				s.Phase = sessions.PhasePlaying
				if err := s.Match.Forfeit(game.Player2); err != nil {
					t.Fatalf("Forfeit() error = %v", err)
				}
			},
			wantPhase: sessions.PhaseFinished,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := mustOpen(t, b)
			in := newSession(t, "chan-1")
			tt.edit(in)
			got, err := st.Create(t.Context(), in)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Create() error = %v, want %v", err, tt.wantErr)
			}
			if tt.wantErr != nil {
				if _, err := st.Get(t.Context(), "chan-1"); !errors.Is(err, sessions.ErrNotFound) {
					t.Errorf("Get() after a failed Create error = %v, want %v", err, sessions.ErrNotFound)
				}
				return
			}
			if got.Phase != tt.wantPhase {
				t.Errorf("Create().Phase = %q, want %q", got.Phase, tt.wantPhase)
			}
			assertSameSession(t, mustGet(t, st, "chan-1"), got)
		})
	}
	t.Run("nil session", func(t *testing.T) {
		if _, err := mustOpen(t, b).Create(t.Context(), nil); !errors.Is(err, sessions.ErrInvalidSession) {
			t.Errorf("Create(nil) error = %v, want %v", err, sessions.ErrInvalidSession)
		}
	})
}

func testUpdateFnErrorWritesNothing(t *testing.T, b Backend) {
	errCustom := errors.New("stale button")
	tests := []struct {
		name    string
		fn      func(*sessions.Session) error
		wantErr error
	}{
		{
			name: "not your turn",
			fn: func(s *sessions.Session) error {
				_, err := s.Match.Play(game.Player2, 0)
				return err
			},
			wantErr: game.ErrNotYourTurn,
		},
		{
			name: "column full",
			fn: func(s *sessions.Session) error {
				_, err := s.Match.Play(s.Match.ToMove(), 2)
				return err
			},
			wantErr: game.ErrColumnFull,
		},
		{
			name: "changes made, then an error",
			fn: func(s *sessions.Session) error {
				s.Phase, s.MessageID = sessions.PhaseFinished, "msg-2"
				s.Players[0].Name = "Mallory"
				if _, err := s.Match.Play(s.Match.ToMove(), 0); err != nil {
					return err
				}
				return errCustom
			},
			wantErr: errCustom,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clock := newClock()
			st := b.NewDB(t).Open(t, clock)
			sess := newSession(t, "chan-1")
			sess.Phase, sess.MessageID = sessions.PhasePlaying, "msg-1"
			mustPlay(t, sess.Match, 2, 2, 2, 2, 2, 2) // column 3 full
			before := mustCreate(t, st, sess)

			clock.Advance(time.Minute)
			got, err := st.Update(t.Context(), "chan-1", tt.fn)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Update() error = %v, want %v", err, tt.wantErr)
			}
			if got != nil {
				t.Errorf("Update() session = %+v, want nil on error", got)
			}
			assertSameSession(t, mustGet(t, st, "chan-1"), before)
		})
	}
	t.Run("returned unchanged", func(t *testing.T) {
		st := mustOpen(t, b)
		mustCreate(t, st, newSession(t, "chan-1"))
		_, err := st.Update(t.Context(), "chan-1", func(*sessions.Session) error { return errCustom })
		if err != errCustom { //nolint:errorlint // the contract is the very same value
			t.Errorf("Update() error = %#v, want the fn's own %#v", err, errCustom)
		}
	})
}

func testUpdateInvalidChange(t *testing.T, b Backend) {
	tests := []struct {
		name string
		fn   func(*sessions.Session)
	}{
		{name: "ID", fn: func(s *sessions.Session) { s.ID++ }},
		{name: "ChannelID", fn: func(s *sessions.Session) { s.ChannelID = "chan-2" }},
		{name: "GuildID", fn: func(s *sessions.Session) { s.GuildID = "guild-2" }},
		{name: "Config", fn: func(s *sessions.Session) { s.Config.Wins = 5 }},
		{name: "CreatedAt", fn: func(s *sessions.Session) { s.CreatedAt = s.CreatedAt.Add(time.Second) }},
		{name: "Place", fn: func(s *sessions.Session) { s.Place.Locale = "ja" }},
		{name: "nil Match", fn: func(s *sessions.Session) { s.Match = nil }},
		{name: "unknown Phase", fn: func(s *sessions.Session) { s.Phase = "paused" }},
		{name: "same member twice", fn: func(s *sessions.Session) { s.Players[1] = s.Players[0] }},
		{name: "player without id", fn: func(s *sessions.Session) { s.Players[0].ID = "" }},
		{name: "match of another config", fn: func(s *sessions.Session) {
			s.Match = mustMatch(t, game.Config{Rows: 5, Columns: 5, Connect: 4, Wins: 1}, 0)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := mustOpen(t, b)
			before := mustCreate(t, st, newSession(t, "chan-1"))
			_, err := st.Update(t.Context(), "chan-1", func(s *sessions.Session) error {
				tt.fn(s)
				return nil
			})
			if !errors.Is(err, sessions.ErrInvalidSession) {
				t.Fatalf("Update() error = %v, want %v", err, sessions.ErrInvalidSession)
			}
			assertSameSession(t, mustGet(t, st, "chan-1"), before)
		})
	}
}

func testNotFound(t *testing.T, b Backend) {
	st := mustOpen(t, b)
	mustCreate(t, st, newSession(t, "chan-1"))
	if _, err := st.Get(t.Context(), "chan-2"); !errors.Is(err, sessions.ErrNotFound) {
		t.Errorf("Get(chan-2) error = %v, want %v", err, sessions.ErrNotFound)
	}
	called := false
	_, err := st.Update(t.Context(), "chan-2", func(*sessions.Session) error { called = true; return nil })
	if !errors.Is(err, sessions.ErrNotFound) || called {
		t.Errorf("Update(chan-2) error = %v, fn called %t, want %v, false", err, called, sessions.ErrNotFound)
	}
	if _, err := st.Abandon(t.Context(), "chan-2"); !errors.Is(err, sessions.ErrNotFound) {
		t.Errorf("Abandon(chan-2) error = %v, want %v", err, sessions.ErrNotFound)
	}
	mustUpdate(t, st, "chan-1", func(s *sessions.Session) error { s.Phase = sessions.PhaseCancelled; return nil })
	if _, err := st.Abandon(t.Context(), "chan-1"); !errors.Is(err, sessions.ErrNotFound) {
		t.Errorf("Abandon() of a cancelled session error = %v, want %v", err, sessions.ErrNotFound)
	}
	// Get still returns the channel's last session once it ended.
	if got := mustGet(t, st, "chan-1"); got.Phase != sessions.PhaseCancelled {
		t.Errorf("Get() after cancel Phase = %q, want %q", got.Phase, sessions.PhaseCancelled)
	}
}

func testCorruptRow(t *testing.T, b Backend) {
	tests := []struct {
		name     string
		column   string
		value    string
		wantErrs []error
	}{
		{name: "actions not json", column: "actions", value: `[{"kind":`, wantErrs: []error{sessions.ErrCorrupt}},
		{name: "column out of range", column: "actions", value: `[{"kind":"drop","player":1,"column":99}]`, wantErrs: []error{sessions.ErrCorrupt, game.ErrColumnOutOfRange}},
		{name: "out of turn", column: "actions", value: `[{"kind":"drop","player":1,"column":0},{"kind":"drop","player":1,"column":0}]`, wantErrs: []error{sessions.ErrCorrupt, game.ErrNotYourTurn}},
		{name: "unknown action kind", column: "actions", value: `[{"kind":"teleport","player":1}]`, wantErrs: []error{sessions.ErrCorrupt, game.ErrInvalidAction}},
		{name: "move text column out of range", column: "actions", value: `dZ`, wantErrs: []error{sessions.ErrCorrupt, game.ErrColumnOutOfRange}},
		{name: "move text out of turn", column: "actions", value: `dd`, wantErrs: []error{sessions.ErrCorrupt, game.ErrNotYourTurn}},
		{name: "move text unreadable", column: "actions", value: `dE?`, wantErrs: []error{sessions.ErrCorrupt, game.ErrInvalidAction}},
		{name: "config not json", column: "config", value: `rows=6`, wantErrs: []error{sessions.ErrCorrupt}},
		{name: "impossible config", column: "config", value: `{"rows":0,"columns":7,"connect":4,"wins":1}`, wantErrs: []error{sessions.ErrCorrupt, game.ErrInvalidConfig}},
		{name: "unreadable time", column: "updated_at", value: `yesterday`, wantErrs: []error{sessions.ErrCorrupt}},
		{name: "ratings not json", column: "ratings", value: `{"before":[{"r":15`, wantErrs: []error{sessions.ErrCorrupt}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := b.NewDB(t)
			st := db.Open(t, newClock())
			sess := newSession(t, "chan-1")
			mustPlay(t, sess.Match, 3, 4)
			created := mustCreate(t, st, sess)
			// Another program damages the row (and, as every writer must,
			// moves its revision on).
			db.Exec(t, "UPDATE matches SET "+tt.column+" = ?, revision = revision + 1 WHERE id = ?", tt.value, created.ID)

			_, err := st.Get(t.Context(), "chan-1")
			for _, want := range tt.wantErrs {
				if !errors.Is(err, want) {
					t.Errorf("Get() error = %v, want it to wrap %v", err, want)
				}
			}
			if err != nil && !strings.Contains(err.Error(), fmt.Sprintf("session %d", created.ID)) {
				t.Errorf("Get() error = %q, want it to name session %d", err, created.ID)
			}
			called := false
			if _, err := st.Update(t.Context(), "chan-1", func(*sessions.Session) error { called = true; return nil }); !errors.Is(err, sessions.ErrCorrupt) || called {
				t.Errorf("Update() error = %v, fn called %t, want %v, false", err, called, sessions.ErrCorrupt)
			}
			if _, err := st.History(t.Context(), "chan-1", 0); !errors.Is(err, sessions.ErrCorrupt) {
				t.Errorf("History() error = %v, want %v", err, sessions.ErrCorrupt)
			}

			// The corrupt session blocks the channel until abandoned.
			if _, err := st.Create(t.Context(), newSession(t, "chan-1")); !errors.Is(err, sessions.ErrActiveSession) {
				t.Errorf("Create() beside a corrupt active session error = %v, want %v", err, sessions.ErrActiveSession)
			}
			id, err := st.Abandon(t.Context(), "chan-1")
			if err != nil || id != created.ID {
				t.Fatalf("Abandon() = %d, %v, want %d, nil", id, err, created.ID)
			}
			next := mustCreate(t, st, newSession(t, "chan-1"))
			assertSameSession(t, mustGet(t, st, "chan-1"), next)
		})
	}
}

func testClosed(t *testing.T, b Backend) {
	st := mustOpen(t, b)
	if err := st.Close(); err != nil {
		t.Fatalf("Close() error = %v", err)
	}
	if err := st.Ping(t.Context()); err == nil {
		t.Error("Ping() after Close error = nil, want an error")
	}
	if _, err := st.Get(t.Context(), "chan-1"); err == nil || errors.Is(err, sessions.ErrNotFound) {
		t.Errorf("Get() after Close error = %v, want a database error", err)
	}
}

func testUpdateContextCancelled(t *testing.T, b Backend) {
	st := mustOpen(t, b)
	mustCreate(t, st, newSession(t, "chan-1"))
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	called := false
	_, err := st.Update(ctx, "chan-1", func(*sessions.Session) error { called = true; return nil })
	if !errors.Is(err, context.Canceled) || called {
		t.Errorf("Update(cancelled) error = %v, fn called %t, want %v, false", err, called, context.Canceled)
	}
}

// testTwoStoresRetry stands in for two processes sharing a database: the
// per-channel lock cannot see the other Store, so the revision check must.
// The stale write is not lost nor applied over the other's: Update calls
// fn again on the state the other process left.
func testTwoStoresRetry(t *testing.T, b Backend) {
	db := b.NewDB(t)
	one, two := db.Open(t, newClock()), db.Open(t, newClock())
	mustCreate(t, one, newSession(t, "chan-1"))

	var seen []int
	got, err := one.Update(t.Context(), "chan-1", func(s *sessions.Session) error {
		seen = append(seen, s.Match.Plies())
		if len(seen) == 1 {
			// The other process plays first, while this fn holds a stale copy.
			mustUpdate(t, two, "chan-1", func(s *sessions.Session) error {
				_, err := s.Match.Play(s.Match.ToMove(), 0)
				return err
			})
		}
		_, err := s.Match.Play(s.Match.ToMove(), 6)
		return err
	})
	if err != nil {
		t.Fatalf("Update() that lost a race error = %v, want it retried on the fresh state", err)
	}
	if fmt.Sprint(seen) != "[0 1]" {
		t.Errorf("fn saw plies %v, want [0 1]: a first call on the stale copy, a second on the other's write", seen)
	}
	want := []game.Action{{Kind: game.Drop, Player: game.Player1, Column: 0}, {Kind: game.Drop, Player: game.Player2, Column: 6}}
	for _, st := range []sessions.Store{one, two} {
		if got := mustGet(t, st, "chan-1").Match.Actions(); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("Actions() = %v, want %v", got, want)
		}
	}
	assertSameSession(t, mustGet(t, two, "chan-1"), got)
	if _, err := two.Create(t.Context(), newSession(t, "chan-1")); !errors.Is(err, sessions.ErrActiveSession) {
		t.Errorf("Create() in the other store error = %v, want %v", err, sessions.ErrActiveSession)
	}
}

// testTwoStoresStaleClick is the race of two replicas taking the same
// click: the loser's retry finds the board moved on and its fn refuses,
// which Update returns unchanged, writing nothing.
func testTwoStoresStaleClick(t *testing.T, b Backend) {
	db := b.NewDB(t)
	one, two := db.Open(t, newClock()), db.Open(t, newClock())
	mustCreate(t, one, newLongSession(t, "chan-1"))
	errStale := errors.New("stale button")
	click := func(st sessions.Store, inside func()) error {
		_, err := st.Update(t.Context(), "chan-1", func(s *sessions.Session) error {
			if s.Match.Plies() != 0 { // the button showed ply 0
				return errStale
			}
			if inside != nil {
				inside()
			}
			_, err := s.Match.Play(s.Match.ToMove(), 0)
			return err
		})
		return err
	}
	var inner error
	outer := click(one, func() {
		if inner == nil {
			inner = click(two, nil)
		}
	})
	if inner != nil {
		t.Fatalf("the winner's click error = %v", inner)
	}
	if !errors.Is(outer, errStale) {
		t.Fatalf("the loser's click error = %v, want its fn's own %v", outer, errStale)
	}
	if got := mustGet(t, one, "chan-1").Match.Plies(); got != 1 {
		t.Errorf("Plies() = %d, want 1: exactly one of the two clicks applied", got)
	}
}

// testTwoStoresRefusalRechecked is the turn that moved on in another
// process: this store holds the session in memory at the other player's
// turn, and a click that the cached state would refuse ("not your turn")
// is checked against the row, found to be the right turn, and played.
func testTwoStoresRefusalRechecked(t *testing.T, b Backend) {
	db := b.NewDB(t)
	one, two := db.Open(t, newClock()), db.Open(t, newClock())
	mustCreate(t, one, newSession(t, "chan-1"))
	mustGet(t, one, "chan-1") // in one's memory: player 1 to move
	mustUpdate(t, two, "chan-1", func(s *sessions.Session) error {
		_, err := s.Match.Play(game.Player1, 3)
		return err
	})
	errNotYourTurn := errors.New("not your turn")
	got, err := one.Update(t.Context(), "chan-1", func(s *sessions.Session) error {
		if s.Match.ToMove() != game.Player2 {
			return errNotYourTurn
		}
		_, err := s.Match.Play(game.Player2, 3)
		return err
	})
	if err != nil {
		t.Fatalf("player 2's click in the store that last saw player 1 to move: error = %v, want it played on the row's state", err)
	}
	if got.Match.Plies() != 2 || mustGet(t, two, "chan-1").Match.Plies() != 2 {
		t.Errorf("Plies() = %d, want 2: both moves stored", got.Match.Plies())
	}
	// And a refusal that holds on the row is returned unchanged.
	if _, err := one.Update(t.Context(), "chan-1", func(s *sessions.Session) error {
		if s.Match.ToMove() != game.Player2 {
			return errNotYourTurn
		}
		return nil
	}); !errors.Is(err, errNotYourTurn) {
		t.Errorf("player 2 clicking out of turn: error = %v, want %v", err, errNotYourTurn)
	}
}

// testTwoStoresTakeTurnsReadOnce is two replicas taking turns at a match's
// clicks, each click to the one that did not serve the last: each store's
// memory of the match is always one move behind, its fn (like the bot's,
// which checks the button's ply) refuses that state, and the move then
// reads the row once and writes, never reading it twice.
func testTwoStoresTakeTurnsReadOnce(t *testing.T, b Backend) {
	db := b.NewDB(t)
	stores := []sessions.Store{db.Open(t, newClock()), db.Open(t, newClock())}
	mustCreate(t, stores[0], newLongSession(t, "chan-1"))
	mustGet(t, stores[1], "chan-1")
	errStale := errors.New("stale button")
	const moves = 8
	for ply := range moves {
		st := stores[ply%2]
		before := db.RowReads(st)
		mustUpdate(t, st, "chan-1", func(s *sessions.Session) error {
			if s.Match.Plies() != ply { // the button showed this ply
				return errStale
			}
			_, err := s.Match.Play(s.Match.ToMove(), ply%longConfig.Columns)
			return err
		})
		if got := db.RowReads(st) - before; ply > 0 && got != 1 {
			t.Errorf("move %d in the store that did not write the last: rows read = %d, want 1", ply+1, got)
		}
	}
	for i, st := range stores {
		if got := mustGet(t, st, "chan-1").Match.Plies(); got != moves {
			t.Errorf("store %d: Plies() = %d, want %d", i, got, moves)
		}
	}
}

// testTwoStoresAtRandom plays a match's moves through two stores chosen
// at random for each move, as a load balancer in front of two replicas
// routes clicks: a move in the store that wrote the last one reads no row
// (its cached state is current, whatever happened before in the other
// store), and a move in the other store reads one.
func testTwoStoresAtRandom(t *testing.T, b Backend) {
	db := b.NewDB(t)
	stores := []sessions.Store{db.Open(t, newClock()), db.Open(t, newClock())}
	mustCreate(t, stores[0], newLongSession(t, "chan-1"))
	mustGet(t, stores[1], "chan-1")
	errStale := errors.New("stale button")
	// A fixed sequence with runs of both lengths: which store serves each
	// move.
	route := []int{0, 1, 0, 0, 1, 1, 1, 0, 1, 0, 0, 0, 1, 1, 0, 1}
	last := 0 // the store that wrote the last state (Create)
	for ply, k := range route {
		st := stores[k]
		before := db.RowReads(st)
		mustUpdate(t, st, "chan-1", func(s *sessions.Session) error {
			if s.Match.Plies() != ply { // the button showed this ply
				return errStale
			}
			_, err := s.Match.Play(s.Match.ToMove(), ply%longConfig.Columns)
			return err
		})
		want := int64(1)
		if k == last {
			want = 0
		}
		if got := db.RowReads(st) - before; got != want {
			t.Errorf("move %d in store %d (the last written by store %d): rows read = %d, want %d", ply+1, k, last, got, want)
		}
		last = k
	}
	for i, st := range stores {
		if got := mustGet(t, st, "chan-1").Match.Plies(); got != len(route) {
			t.Errorf("store %d: Plies() = %d, want %d", i, got, len(route))
		}
	}
}

// testTwoStoresSeeEachOther checks that a store that has a session in
// memory still sees what another process wrote: its cache is checked
// against the row's revision at every load.
func testTwoStoresSeeEachOther(t *testing.T, b Backend) {
	db := b.NewDB(t)
	one, two := db.Open(t, newClock()), db.Open(t, newClock())
	mustCreate(t, one, newSession(t, "chan-1"))
	mustGet(t, one, "chan-1")
	for i := range 3 {
		writer, reader := two, one
		if i%2 == 1 {
			writer, reader = one, two
		}
		mustUpdate(t, writer, "chan-1", func(s *sessions.Session) error {
			_, err := s.Match.Play(s.Match.ToMove(), i)
			return err
		})
		if got := mustGet(t, reader, "chan-1").Match.Plies(); got != i+1 {
			t.Fatalf("after write %d by the other store: Plies() = %d, want %d", i+1, got, i+1)
		}
	}
	if _, err := two.Abandon(t.Context(), "chan-1"); err != nil {
		t.Fatal(err)
	}
	if got := mustGet(t, one, "chan-1"); got.Phase != sessions.PhaseCancelled {
		t.Errorf("after the other store abandoned it: Phase = %q, want %q", got.Phase, sessions.PhaseCancelled)
	}
}

// testConflictAfterMaxAttempts has the other process write before every
// try: Update gives up with ErrConflict after MaxAttempts calls of fn and
// writes none of them.
func testConflictAfterMaxAttempts(t *testing.T, b Backend) {
	db := b.NewDB(t)
	one, two := db.Open(t, newClock()), db.Open(t, newClock())
	mustCreate(t, one, newLongSession(t, "chan-1"))
	calls := 0
	_, err := one.Update(t.Context(), "chan-1", func(s *sessions.Session) error {
		calls++
		mustUpdate(t, two, "chan-1", func(s *sessions.Session) error {
			s.MessageID = fmt.Sprint("other-", calls)
			return nil
		})
		s.MessageID = "mine"
		return nil
	})
	if !errors.Is(err, sessions.ErrConflict) {
		t.Fatalf("Update() losing every race error = %v, want %v", err, sessions.ErrConflict)
	}
	if calls != sessions.MaxAttempts {
		t.Errorf("fn called %d times, want MaxAttempts = %d", calls, sessions.MaxAttempts)
	}
	if got := mustGet(t, one, "chan-1").MessageID; got != fmt.Sprint("other-", calls) {
		t.Errorf("MessageID = %q, want the other store's last write", got)
	}
}

// testUpdateWritesEachChange changes one field of a session at a time,
// and back, and reads it each time through another Store (as another
// process, with nothing cached): an Update writes only the columns that
// changed, so a field whose change it failed to notice would read back as
// it was.
// testUpdateWritesSettledEnd reads a row that ended before sessions knew
// how they ended (an end_reason of ""): the store settles it in memory, and
// its next Update, whatever it changes, writes the end it settled, so that
// another process reads the same session.
func testUpdateWritesSettledEnd(t *testing.T, b Backend) {
	db := b.NewDB(t)
	clock := newClock()
	st := db.Open(t, clock)
	created := mustCreate(t, st, newSession(t, "chan-1"))
	db.Exec(t, "UPDATE matches SET phase = 'cancelled', end_reason = '', revision = revision + 1 WHERE id = ?", created.ID)
	if got := mustGet(t, st, "chan-1"); got.End != sessions.EndAbandoned {
		t.Fatalf("End of a cancelled row without an end = %q, want it settled as %q", got.End, sessions.EndAbandoned)
	}
	clock.Advance(time.Second)
	updated := mustUpdate(t, st, "chan-1", func(s *sessions.Session) error {
		s.MessageID = "msg-1"
		return nil
	})
	db.Exec(t, "UPDATE matches SET phase = 'finished' WHERE id = ? AND end_reason = ''", created.ID) // a row left unsettled becomes invalid
	assertSameSession(t, mustGet(t, db.Open(t, clock), "chan-1"), updated)
}

func testUpdateWritesEachChange(t *testing.T, b Backend) {
	db := b.NewDB(t)
	clock := newClock()
	st := db.Open(t, clock)
	mustCreate(t, st, newSession(t, "chan-1"))
	steps := []struct {
		name   string
		change func(s *sessions.Session)
	}{
		{"phase", func(s *sessions.Session) { s.Phase = sessions.PhasePlaying }},
		{"a move", func(s *sessions.Session) { mustPlay(t, s.Match, 3) }},
		{"the players' names", func(s *sessions.Session) { s.Players[0].Name, s.Players[1].Name = "Alicia", "Bobby" }},
		{"one player's name", func(s *sessions.Session) { s.Players[1].Name = "Robert" }},
		{"one player", func(s *sessions.Session) { s.Players[1] = sessions.Member{ID: "100000000000000003", Name: "Carol"} }},
		{"the other player's ID", func(s *sessions.Session) { s.Players[0].ID = "100000000000000004" }},
		{"the message", func(s *sessions.Session) { s.MessageID = "msg-7" }},
		{"the theme", func(s *sessions.Session) { s.Theme = "hearts" }},
		{"the AI's level", func(s *sessions.Session) { s.AI = "hard" }},
		{"the deadline", func(s *sessions.Session) { s.Deadline = t0.Add(5 * time.Minute) }},
		{"the deadline again", func(s *sessions.Session) { s.Deadline = t0.Add(7 * time.Minute) }},
		{"the post sequence", func(s *sessions.Session) { s.PostSeq = 2 }},
		{"a post due", func(s *sessions.Session) { s.PostDue = t0.Add(30 * time.Second) }},
		{"no post due", func(s *sessions.Session) { s.PostDue = time.Time{} }},
		{"the webhook", func(s *sessions.Session) {
			s.Webhook = sessions.Webhook{AppID: "app-1", Token: "token-1", Message: "@original", At: t0.Add(time.Second)}
		}},
		{"the webhook's token", func(s *sessions.Session) { s.Webhook.Token = "token-2" }},
		{"the webhook's message", func(s *sessions.Session) { s.Webhook.Message = "msg-8" }},
		{"the webhook's time", func(s *sessions.Session) { s.Webhook.At = t0.Add(2 * time.Second) }},
		{"the webhook's application", func(s *sessions.Session) { s.Webhook.AppID = "app-2" }},
		{"rated", func(s *sessions.Session) { s.Rated = true }},
		{"rated, capped", func(s *sessions.Session) { s.RatedCapped = true }},
		{"the ratings", func(s *sessions.Session) {
			s.Ratings = &sessions.RatingChange{Before: [2]rating.Rating{rating.New(), rating.New()}}
		}},
		{"one rating", func(s *sessions.Session) { s.Ratings.After[1].R = 1512.5 }},
		{"no ratings", func(s *sessions.Session) { s.Ratings = nil }},
		{"who ended it", func(s *sessions.Session) { s.EndedBy = "100000000000000008" }},
		{"the message again", func(s *sessions.Session) { s.MessageID = "" }},
		{"no deadline", func(s *sessions.Session) { s.Deadline = time.Time{} }},
		{"the end", func(s *sessions.Session) {
			s.Phase, s.End, s.EndedBy = sessions.PhaseCancelled, sessions.EndEnded, "100000000000000009"
		}},
		{"how it ended", func(s *sessions.Session) { s.End = sessions.EndAbandoned }},
	}
	for _, step := range steps {
		clock.Advance(time.Second)
		updated := mustUpdate(t, st, "chan-1", func(s *sessions.Session) error {
			step.change(s)
			return nil
		})
		other := db.Open(t, clock)
		got := mustGet(t, other, "chan-1")
		t.Logf("after %s", step.name)
		assertSameSession(t, got, updated)
		if t.Failed() {
			t.Fatalf("after the change of %s, another process read the session otherwise", step.name)
		}
		other.Close()
	}
}
