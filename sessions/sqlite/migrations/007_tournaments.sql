-- Version 7: tournaments (package tournament: Swiss, round robin, arena;
-- sessions.Tournament and its store, sessions.TournamentStore). On
-- matches, the tournament game a session plays: tournament_id,
-- tournament_round and tournament_board (0 for every other session),
-- fixed at creation; a move writes none of them.
--
-- tournaments holds one row per tournament: its server and channel, its
-- name and format (also in config, the JSON of tournament.Config, kept
-- apart for reading), its seed, status, settings and posts (JSON of
-- sessions.TournamentSettings and TournamentPosts), when it started, when
-- it is next due (due_at, '' for never: the scheduler's sweep reads the
-- partial index tournaments_due), who made and who ended it, and revision,
-- the compare-and-swap of every write (UpdateTournament, and the result a
-- finished game records in the transaction of its session's end).
-- tournament_entries are its players in the order they joined (seq), with
-- their name, their rating when they joined and whether they withdrew;
-- tournament_rounds its rounds, keyed by their number, so that a round is
-- stored once; tournament_pairings their pairings by board, with their
-- result ('' pending; tournament.Result's text), the session that plays
-- the game and its channel (recorded with the session, in the transaction
-- that creates it) and until when a process is starting it.
-- tournament_entries_by_user serves Forget, which replaces a member's ID
-- in their entries and pairings by a placeholder of the entry.
ALTER TABLE matches ADD COLUMN tournament_id INTEGER NOT NULL DEFAULT 0;
ALTER TABLE matches ADD COLUMN tournament_round INTEGER NOT NULL DEFAULT 0;
ALTER TABLE matches ADD COLUMN tournament_board INTEGER NOT NULL DEFAULT 0;
CREATE TABLE tournaments (
	id         INTEGER PRIMARY KEY AUTOINCREMENT,
	revision   INTEGER NOT NULL DEFAULT 0,
	guild_id   TEXT    NOT NULL CHECK (guild_id <> ''),
	channel_id TEXT    NOT NULL CHECK (channel_id <> ''),
	name       TEXT    NOT NULL,
	format     TEXT    NOT NULL CHECK (format IN ('swiss', 'round-robin', 'arena')),
	config     TEXT    NOT NULL,
	seed       INTEGER NOT NULL,
	status     TEXT    NOT NULL CHECK (status IN ('signup', 'running', 'paused', 'finished')),
	settings   TEXT    NOT NULL,
	posts      TEXT    NOT NULL,
	started_at TEXT    NOT NULL DEFAULT '',
	due_at     TEXT    NOT NULL DEFAULT '',
	created_by TEXT    NOT NULL DEFAULT '',
	ended_by   TEXT    NOT NULL DEFAULT '',
	created_at TEXT    NOT NULL,
	updated_at TEXT    NOT NULL
) STRICT;
CREATE INDEX tournaments_by_guild ON tournaments (guild_id, id);
CREATE INDEX tournaments_due ON tournaments (due_at) WHERE due_at <> '';
CREATE TABLE tournament_entries (
	tournament_id INTEGER NOT NULL REFERENCES tournaments (id),
	seq           INTEGER NOT NULL CHECK (seq >= 1),
	user_id       TEXT    NOT NULL CHECK (user_id <> ''),
	name          TEXT    NOT NULL,
	rating        REAL    NOT NULL,
	withdrawn     INTEGER NOT NULL DEFAULT 0 CHECK (withdrawn IN (0, 1)),
	PRIMARY KEY (tournament_id, user_id),
	UNIQUE (tournament_id, seq)
) STRICT;
CREATE INDEX tournament_entries_by_user ON tournament_entries (user_id);
CREATE TABLE tournament_rounds (
	tournament_id INTEGER NOT NULL REFERENCES tournaments (id),
	number        INTEGER NOT NULL CHECK (number >= 1),
	started_at    TEXT    NOT NULL DEFAULT '',
	PRIMARY KEY (tournament_id, number)
) STRICT;
CREATE TABLE tournament_pairings (
	tournament_id INTEGER NOT NULL,
	round         INTEGER NOT NULL,
	board         INTEGER NOT NULL CHECK (board >= 1),
	opener_id     TEXT    NOT NULL CHECK (opener_id <> ''),
	second_id     TEXT    NOT NULL,
	result        TEXT    NOT NULL DEFAULT '',
	session_id    INTEGER NOT NULL DEFAULT 0,
	channel_id    TEXT    NOT NULL DEFAULT '',
	claimed_until TEXT    NOT NULL DEFAULT '',
	PRIMARY KEY (tournament_id, round, board),
	FOREIGN KEY (tournament_id, round) REFERENCES tournament_rounds (tournament_id, number)
) STRICT;
