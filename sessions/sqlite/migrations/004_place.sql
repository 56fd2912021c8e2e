-- Version 4: where a session is played (sessions.Place, as JSON): the
-- language of its public messages, whether only interaction webhooks reach
-- its channel (the bot is not a member), whether the channel is a thread
-- the bot opened for it. Written when the session is created; sessions
-- stored before read as a server channel in English.
ALTER TABLE matches ADD COLUMN place TEXT NOT NULL DEFAULT '{}';
