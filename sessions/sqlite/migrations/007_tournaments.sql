-- Version 7 is the tournaments' migration (branch tourney2, issue 27), not merged
-- when the puzzles' 008 was written: this file stands in for it, changing
-- nothing, so that 008 follows a 007. Merging tourney2 replaces it with the
-- real 007_tournaments.sql (take that side of the add/add conflict).
SELECT 1;
