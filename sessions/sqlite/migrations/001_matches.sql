-- Version 1, the matches table: one row per session. config holds the
-- game.Config and actions the []game.Action, both as JSON; created_at and
-- updated_at are UTC RFC 3339 text with nanoseconds; revision counts the
-- writes to the row and guards Update against a writer in another
-- process. The partial unique index lets the database itself refuse a
-- second active session in a channel, and (channel_id, id) serves Get and
-- History.
CREATE TABLE matches (
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
) STRICT;
CREATE UNIQUE INDEX matches_one_active_per_channel ON matches (channel_id)
	WHERE phase IN ('challenge', 'playing');
CREATE INDEX matches_by_channel ON matches (channel_id, id);
