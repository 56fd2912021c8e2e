package sessions

import (
	"context"
	"database/sql"
	"fmt"
)

// migrations lists the schema changes in order; migrations[i] takes the
// database from PRAGMA user_version i to i+1. Append to it, never edit a
// released entry.
//
// Version 1, the matches table: one row per session. config holds the
// game.Config and actions the []game.Action, both as JSON; created_at and
// updated_at are UTC RFC 3339 text with nanoseconds (see timeFormat);
// revision counts the writes to the row and guards Update against a writer
// in another process. The partial unique index lets the database itself
// refuse a second active session in a channel, and (channel_id, id) serves
// Get and History.
var migrations = [][]string{
	{
		`CREATE TABLE matches (
			id           INTEGER PRIMARY KEY AUTOINCREMENT,
			channel_id   TEXT    NOT NULL CHECK (channel_id <> ''),
			guild_id     TEXT    NOT NULL,
			player1_id   TEXT    NOT NULL CHECK (player1_id <> ''),
			player1_name TEXT    NOT NULL,
			player2_id   TEXT    NOT NULL CHECK (player2_id <> '' AND player2_id <> player1_id),
			player2_name TEXT    NOT NULL,
			config       TEXT    NOT NULL,
			actions      TEXT    NOT NULL,
			phase        TEXT    NOT NULL CHECK (phase IN ('challenge', 'playing', 'finished', 'cancelled')),
			message_id   TEXT    NOT NULL DEFAULT '',
			revision     INTEGER NOT NULL DEFAULT 0,
			created_at   TEXT    NOT NULL,
			updated_at   TEXT    NOT NULL
		) STRICT`,
		`CREATE UNIQUE INDEX matches_one_active_per_channel ON matches (channel_id)
			WHERE phase IN ('challenge', 'playing')`,
		`CREATE INDEX matches_by_channel ON matches (channel_id, id)`,
	},
	// Version 2: themes, matches against the bot, how a session ended,
	// deadlines, board posts still to be made and the interaction webhook
	// that reaches the board (JSON of Webhook), with partial indexes that
	// serve Due; member_stats (one row per server, member and kind of
	// opponent) and pair_records (one row per server, member and opponent,
	// both directions), written in the transaction that finishes a match.
	{
		`ALTER TABLE matches ADD COLUMN theme TEXT NOT NULL DEFAULT ''`,
		`ALTER TABLE matches ADD COLUMN ai_level TEXT NOT NULL DEFAULT ''`,
		`ALTER TABLE matches ADD COLUMN end_reason TEXT NOT NULL DEFAULT ''`,
		`ALTER TABLE matches ADD COLUMN deadline_at TEXT NOT NULL DEFAULT ''`,
		`ALTER TABLE matches ADD COLUMN post_seq INTEGER NOT NULL DEFAULT 0`,
		`ALTER TABLE matches ADD COLUMN post_due TEXT NOT NULL DEFAULT ''`,
		`ALTER TABLE matches ADD COLUMN webhook TEXT NOT NULL DEFAULT '{}'`,
		`CREATE INDEX matches_deadline ON matches (deadline_at)
			WHERE phase IN ('challenge', 'playing') AND deadline_at <> ''`,
		`CREATE INDEX matches_post_due ON matches (post_due)
			WHERE phase IN ('challenge', 'playing') AND post_due <> ''`,
		`CREATE TABLE member_stats (
			guild_id     TEXT    NOT NULL,
			user_id      TEXT    NOT NULL CHECK (user_id <> ''),
			vs_ai        INTEGER NOT NULL CHECK (vs_ai IN (0, 1)),
			matches      INTEGER NOT NULL DEFAULT 0,
			wins         INTEGER NOT NULL DEFAULT 0,
			losses       INTEGER NOT NULL DEFAULT 0,
			rounds_won   INTEGER NOT NULL DEFAULT 0,
			rounds_lost  INTEGER NOT NULL DEFAULT 0,
			rounds_drawn INTEGER NOT NULL DEFAULT 0,
			streak       INTEGER NOT NULL DEFAULT 0,
			best_streak  INTEGER NOT NULL DEFAULT 0,
			updated_at   TEXT    NOT NULL,
			PRIMARY KEY (guild_id, user_id, vs_ai)
		) STRICT`,
		`CREATE INDEX member_stats_ranking ON member_stats (guild_id, vs_ai, wins DESC)`,
		`CREATE TABLE pair_records (
			guild_id    TEXT    NOT NULL,
			user_id     TEXT    NOT NULL CHECK (user_id <> ''),
			opponent_id TEXT    NOT NULL CHECK (opponent_id <> '' AND opponent_id <> user_id),
			wins        INTEGER NOT NULL DEFAULT 0,
			losses      INTEGER NOT NULL DEFAULT 0,
			PRIMARY KEY (guild_id, user_id, opponent_id)
		) STRICT`,
	},
}

// migrate brings the schema up to version len(migrations) in one transaction (BEGIN
// IMMEDIATE, so two processes opening one new file do not both migrate). It
// refuses a database whose version is higher, written by a newer program.
func migrate(ctx context.Context, db *sql.DB) (err error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin migration: %w", err)
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback()
		}
	}()
	var version int
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	if version > len(migrations) {
		return fmt.Errorf("schema version %d is newer than this program's %d", version, len(migrations))
	}
	for v := version; v < len(migrations); v++ {
		for _, stmt := range migrations[v] {
			if _, err := tx.ExecContext(ctx, stmt); err != nil {
				return fmt.Errorf("migrate schema to version %d: %w", v+1, err)
			}
		}
	}
	if version < len(migrations) {
		// PRAGMA takes no bound parameters; the value is our own constant.
		if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", len(migrations))); err != nil {
			return fmt.Errorf("set schema version: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit migration: %w", err)
	}
	return nil
}
