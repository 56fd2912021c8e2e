-- Version 6: ratings (Glicko-2, package rating), per server. On matches:
-- rated and rated_capped (sessions.Session.Rated and RatedCapped, 0 or 1),
-- ratings (JSON of sessions.RatingChange, '' for none) and rated_at (when
-- a rated match's result changed the ratings, '' for every other match),
-- the last two written in the transaction that records the result.
-- member_ratings holds one row per server and member rated there (R, RD
-- and σ, the rated matches played, the best R reached, when the last one
-- ended), written in that same transaction; member_ratings_ranking serves
-- the leaderboard by rating (a seek, read in its order) and
-- member_ratings_by_user Forget. The partial matches_rated_pairs serves
-- RatedToday (the rated matches of two members since a time) and holds
-- only the rated matches: a move writes no column of it (nor of any other
-- index), so it still writes one page.
ALTER TABLE matches ADD COLUMN rated INTEGER NOT NULL DEFAULT 0 CHECK (rated IN (0, 1));
ALTER TABLE matches ADD COLUMN rated_capped INTEGER NOT NULL DEFAULT 0 CHECK (rated_capped IN (0, 1));
ALTER TABLE matches ADD COLUMN ratings TEXT NOT NULL DEFAULT '';
ALTER TABLE matches ADD COLUMN rated_at TEXT NOT NULL DEFAULT '';
CREATE INDEX matches_rated_pairs ON matches (guild_id, player1_id, player2_id, rated_at) WHERE rated_at <> '';
CREATE TABLE member_ratings (
	guild_id    TEXT    NOT NULL,
	user_id     TEXT    NOT NULL CHECK (user_id <> ''),
	r           REAL    NOT NULL,
	rd          REAL    NOT NULL,
	sigma       REAL    NOT NULL,
	games       INTEGER NOT NULL DEFAULT 0,
	best        REAL    NOT NULL,
	last_played TEXT    NOT NULL,
	PRIMARY KEY (guild_id, user_id)
) STRICT;
CREATE INDEX member_ratings_ranking ON member_ratings (guild_id, r DESC, games DESC, user_id);
CREATE INDEX member_ratings_by_user ON member_ratings (user_id);
