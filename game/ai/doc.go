// Package ai chooses the moves of the computer player of Connect N, from an
// easy opponent to a perfect one, and reviews finished rounds.
//
// # Usage
//
//	engine := ai.NewEngine(ai.Options{})    // once per process; safe for concurrent use
//	level, err := ai.ParseLevel("hard")      // easy, medium, hard, perfect; ai.Levels() lists them
//	ctx, cancel := context.WithTimeout(ctx, time.Second)
//	column, err := engine.Move(ctx, match, level) // zero-based column for the player to move
//	cancel()
//	review, err := engine.Analyze(ctx, match.Config(), round) // after a round, boards of <= 64 bits
//
// Move reads the match only through game's read-only views. It returns
// within its context's deadline (and Options.MoveTime, 900 ms by default)
// with the best move found; concurrent searches share a bounded pool of
// workers (Options.Workers, the number of processors by default) and one
// transposition table (Options.TableMB, 64 MiB by default).
//
// # Levels
//
// Easy looks one move ahead with a lot of noise: it always takes an
// immediate win but blocks only half of the immediate threats. Medium
// searches four plies and always takes a win and blocks a single threat.
// Hard searches up to 50,000 positions (or the deadline) and solves exactly
// when 20 or fewer cells are empty on boards of up to 64 bits. Perfect uses
// the exact solver on every board whose bitboard fits in 64 bits
// ((rows+1) x columns <= 64, any connect length), after a short heuristic
// search that gives it a move should the solver not finish, and every move
// it settles keeps the position's value; on 7x6 the opening book answers where the
// solver would need more than the deadline, so it plays perfectly from the
// first move, while on other boards of up to 64 bits an opening position the
// solver cannot settle in time gets the deepest search instead. Beyond 64
// bits no exact solver answers within a second, and perfect is the strongest
// time-bounded search: the whole budget, no node limit. Easy and medium are
// deterministic for a given Options.Seed; hard and perfect depend on how far
// the search gets in time.
//
// # The solver
//
// Solver is an exact solver for boards of up to 64 bits and any connect N,
// after Pascal Pons, "Solving Connect 4: how to build a perfect AI"
// (blog.gamesolver.org, and his solver github.com/PascalPons/connect4),
// itself in the line of John Tromp's Fhourstones (tromp.github.io/c4): a
// bitboard of (rows+1) bits per column, negamax with alpha-beta pruning,
// moves ordered centre first and then by the number of threats they create,
// pruning of the moves that hand the opponent an immediate win, a
// transposition table, and iterative null-window search on the score. Scores
// use Pons' convention (positive when the player to move wins, the sooner
// the larger). Beyond Pons: the table keeps both bounds of a score and the
// best move, a position and its mirror image share one entry, children are
// looked up before they are searched (enhanced transposition cutoff), a
// player with no window left free of the other's discs is bounded by a draw,
// positions near the end of the game live in a small table that stays in
// the processor's cache, further workers (lazy SMP) join long searches and
// share the table, and, after the ideas of Christophe Steininger's c4,
// Allis' claimeven bounds the first player on boards of even rows, a
// position with a single non-losing move passes straight to its child, and
// moves are ordered by the threats they leave that the opponent cannot
// defuse. "connectn solve" runs it on Pons' test-set format.
//
// # The opening book
//
// On 7x6 the perfect level would need more than a second for the first
// moves, so an opening book (book7x6.txt, embedded with go:embed) answers
// there. It is made by our own tool, internal/bookgen, through
// "go generate ./game/ai" (GenerateBook): from the empty board (the AI opens)
// and from each first move of the opponent (the AI answers), each position
// the AI meets when it follows its own book moves is solved weakly (win,
// draw or loss) with one worker and an empty table, as the live solver would
// meet it; when that took longer than 250 ms, every reply to the book move
// is queued, up to 16 discs. Positions the solver settles faster are left
// to it. The run resumes from the lines already written, and each line
// records the seconds its position took.
//
// The embedded book is made by "go generate ./game/ai", which runs
// "go run ./internal/bookgen -out book7x6.txt -max-plies 16 -slow 250ms"
// with bookgen's other defaults (one worker, a 64 MiB table emptied before
// each position); delete book7x6.txt first to make it afresh rather than
// extend it, and expect it to take about an hour on two cores. It holds
// every position of up to 16 discs the perfect level can meet by following
// its book where the solver needed more than 250 ms, and no position of 16
// discs needed more: so every line out of the book passes through a
// position settled in 250 ms or less (one worker, empty table); what
// follows it is left to the live solver, which has about 800 ms per move, a
// table warmed by the game's earlier moves and, when the pool has one free,
// a second worker. docs/ai.md has the figures of the run that made the
// embedded book.
package ai
