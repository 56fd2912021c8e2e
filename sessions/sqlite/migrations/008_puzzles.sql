-- Version 8: puzzles (package puzzle; sessions.PuzzleStore). The starter
-- set ships in the binary and is not stored: these tables hold what moves.
--
-- puzzle_scans is the queue of finished matches to search for puzzles:
-- one row per match, claimed for a lease by moving due_at (a process that
-- died mid-search leaves it to be taken again); puzzle_scans_due holds the
-- scans not done, by when they are due. found_puzzles holds the puzzles
-- found there, per server (line: puzzle.Format, with the attribution),
-- and the match's two players, for Forget (by_player1, by_player2).
--
-- puzzle_ratings holds the rating of each puzzle an attempt rated;
-- puzzle_players each member's puzzle rating (global, not per server),
-- rated attempts, streak and best; puzzle_players_ranking serves the
-- leaderboard. puzzle_attempts holds every attempt from its start: its
-- moves, hint and result, its revision (the compare-and-swap of a move),
-- and first, set on the member's first attempt at a puzzle alone: the
-- partial unique index puzzle_attempts_first refuses a second first
-- attempt, across processes, and lists the puzzles a member has seen;
-- puzzle_attempts_by_user serves Forget and puzzle_attempts_by_guild the
-- leaderboard of a server. change is the JSON of the ratings' change of
-- a rated attempt ('' for none).
--
-- puzzle_daily holds a server's daily puzzle setting (channel, minute of
-- the day in zone, the posts' language, next_at the next post, '' when
-- off; the last refusal),
-- puzzle_daily_due the servers by their next post. puzzle_days holds the
-- bot's puzzle of each day, the first one recorded. puzzle_daily_posts
-- holds each server's post of a day, claimed (with a lease) before it is
-- sent: its primary key is what makes a day's post happen once per
-- server; solvers and shown count the members who solved it and the count
-- its message shows, edit_due when the message is to be edited next
-- (puzzle_daily_posts_edits).
CREATE TABLE puzzle_scans (
	match_id   INTEGER PRIMARY KEY,
	guild_id   TEXT    NOT NULL,
	channel_id TEXT    NOT NULL,
	due_at     TEXT    NOT NULL,
	tries      INTEGER NOT NULL DEFAULT 0,
	done       INTEGER NOT NULL DEFAULT 0 CHECK (done IN (0, 1)),
	found      INTEGER NOT NULL DEFAULT 0
) STRICT;
CREATE INDEX puzzle_scans_due ON puzzle_scans (due_at) WHERE done = 0;
CREATE TABLE found_puzzles (
	guild_id   TEXT    NOT NULL,
	puzzle_id  TEXT    NOT NULL CHECK (puzzle_id <> ''),
	line       TEXT    NOT NULL,
	match_id   INTEGER NOT NULL,
	player1_id TEXT    NOT NULL,
	player2_id TEXT    NOT NULL,
	found_at   TEXT    NOT NULL,
	PRIMARY KEY (guild_id, puzzle_id)
) STRICT;
CREATE INDEX found_puzzles_by_player1 ON found_puzzles (player1_id);
CREATE INDEX found_puzzles_by_player2 ON found_puzzles (player2_id);
CREATE TABLE puzzle_ratings (
	puzzle_id TEXT    PRIMARY KEY CHECK (puzzle_id <> ''),
	r         REAL    NOT NULL,
	rd        REAL    NOT NULL,
	sigma     REAL    NOT NULL,
	attempts  INTEGER NOT NULL DEFAULT 0,
	solved    INTEGER NOT NULL DEFAULT 0
) STRICT;
CREATE TABLE puzzle_players (
	user_id     TEXT    PRIMARY KEY CHECK (user_id <> ''),
	r           REAL    NOT NULL,
	rd          REAL    NOT NULL,
	sigma       REAL    NOT NULL,
	rated       INTEGER NOT NULL DEFAULT 0,
	solved      INTEGER NOT NULL DEFAULT 0,
	streak      INTEGER NOT NULL DEFAULT 0,
	best_streak INTEGER NOT NULL DEFAULT 0,
	best        REAL    NOT NULL DEFAULT 0,
	last_rated  TEXT    NOT NULL DEFAULT ''
) STRICT;
CREATE INDEX puzzle_players_ranking ON puzzle_players (r DESC, rated DESC, user_id);
CREATE TABLE puzzle_attempts (
	id           INTEGER PRIMARY KEY AUTOINCREMENT,
	revision     INTEGER NOT NULL DEFAULT 0,
	user_id      TEXT    NOT NULL CHECK (user_id <> ''),
	guild_id     TEXT    NOT NULL,
	puzzle_id    TEXT    NOT NULL CHECK (puzzle_id <> ''),
	line         TEXT    NOT NULL,
	puzzle_r     REAL    NOT NULL,
	puzzle_rd    REAL    NOT NULL,
	puzzle_sigma REAL    NOT NULL,
	daily        TEXT    NOT NULL DEFAULT '',
	moves        TEXT    NOT NULL DEFAULT '',
	hinted       INTEGER NOT NULL DEFAULT 0 CHECK (hinted IN (0, 1)),
	result       TEXT    NOT NULL DEFAULT '' CHECK (result IN ('', 'solved', 'failed')),
	first        INTEGER NOT NULL CHECK (first IN (0, 1)),
	change       TEXT    NOT NULL DEFAULT '',
	started_at   TEXT    NOT NULL,
	finished_at  TEXT    NOT NULL DEFAULT ''
) STRICT;
CREATE UNIQUE INDEX puzzle_attempts_first ON puzzle_attempts (user_id, puzzle_id) WHERE first = 1;
CREATE INDEX puzzle_attempts_by_user ON puzzle_attempts (user_id);
CREATE INDEX puzzle_attempts_by_guild ON puzzle_attempts (guild_id, user_id);
CREATE TABLE puzzle_daily (
	guild_id      TEXT    PRIMARY KEY CHECK (guild_id <> ''),
	channel_id    TEXT    NOT NULL,
	minute        INTEGER NOT NULL CHECK (minute BETWEEN 0 AND 1439),
	zone          TEXT    NOT NULL,
	locale        TEXT    NOT NULL DEFAULT '',
	next_at       TEXT    NOT NULL,
	last_error    TEXT    NOT NULL DEFAULT '',
	last_error_at TEXT    NOT NULL DEFAULT '',
	revision      INTEGER NOT NULL DEFAULT 0,
	updated_at    TEXT    NOT NULL
) STRICT;
CREATE INDEX puzzle_daily_due ON puzzle_daily (next_at) WHERE next_at <> '';
CREATE TABLE puzzle_days (
	day       TEXT PRIMARY KEY,
	puzzle_id TEXT NOT NULL,
	line      TEXT NOT NULL
) STRICT;
CREATE TABLE puzzle_daily_posts (
	guild_id    TEXT    NOT NULL CHECK (guild_id <> ''),
	day         TEXT    NOT NULL,
	channel_id  TEXT    NOT NULL,
	puzzle_id   TEXT    NOT NULL,
	line        TEXT    NOT NULL,
	state       TEXT    NOT NULL CHECK (state IN ('claimed', 'posted', 'failed')),
	message_id  TEXT    NOT NULL DEFAULT '',
	lease_until TEXT    NOT NULL DEFAULT '',
	solvers     INTEGER NOT NULL DEFAULT 0,
	shown       INTEGER NOT NULL DEFAULT 0,
	edit_due    TEXT    NOT NULL DEFAULT '',
	error       TEXT    NOT NULL DEFAULT '',
	revision    INTEGER NOT NULL DEFAULT 0,
	created_at  TEXT    NOT NULL,
	updated_at  TEXT    NOT NULL,
	PRIMARY KEY (guild_id, day)
) STRICT;
CREATE INDEX puzzle_daily_posts_edits ON puzzle_daily_posts (edit_due) WHERE edit_due <> '';
