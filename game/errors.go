package game

import "errors"

// Sentinel errors returned (wrapped) by this package. Check them with
// errors.Is; the wrapping adds the column, player or setting concerned.
var (
	// ErrInvalidConfig means a match or board configuration is impossible:
	// sizes below 1 or above MaxSize, a connect length below 1 or longer
	// than both dimensions, a wins target below 1, or an unknown policy.
	ErrInvalidConfig = errors.New("invalid configuration")
	// ErrInvalidBoard means an ASCII picture of a board could not be read.
	ErrInvalidBoard = errors.New("invalid board picture")
	// ErrInvalidPlayer means a player other than Player1 or Player2 acted.
	ErrInvalidPlayer = errors.New("invalid player")
	// ErrColumnOutOfRange means a column outside 0..columns-1 was played.
	ErrColumnOutOfRange = errors.New("column out of range")
	// ErrColumnFull means a disc was dropped into a full column.
	ErrColumnFull = errors.New("column is full")
	// ErrNotYourTurn means the player who acted is not the one to move.
	ErrNotYourTurn = errors.New("not your turn")
	// ErrMatchOver means an action came after the match ended.
	ErrMatchOver = errors.New("match is over")
	// ErrInvalidAction means a recorded action has an unknown kind.
	ErrInvalidAction = errors.New("invalid action")
)
