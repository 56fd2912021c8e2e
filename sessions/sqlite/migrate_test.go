package sqlite_test

import (
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/sessions"
	"github.com/connectn/connectn/sessions/sqlite"
)

// legacyDB builds a database as the program before schema_migrations left
// it at PRAGMA user_version version (1 or 2), with a match in progress in
// chan-1: player 1 has three discs in column 0, player 2 three in column 1.
func legacyDB(t *testing.T, version int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "connectn.db")
	old, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	for _, m := range sqlite.Migrations()[:version] {
		for _, stmt := range m.Statements() {
			if _, err := old.ExecContext(t.Context(), stmt); err != nil {
				t.Fatalf("version %d schema: %v", m.Version, err)
			}
		}
	}
	if _, err := old.ExecContext(t.Context(), "PRAGMA user_version = "+string(rune('0'+version))); err != nil {
		t.Fatal(err)
	}
	if _, err := old.ExecContext(t.Context(), `INSERT INTO matches
		(channel_id, guild_id, player1_id, player1_name, player2_id, player2_name, config, actions,
		 phase, message_id, revision, created_at, updated_at)
		VALUES ('chan-1', 'guild-1', '11', 'Alice', '22', 'Bob',
		 '{"rows":6,"columns":7,"connect":4,"wins":1,"openers":"alternate","first_opener":1}',
		 '[{"kind":"drop","player":1},{"kind":"drop","player":2,"column":1},{"kind":"drop","player":1},{"kind":"drop","player":2,"column":1},{"kind":"drop","player":1},{"kind":"drop","player":2,"column":1}]',
		 'playing', 'msg-1', 6, '2025-01-01T00:00:00.000000000Z', '2025-01-01T00:00:00.000000000Z')`); err != nil {
		t.Fatalf("insert a version %d row: %v", version, err)
	}
	return path
}

// TestUpgradeKeepsMatchInProgress opens databases written under the
// PRAGMA user_version scheme (versions 1 and 2) with this program: the
// version is adopted into schema_migrations, pending migrations apply, and
// the match in progress loads unchanged, plays on to its end, and its
// result reaches the stats tables that version 2 added.
func TestUpgradeKeepsMatchInProgress(t *testing.T) {
	for _, version := range []int{1, 2} {
		t.Run(string(rune('0'+version)), func(t *testing.T) {
			path := legacyDB(t, version)
			st, err := sqlite.Open(t.Context(), path)
			if err != nil {
				t.Fatalf("Open() of a version %d database error = %v", version, err)
			}
			defer st.Close()
			if from, to := st.SchemaVersions(); from != version || to != len(sqlite.Migrations()) {
				t.Errorf("SchemaVersions() = %d, %d, want %d, %d", from, to, version, len(sqlite.Migrations()))
			}
			var recorded int
			if err := sqlite.DB(st).QueryRowContext(t.Context(), "SELECT count(*) FROM schema_migrations").Scan(&recorded); err != nil || recorded != len(sqlite.Migrations()) {
				t.Errorf("schema_migrations rows = %d, %v, want %d", recorded, err, len(sqlite.Migrations()))
			}
			s, err := st.Get(t.Context(), "chan-1")
			if err != nil {
				t.Fatalf("Get() error = %v", err)
			}
			if s.Phase != sessions.PhasePlaying || s.Match.Plies() != 6 || s.MessageID != "msg-1" || s.End != sessions.EndNone || !s.Deadline.IsZero() || s.Theme != "" {
				t.Fatalf("upgraded session = phase %q, %d plies, message %q, end %q, deadline %v, theme %q",
					s.Phase, s.Match.Plies(), s.MessageID, s.End, s.Deadline, s.Theme)
			}
			s, err = st.Update(t.Context(), "chan-1", func(s *sessions.Session) error {
				_, err := s.Match.Play(game.Player1, 0)
				return err
			})
			if err != nil {
				t.Fatalf("Update() playing on error = %v", err)
			}
			if s.Phase != sessions.PhaseFinished || s.End != sessions.EndWon || s.Match.Winner() != game.Player1 {
				t.Errorf("after the winning move: phase %q, end %q, winner %v", s.Phase, s.End, s.Match.Winner())
			}
			alice, err := st.Stats(t.Context(), "guild-1", "11", false)
			if err != nil || alice.Wins != 1 || alice.Matches != 1 {
				t.Errorf("Stats(alice) = %+v, %v, want one match won", alice, err)
			}
			if err := st.Close(); err != nil {
				t.Fatal(err)
			}
			// Opened again, nothing is pending.
			again, err := sqlite.Open(t.Context(), path)
			if err != nil {
				t.Fatal(err)
			}
			defer again.Close()
			if from, to := again.SchemaVersions(); from != to || to != len(sqlite.Migrations()) {
				t.Errorf("SchemaVersions() on reopening = %d, %d, want both %d", from, to, len(sqlite.Migrations()))
			}
		})
	}
}
