-- A placeholder for 007 (tournaments, on another branch); not committed.
CREATE TABLE placeholder_007 (x INTEGER);
