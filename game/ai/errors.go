package ai

import "errors"

// Sentinel errors returned (wrapped) by this package; check them with
// errors.Is.
var (
	// ErrBoardTooLarge means the exact solver cannot handle the board: its
	// bitboard needs more than 64 bits ((rows+1) x columns > 64). Analyze
	// returns it for such boards, and NewSolver refuses them.
	ErrBoardTooLarge = errors.New("board too large for the exact solver")
	// ErrInvalidBoard means a board size or connect length below 1.
	ErrInvalidBoard = errors.New("invalid board")
	// ErrInvalidMoves means a sequence of moves cannot be played: a column
	// off the board, a full column, or a move after the game was already
	// won.
	ErrInvalidMoves = errors.New("invalid moves")
	// ErrUnknownLevel means a level name ParseLevel does not know.
	ErrUnknownLevel = errors.New("unknown level")
	// ErrNotSettled means the exact solver did not settle a position before
	// the context ended; Analyze marks such positions instead of failing.
	ErrNotSettled = errors.New("position not settled in time")
)
