package sqlite

import (
	"database/sql"

	"github.com/connectn/connectn/sessions/internal/sqlstore"
)

// What the tests in package sqlite_test, and the contract suite through
// them, reach inside a Store; none of it is part of the package's API.

// Migrations is migrations, for tests that build older schemas.
var Migrations = migrations

// DB returns the store's database, for tests that read PRAGMAs or
// checkpoint the log.
func DB(s *Store) *sql.DB { return s.core.DB() }

// LockWaiters returns how many calls of s wait for the per-channel lock
// of channelID (sessionstest.DB.LockWaiters).
func LockWaiters(s *Store, channelID string) int { return s.core.LockWaiters(channelID) }

// RowReads returns how many times s has read a channel's newest session
// (sessionstest.DB.RowReads).
func RowReads(s *Store) int64 { return s.core.RowReads() }

// PlannedQueries are the engine's statements whose plans TestQueryPlans
// checks.
var PlannedQueries = sqlstore.PlannedQueries
