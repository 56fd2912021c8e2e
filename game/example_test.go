package game_test

import (
	"errors"
	"fmt"

	"github.com/connectn/connectn/game"
)

func ExampleMatch() {
	cfg := game.Config{Rows: 4, Columns: 5, Connect: 3, Wins: 2}
	m, err := game.NewMatch(cfg)
	if err != nil {
		fmt.Println(err) // wraps game.ErrInvalidConfig
		return
	}

	// Round 1: player 1 opens and builds column 0; player 2 answers in
	// column 1. Columns are counted from 0.
	for _, column := range []int{0, 1, 0, 1, 0} {
		r, err := m.Play(m.ToMove(), column)
		if err != nil {
			fmt.Println(err)
			return
		}
		if r.Outcome() == game.Won {
			fmt.Printf("round %d: %v wins with %v\n", r.Number(), r.Winner(), r.Line())
			fmt.Print(r.Board())
		}
	}

	// Round 2 has started; openers alternate, so player 2 is to move.
	_, err = m.Play(game.Player1, 2)
	fmt.Println(errors.Is(err, game.ErrNotYourTurn), err)
	_, err = m.Play(game.Player2, 5)
	fmt.Println(errors.Is(err, game.ErrColumnOutOfRange), err)

	// Player 2 gives up the whole match.
	if err := m.Forfeit(game.Player2); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%v takes the match %d-%d (forfeit: %v)\n",
		m.Winner(), m.Score(game.Player1), m.Score(game.Player2), m.Forfeited())
	fmt.Printf("player 2: %+v\n", m.Record(game.Player2))

	// The configuration and the actions are the whole match.
	again, err := game.Replay(cfg, m.Actions())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(m.Actions()), "actions replayed; same winner:", again.Winner() == m.Winner())

	// Output:
	// round 1: player 1 wins with [(0,0) (1,0) (2,0)]
	// .....
	// x....
	// xo...
	// xo...
	// true player 1 played but player 2 is to move: not your turn
	// true column 6 of 5: column out of range
	// player 1 takes the match 2-0 (forfeit: true)
	// player 2: {Wins:0 Losses:2 Draws:0}
	// 6 actions replayed; same winner: true
}
