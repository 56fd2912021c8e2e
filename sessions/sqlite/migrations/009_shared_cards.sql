-- Version 9: the result cards shared from a match's last board
-- (sessions.CardStore). One row per match whose card a player shared, or
-- is sharing: claimed (inserted) before the card is posted, so that the
-- primary key makes a match's card be posted once, across processes and
-- restarts. user_id is the member who shared it (one of the match's
-- players), message_id the posted card's message ('' until it is known),
-- shared_at when the share was claimed. shared_cards_by_user serves
-- Forget, which also removes the shares of the matches it removes.
CREATE TABLE shared_cards (
	match_id   INTEGER PRIMARY KEY,
	guild_id   TEXT    NOT NULL,
	channel_id TEXT    NOT NULL,
	user_id    TEXT    NOT NULL CHECK (user_id <> ''),
	message_id TEXT    NOT NULL DEFAULT '',
	shared_at  TEXT    NOT NULL
) STRICT;
CREATE INDEX shared_cards_by_user ON shared_cards (user_id);
