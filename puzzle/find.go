package puzzle

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/game/ai"
)

// MatchInfo names a finished match, for the provenance of the puzzles
// found in it.
type MatchInfo struct {
	// Guild is the Discord server ("" for none), Match the match's ID in
	// the store.
	Guild string
	Match int64
	// Players are the players' names, game.Player1's first.
	Players [2]string
}

// FindOptions bounds FindInMatch's work.
type FindOptions struct {
	// MaxEmpty is the most empty cells of a position FindInMatch looks at
	// (0: 30, as the generator's GenerateOptions.MaxEmpty): the solver
	// settles positions with more of them too slowly for a budget of
	// seconds, and a win in MaxWinIn needs 23.
	MaxEmpty int
}

// FindInMatch looks for puzzles in the rounds of m, a finished (or any)
// match, with e's exact solver: positions where the player to move had a
// forced win and played a move that gave it away (to a draw or a loss),
// and that pass the only-move test (Test): a win in 2 to 12 by a single
// move. Each puzzle's Source says where it was found (info, the round, the
// move that gave the win away, the player who played it). It is meant for
// the background after each match, within a budget: it values the
// positions with the most discs first, over every round (the fastest to
// settle, and the likeliest to hold a missed win), skips those with more
// than opts.MaxEmpty empty cells, and stops when ctx ends. It returns the
// puzzles found, by round and move, one per position, and complete, true
// when every position it looked at was settled. It returns an error
// wrapping ErrInvalidPuzzle for a board the solver cannot hold (no puzzle
// can be proved there), and an Evaluator's other errors.
func FindInMatch(ctx context.Context, e Evaluator, m *game.Match, info MatchInfo, opts FindOptions) (found []Puzzle, complete bool, err error) {
	cfg := Normalize(m.Config())
	maxEmpty := opts.MaxEmpty
	if maxEmpty <= 0 {
		maxEmpty = 30
	}
	if !ai.Solvable(cfg) {
		return nil, false, fmt.Errorf("board %dx%d: %w: %w", cfg.Rows, cfg.Columns, ai.ErrBoardTooLarge, ErrInvalidPuzzle)
	}
	type spot struct {
		round *game.Round
		moves []int
		ply   int // the position before moves[ply]
	}
	var spots []spot
	for _, r := range m.Rounds() {
		moves := r.Moves()
		for i := range moves {
			if cfg.Rows*cfg.Columns-i <= maxEmpty {
				spots = append(spots, spot{round: r, moves: moves, ply: i})
			}
		}
	}
	// The most discs first; then by round and move, for a stable order.
	slices.SortStableFunc(spots, func(a, b spot) int { return b.ply - a.ply })
	complete = true
	seen := map[string]bool{}
	for _, s := range spots {
		if ctx.Err() != nil {
			return sortFound(found), false, nil
		}
		pos := s.moves[:s.ply]
		vals, err := e.Evaluate(ctx, cfg, pos)
		if err != nil {
			return sortFound(found), false, err
		}
		played := vals[s.moves[s.ply]]
		best, settled := 0, true
		for _, v := range vals {
			if v.Legal && !v.Settled {
				settled = false
			}
			if v.Legal && v.Settled {
				best = max(best, v.Score)
			}
		}
		if !settled {
			complete = false
		}
		if best <= 0 || !played.Settled || played.Score > 0 {
			continue // no win to give away, or it was kept
		}
		p, err := test(ctx, cfg, pos, nil, func(*game.Board) prober {
			return &evalProber{e: e, cfg: cfg, moves: pos, vals: vals}
		})
		if errors.Is(err, ErrNotPuzzle) || errors.Is(err, ai.ErrNotSettled) {
			continue
		}
		if err != nil {
			return sortFound(found), false, err
		}
		if p.Kind != WinIn || seen[p.ID] {
			continue
		}
		seen[p.ID] = true
		mover := s.round.Opener()
		if s.ply%2 == 1 {
			mover = mover.Other()
		}
		p.Source = Source{Kind: FromMatch, Guild: info.Guild, Match: info.Match, Players: info.Players,
			Mover: mover, Round: s.round.Number(), Move: s.ply + 1}
		found = append(found, p)
	}
	return sortFound(found), complete, nil
}

func sortFound(found []Puzzle) []Puzzle {
	slices.SortFunc(found, func(a, b Puzzle) int {
		if a.Source.Round != b.Source.Round {
			return a.Source.Round - b.Source.Round
		}
		return a.Source.Move - b.Source.Move
	})
	return found
}
