-- Version 5: who ended a session when a moderator did (ended_by, a user
-- ID; '' otherwise), and guild_settings, one row per server that changed
-- its settings: the JSON of sessions.GuildSettings, revision (counts the
-- writes to the row: the compare-and-swap of UpdateGuildSettings across
-- processes), who changed them last (updated_by, a user ID) and when.
-- matches_by_challenger serves LastChallenge (the newest created_at of a
-- member's challenges in a server: one seek); with matches_by_opponent it
-- serves ActiveChannelsOf and Forget (a member's sessions, on either
-- side), and the partial matches_ended_by finds the few sessions a
-- moderator ended. The same columns of the same meaning as SQLite's
-- (sessions/sqlite/migrations/005_settings_forget.sql).
ALTER TABLE matches ADD COLUMN ended_by TEXT NOT NULL DEFAULT '';
CREATE INDEX matches_by_challenger ON matches (player1_id, guild_id, created_at);
CREATE INDEX matches_by_opponent ON matches (player2_id);
CREATE INDEX matches_ended_by ON matches (ended_by) WHERE ended_by <> '';
CREATE TABLE guild_settings (
	guild_id   TEXT    NOT NULL PRIMARY KEY CHECK (guild_id <> ''),
	settings   TEXT    NOT NULL,
	revision   BIGINT  NOT NULL DEFAULT 0,
	updated_at TEXT    NOT NULL,
	updated_by TEXT    NOT NULL
);
