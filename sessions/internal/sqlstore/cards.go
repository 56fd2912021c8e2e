package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/connectn/connectn/sessions"
)

// The shared result cards: sessions.CardStore on the table of migration 9
// (shared_cards; see its comment).

var _ sessions.CardStore = (*Store)(nil)

// ShareCard implements sessions.CardStore: an insert that does nothing
// when the match's row exists (its primary key decides between racing
// claims), then a read of the row, which a claim that lost returns.
func (s *Store) ShareCard(ctx context.Context, share sessions.CardShare) (sessions.CardShare, bool, error) {
	if share.Match < 1 || share.UserID == "" {
		return sessions.CardShare{}, false, fmt.Errorf("share the card of match %d by %q: want a match from 1 and a member", share.Match, share.UserID)
	}
	done := s.lockWrites()
	err := swapped(s.db.ExecContext(ctx, s.d.Rebind(`INSERT INTO shared_cards (match_id, guild_id, channel_id, user_id, shared_at)
		VALUES (?, ?, ?, ?, ?) ON CONFLICT (match_id) DO NOTHING`),
		share.Match, share.GuildID, share.ChannelID, share.UserID, formatTime(s.clock())))
	done()
	claimed := err == nil
	if err != nil && !errors.Is(err, errLost) {
		return sessions.CardShare{}, false, fmt.Errorf("share the card of match %d: %w", share.Match, s.failed(err))
	}
	got, err := s.sharedCard(ctx, share.Match)
	if err != nil {
		return sessions.CardShare{}, false, fmt.Errorf("share the card of match %d: %w", share.Match, err)
	}
	return got, claimed, nil
}

// sharedCard reads the share of match's card.
func (s *Store) sharedCard(ctx context.Context, match int64) (sessions.CardShare, error) {
	var (
		c  sessions.CardShare
		at string
	)
	err := s.db.QueryRowContext(ctx, s.d.Rebind(`SELECT match_id, guild_id, channel_id, user_id, message_id, shared_at
		FROM shared_cards WHERE match_id = ?`), match).Scan(&c.Match, &c.GuildID, &c.ChannelID, &c.UserID, &c.MessageID, &at)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return c, fmt.Errorf("shared card of match %d: %w", match, sessions.ErrNotFound)
	case err != nil:
		return c, s.failed(err)
	}
	if c.SharedAt, err = parseOptionalTime(at); err != nil {
		return c, fmt.Errorf("shared card of match %d: shared_at: %w: %w", match, sessions.ErrCorrupt, err)
	}
	return c, nil
}

// CardPosted implements sessions.CardStore.
func (s *Store) CardPosted(ctx context.Context, match int64, messageID string) error {
	if messageID == "" {
		return fmt.Errorf("the card of match %d posted: empty message id", match)
	}
	done := s.lockWrites()
	err := swapped(s.db.ExecContext(ctx, s.d.Rebind(`UPDATE shared_cards SET message_id = ? WHERE match_id = ?`), messageID, match))
	done()
	switch {
	case errors.Is(err, errLost):
		return fmt.Errorf("the card of match %d posted: %w", match, sessions.ErrNotFound)
	case err != nil:
		return fmt.Errorf("the card of match %d posted: %w", match, s.failed(err))
	}
	return nil
}

// UnshareCard implements sessions.CardStore.
func (s *Store) UnshareCard(ctx context.Context, match int64, userID string) (bool, error) {
	done := s.lockWrites()
	err := swapped(s.db.ExecContext(ctx, s.d.Rebind(`DELETE FROM shared_cards WHERE match_id = ? AND user_id = ? AND message_id = ''`), match, userID))
	done()
	switch {
	case errors.Is(err, errLost):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("unshare the card of match %d: %w", match, s.failed(err))
	}
	return true, nil
}

// forgetSharedCardsSQL removes the shares of a member's matches (before
// forgetMatchesSQL removes the matches, through its indexes) and those
// they made (through shared_cards_by_user). Its arguments: the member
// three times.
const forgetSharedCardsSQL = `DELETE FROM shared_cards WHERE user_id = ?
	OR match_id IN (SELECT id FROM matches WHERE player1_id = ? OR player2_id = ?)`
