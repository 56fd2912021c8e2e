// Package puzzle makes Connect N puzzles whose answers the exact solver of
// game/ai proves, plays them, and rates them: the domain of the bot's
// puzzles, with no Discord and no SQL (docs/puzzles.md is the overview).
//
// A Puzzle is a position (the moves notation of /connectn analyze) on a
// board the solver holds, and a task for the player to move: a win in N
// (N counting the winner's discs from now on, the winning one included,
// as /connectn analyze counts), an only move (the one move that keeps a
// draw), or a defence (the one move that delays a loss longest). Every
// puzzle passes the only-move test (Test): its first move is the only one
// that keeps the position's exact result, N is exact, and the task is not
// trivial (no win in 1, no forced block, more than one column open).
// Lichess finds its puzzles with an engine's judgement that the best move
// is clearly better than the second; here the solver proves it.
//
// # Usage
//
//	engine := ai.NewEngine(ai.Options{})   // the bot's; *ai.Engine is an Evaluator
//	pool := puzzle.Starter()               // 3,500 embedded puzzles on four boards
//	p, ok := puzzle.Pick(pool, memberRating, seenIDs, seed)
//	step, err := puzzle.Judge(ctx, engine, p, attempt, column)
//	switch step.Verdict {
//	case puzzle.Correct: // show step.Reply, the solver's longest defence; attempt += column, reply
//	case puzzle.Solved:  // rate: puzzle.Rate(member, puzzleRating, !hinted)
//	case puzzle.Wrong:   // show step.Refutation and step.Solution; rate as a loss
//	}
//	hint := p.Hint()                       // the solution's third of the board, as data
//	daily, _ := puzzle.Daily(pool, today)  // one puzzle for the whole bot that day
//	found, complete, err := puzzle.FindInMatch(ctx, engine, match, info, puzzle.FindOptions{})
//
// Puzzles come from the generator (Generate, "connectn puzzles generate")
// and from the bot's own matches (FindInMatch: a position where a player
// had a forced win and played a move that gave it away). The starter set
// is generated once with a fixed seed and embedded (Starter); go generate
// ./puzzle makes it again. Format and Parse write and read a puzzle as one
// line, the starter files' format.
//
// Ratings are Glicko-2 (package rating) between the member and the
// puzzle, each attempt a game, with τ 0.75 as lichess's puzzles (Rate).
//
// The package imports game/ai, rating and game, and the standard library.
package puzzle
