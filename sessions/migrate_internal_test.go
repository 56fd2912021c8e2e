package sessions

import (
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/connectn/connectn/game"
)

// TestUpgradeKeepsMatchInProgress builds a database as version 1 of the
// schema left it, with a match in progress, and opens it with this
// program: the match loads unchanged, plays on to its end, and its result
// reaches the stats tables that version 2 added.
func TestUpgradeKeepsMatchInProgress(t *testing.T) {
	path := filepath.Join(t.TempDir(), "connectn.db")
	old, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, stmt := range migrations[0] {
		if _, err := old.ExecContext(t.Context(), stmt); err != nil {
			t.Fatalf("version 1 schema: %v", err)
		}
	}
	if _, err := old.ExecContext(t.Context(), `PRAGMA user_version = 1`); err != nil {
		t.Fatal(err)
	}
	// Player 1 has three discs in column 0; player 2 three in column 1.
	if _, err := old.ExecContext(t.Context(), `INSERT INTO matches
		(channel_id, guild_id, player1_id, player1_name, player2_id, player2_name, config, actions,
		 phase, message_id, revision, created_at, updated_at)
		VALUES ('chan-1', 'guild-1', '11', 'Alice', '22', 'Bob',
		 '{"rows":6,"columns":7,"connect":4,"wins":1,"openers":"alternate","first_opener":1}',
		 '[{"kind":"drop","player":1},{"kind":"drop","player":2,"column":1},{"kind":"drop","player":1},{"kind":"drop","player":2,"column":1},{"kind":"drop","player":1},{"kind":"drop","player":2,"column":1}]',
		 'playing', 'msg-1', 6, '2025-01-01T00:00:00.000000000Z', '2025-01-01T00:00:00.000000000Z')`); err != nil {
		t.Fatalf("insert a version 1 row: %v", err)
	}
	if err := old.Close(); err != nil {
		t.Fatal(err)
	}

	st, err := Open(t.Context(), path)
	if err != nil {
		t.Fatalf("Open() of a version 1 database error = %v", err)
	}
	defer st.Close()
	var version int
	if err := st.db.QueryRowContext(t.Context(), "PRAGMA user_version").Scan(&version); err != nil || version != len(migrations) {
		t.Fatalf("user_version = %d, %v, want %d", version, err, len(migrations))
	}
	s, err := st.Get(t.Context(), "chan-1")
	if err != nil {
		t.Fatalf("Get() error = %v", err)
	}
	if s.Phase != PhasePlaying || s.Match.Plies() != 6 || s.MessageID != "msg-1" || s.End != EndNone || !s.Deadline.IsZero() || s.Theme != "" {
		t.Fatalf("upgraded session = phase %q, %d plies, message %q, end %q, deadline %v, theme %q",
			s.Phase, s.Match.Plies(), s.MessageID, s.End, s.Deadline, s.Theme)
	}
	s, err = st.Update(t.Context(), "chan-1", func(s *Session) error {
		_, err := s.Match.Play(game.Player1, 0)
		return err
	})
	if err != nil {
		t.Fatalf("Update() playing on error = %v", err)
	}
	if s.Phase != PhaseFinished || s.End != EndWon || s.Match.Winner() != game.Player1 {
		t.Errorf("after the winning move: phase %q, end %q, winner %v", s.Phase, s.End, s.Match.Winner())
	}
	alice, err := st.Stats(t.Context(), "guild-1", "11", false)
	if err != nil || alice.Wins != 1 || alice.Matches != 1 {
		t.Errorf("Stats(alice) = %+v, %v, want one match won", alice, err)
	}
}
