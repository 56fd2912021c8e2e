-- Version 10: matches.actions is written in the move text (one byte a
-- move, see sessions/internal/sqlstore/actions.go) instead of the JSON
-- list of the actions. Nothing changes in the schema and no row is
-- rewritten here: rows in the JSON list are read as they are and written
-- in the move text by their next move. The version marks the new form, so
-- that a program from before it, which reads only the JSON list, refuses
-- the database (a schema newer than its own) instead of taking the rows
-- written since for damaged ones.
SELECT 1;
