package postgres

import (
	"context"
	"time"

	"github.com/connectn/connectn/sessions"
)

// The tournaments (sessions.TournamentStore), forwarded to the shared
// engine as the rest of the contract is.

var _ sessions.TournamentStore = (*Store)(nil)

// CreateTournament implements sessions.TournamentStore.
func (s *Store) CreateTournament(ctx context.Context, t *sessions.Tournament) (*sessions.Tournament, error) {
	return s.core.CreateTournament(ctx, t)
}

// Tournament implements sessions.TournamentStore.
func (s *Store) Tournament(ctx context.Context, id int64) (*sessions.Tournament, error) {
	return s.core.Tournament(ctx, id)
}

// UpdateTournament implements sessions.TournamentStore.
func (s *Store) UpdateTournament(ctx context.Context, id int64, fn func(*sessions.Tournament) error) (*sessions.Tournament, error) {
	return s.core.UpdateTournament(ctx, id, fn)
}

// Tournaments implements sessions.TournamentStore.
func (s *Store) Tournaments(ctx context.Context, guildID string, limit int) ([]*sessions.Tournament, error) {
	return s.core.Tournaments(ctx, guildID, limit)
}

// DueTournaments implements sessions.TournamentStore.
func (s *Store) DueTournaments(ctx context.Context, now time.Time, limit int) ([]int64, error) {
	return s.core.DueTournaments(ctx, now, limit)
}
