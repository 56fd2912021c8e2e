package postgres

import "github.com/connectn/connectn/sessions/internal/sqlstore"

// What the tests in package postgres_test, and the contract suite through
// them, reach inside a Store; none of it is part of the package's API.

// Migrations is migrations, for tests that count them.
var Migrations = migrations

// LockWaiters returns how many calls of s wait for the per-channel lock
// of channelID (sessionstest.DB.LockWaiters).
func LockWaiters(s *Store, channelID string) int { return s.core.LockWaiters(channelID) }

// RowReads returns how many times s has read a channel's newest session
// (sessionstest.DB.RowReads).
func RowReads(s *Store) int64 { return s.core.RowReads() }

// Explain is explain, for tests of an error without a Store.
var Explain = explain

// PlannedQueries are the engine's statements whose plans TestQueryPlans
// checks.
var PlannedQueries = sqlstore.PlannedQueries

// Pipeline is the dialect's pipeline, for its own tests.
var Pipeline = pipeline

// NewestManySQL is the dialect's read of many channels' newest sessions,
// for the test of its plan.
const NewestManySQL = newestManySQL

// UpdateManySQL is the dialect's write of many sessions at once, for its
// test.
var UpdateManySQL = updateManySQL

// PipedTx is the dialect's piped transaction, for its own tests.
var PipedTx = pipedTx
