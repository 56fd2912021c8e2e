package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
)

// tournamentImport writes the tournaments' lines of an import in its
// transaction, and then checks each tournament as a load would: its rows
// read back into a sessions.Tournament that holds together.
type tournamentImport struct {
	store *Store
	tx    *sql.Tx
	ids   []int64 // the tournaments imported, in order
}

// add inserts the row of line (a tournament, an entry, a round or a
// pairing) and counts it in n.
func (ti *tournamentImport) add(ctx context.Context, line *exportLine, n *Counts) error {
	s, tx := ti.store, ti.tx
	exec := func(what, query string, args ...any) error {
		if _, err := tx.ExecContext(ctx, s.d.Rebind(query), args...); err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		return nil
	}
	switch {
	case line.Tournament != nil:
		t := line.Tournament
		if err := exec(fmt.Sprintf("tournament %d", t.ID), `INSERT INTO tournaments
			(id, revision, guild_id, channel_id, name, format, config, seed, status, settings, posts,
			 started_at, due_at, created_by, ended_by, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			t.ID, t.Revision, t.GuildID, t.ChannelID, t.Name, t.Format, string(t.Config), t.Seed, t.Status,
			string(t.Settings), string(t.Posts), t.StartedAt, t.DueAt, t.CreatedBy, t.EndedBy, t.CreatedAt, t.UpdatedAt); err != nil {
			return err
		}
		ti.ids = append(ti.ids, t.ID)
		n.Tournaments++
	case line.Entry != nil:
		e := line.Entry
		if err := exec(fmt.Sprintf("tournament %d, entry %d", e.TournamentID, e.Seq), `INSERT INTO tournament_entries
			(tournament_id, seq, user_id, name, rating, withdrawn) VALUES (?, ?, ?, ?, ?, ?)`,
			e.TournamentID, e.Seq, e.UserID, e.Name, e.Rating, e.Withdrawn); err != nil {
			return err
		}
		n.TournamentEntries++
	case line.Round != nil:
		r := line.Round
		if err := exec(fmt.Sprintf("tournament %d, round %d", r.TournamentID, r.Number), `INSERT INTO tournament_rounds
			(tournament_id, number, started_at) VALUES (?, ?, ?)`, r.TournamentID, r.Number, r.StartedAt); err != nil {
			return err
		}
		n.TournamentRounds++
	case line.Pairing != nil:
		p := line.Pairing
		if err := exec(fmt.Sprintf("tournament %d, round %d, board %d", p.TournamentID, p.Round, p.Board), `INSERT INTO tournament_pairings
			(tournament_id, round, board, opener_id, second_id, result, session_id, channel_id, claimed_until)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			p.TournamentID, p.Round, p.Board, p.OpenerID, p.SecondID, p.Result, p.SessionID, p.ChannelID, p.ClaimedUntil); err != nil {
			return err
		}
		n.TournamentPairings++
	}
	return nil
}

// check reads back every tournament imported, refusing one whose rows do
// not make a tournament that holds together (sessions.ErrCorrupt).
func (ti *tournamentImport) check(ctx context.Context) error {
	for _, id := range ti.ids {
		if _, err := ti.store.loadTournament(ctx, ti.tx, id); err != nil {
			return fmt.Errorf("tournament %d: %w", id, err)
		}
	}
	return nil
}
