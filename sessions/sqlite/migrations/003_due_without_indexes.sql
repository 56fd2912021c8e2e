-- Version 3: no indexes on deadline_at and post_due. Every move sets a new
-- deadline, so those indexes were rewritten at every click (a third of the
-- pages a move wrote); Due now reads the active sessions through
-- matches_one_active_per_channel, which holds only the sessions being
-- played or waiting for an answer: one row per busy channel.
DROP INDEX matches_deadline;
DROP INDEX matches_post_due;
