package main

import (
	"context"
	"errors"

	"github.com/connectn/connectn/sessions"
)

// observedStore is the session store as the bot uses it, with every
// failure of the database counted (op "create", "update", "abandon") and
// explained by its backend (a full disk, a read-only file, ...). The
// expected outcomes (no session, a busy channel) and the errors returned by
// an Update's own function are not failures. Methods other than these
// three pass through unobserved.
type observedStore struct {
	sessions.Store
	// puzzles is the backend's store of the puzzles (bot.WithPuzzles).
	puzzles  sessions.PuzzleStore
	explain  func(error) error // the backend's Explain; nil explains nothing
	failures func(op string)   // nil counts nothing
}

// Create implements sessions.Store, as the bot uses it.
func (s *observedStore) Create(ctx context.Context, sess *sessions.Session) (*sessions.Session, error) {
	out, err := s.Store.Create(ctx, sess)
	return out, s.observe("create", err, nil)
}

// Update implements sessions.Store, as the bot uses it.
func (s *observedStore) Update(ctx context.Context, channelID string, fn func(*sessions.Session) error) (*sessions.Session, error) {
	var fnErr error
	out, err := s.Store.Update(ctx, channelID, func(sess *sessions.Session) error {
		fnErr = fn(sess)
		return fnErr
	})
	return out, s.observe("update", err, fnErr)
}

// Abandon implements sessions.Store, as the bot uses it.
func (s *observedStore) Abandon(ctx context.Context, channelID string) (int64, error) {
	id, err := s.Store.Abandon(ctx, channelID)
	return id, s.observe("abandon", err, nil)
}

// observe counts and explains err unless it is an expected outcome or
// came from fnErr.
func (s *observedStore) observe(op string, err, fnErr error) error {
	switch {
	case err == nil,
		fnErr != nil && errors.Is(err, fnErr),
		errors.Is(err, sessions.ErrNotFound),
		errors.Is(err, sessions.ErrActiveSession):
		return err
	}
	if s.failures != nil {
		s.failures(op)
	}
	if s.explain == nil {
		return err
	}
	return s.explain(err)
}
