-- Version 2: themes, matches against the bot, how a session ended,
-- deadlines, board posts still to be made and the interaction webhook that
-- reaches the board (JSON of sessions.Webhook), with partial indexes that
-- serve Due; member_stats (one row per server, member and kind of
-- opponent) and pair_records (one row per server, member and opponent,
-- both directions), written in the transaction that finishes a match.
ALTER TABLE matches ADD COLUMN theme TEXT NOT NULL DEFAULT '';
ALTER TABLE matches ADD COLUMN ai_level TEXT NOT NULL DEFAULT '';
ALTER TABLE matches ADD COLUMN end_reason TEXT NOT NULL DEFAULT '';
ALTER TABLE matches ADD COLUMN deadline_at TEXT NOT NULL DEFAULT '';
ALTER TABLE matches ADD COLUMN post_seq INTEGER NOT NULL DEFAULT 0;
ALTER TABLE matches ADD COLUMN post_due TEXT NOT NULL DEFAULT '';
ALTER TABLE matches ADD COLUMN webhook TEXT NOT NULL DEFAULT '{}';
CREATE INDEX matches_deadline ON matches (deadline_at)
	WHERE phase IN ('challenge', 'playing') AND deadline_at <> '';
CREATE INDEX matches_post_due ON matches (post_due)
	WHERE phase IN ('challenge', 'playing') AND post_due <> '';
CREATE TABLE member_stats (
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
) STRICT;
CREATE INDEX member_stats_ranking ON member_stats (guild_id, vs_ai, wins DESC);
CREATE TABLE pair_records (
	guild_id    TEXT    NOT NULL,
	user_id     TEXT    NOT NULL CHECK (user_id <> ''),
	opponent_id TEXT    NOT NULL CHECK (opponent_id <> '' AND opponent_id <> user_id),
	wins        INTEGER NOT NULL DEFAULT 0,
	losses      INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (guild_id, user_id, opponent_id)
) STRICT;
