// Package game holds the rules of Connect N: Connect Four generalised to any
// number of rows and columns and any line length N.
//
// A Board is a grid under gravity: a disc dropped in a column falls to the
// lowest empty cell. A player wins a round with N of their discs in a line,
// horizontally, vertically, diagonally or anti-diagonally; only the lines
// through the last disc are checked, in O(N). A full board with no line is a
// draw. A Match is a series of rounds: the first player to Config.Wins round
// wins takes it, draws are counted, and who opens each round follows an
// OpenerPolicy. Either player may forfeit a round or the whole match.
//
// A match is fully described by its Config and its list of Actions, so
// Replay(cfg, m.Actions()) rebuilds m exactly; that is how matches are stored.
//
// Usage:
//
//	m, err := game.NewMatch(game.Config{Rows: 6, Columns: 7, Connect: 4, Wins: 2})
//	if err != nil { ... }                    // wraps game.ErrInvalidConfig
//	r, err := m.Play(game.Player1, 3)        // column 4, counted from 0
//	switch {
//	case errors.Is(err, game.ErrNotYourTurn): ...
//	case r.Outcome() == game.Won:              // r.Line() holds the winning cells
//	}
//
// Illegal actions return sentinel errors (ErrColumnFull, ErrNotYourTurn, ...)
// wrapped with detail and leave the match unchanged. The package uses the
// standard library only.
package game
