package tournament

import "errors"

// Sentinel errors returned (wrapped, with the detail) by this package. Check
// them with errors.Is. A function that returns one of them changes nothing:
// it returns no new state, no round and no standings.
var (
	// ErrInvalidConfig means a Config is impossible: an empty or too long
	// name, an unknown format, a setting that does not belong to the
	// format or is out of range, or board rules game.Config refuses.
	ErrInvalidConfig = errors.New("invalid tournament configuration")
	// ErrInvalidState means a State does not hold together: a duplicate or
	// empty player ID, a rating that is not a finite number, a round
	// numbered out of order, a pairing naming an unknown player or the same
	// player twice in a round, or a result that does not fit its pairing.
	ErrInvalidState = errors.New("invalid tournament state")
	// ErrInvalidResult means a result given to RecordResult is not a game's
	// result: Pending, Bye or an unknown value.
	ErrInvalidResult = errors.New("invalid result")
	// ErrUnknownPlayer means a player ID is not an entry of the tournament
	// (or, for RecordResult, has no game in that round).
	ErrUnknownPlayer = errors.New("unknown player")
	// ErrUnknownRound means a round number is not one of the state's rounds.
	ErrUnknownRound = errors.New("unknown round")
	// ErrAlreadyJoined means a player who is an entry joined again.
	ErrAlreadyJoined = errors.New("already joined")
	// ErrFull means the tournament has reached its player limit.
	ErrFull = errors.New("tournament is full")
	// ErrStarted means a player tried to join a Swiss or round robin after
	// its first round was paired.
	ErrStarted = errors.New("tournament has started")
	// ErrWithdrawn means a withdrawn player withdrew again, or was named
	// among the players waiting for an arena game.
	ErrWithdrawn = errors.New("player has withdrawn")
	// ErrAlreadyRecorded means a game's result was recorded already (by
	// another replica, or twice); the first result stands.
	ErrAlreadyRecorded = errors.New("result already recorded")
	// ErrRoundNotFinished means the last round still has a game without a
	// result, so the next round cannot be paired yet.
	ErrRoundNotFinished = errors.New("round not finished")
	// ErrTournamentOver means every round was played (Swiss, round robin),
	// or the arena's time is up: there is nothing more to pair.
	ErrTournamentOver = errors.New("tournament is over")
	// ErrNotStarted means an arena was asked for games before its start.
	ErrNotStarted = errors.New("tournament has not started")
	// ErrTooFewPlayers means fewer than two players are left to pair.
	ErrTooFewPlayers = errors.New("too few players")
	// ErrNoPairing means no pairing of the round respects the absolute
	// rules: every Swiss pairing would repeat a game, or the odd player out
	// would need a second bye.
	ErrNoPairing = errors.New("no pairing respects the rules")
	// ErrWrongFormat means a function of one format was called on a
	// tournament of another: NextRound on an arena, ArenaPair on a Swiss
	// or a round robin.
	ErrWrongFormat = errors.New("not for this format")
	// ErrBusy means a player named as waiting for an arena game still has
	// a game without a result.
	ErrBusy = errors.New("player is still playing")
	// ErrMatchNotOver means MatchResult was given a match still going on.
	ErrMatchNotOver = errors.New("match is not over")
)
