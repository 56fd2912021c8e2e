package ai

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/connectn/connectn/game"
)

// TestVerdictShare measures, when CONNECTN_VERDICT_SHARE is set (it takes
// minutes), the share of the replay steps of standard matches that show a
// verdict within a replay step's budget (1.2 s, as bot.replayBudget): the
// matches are rounds on 7x6 between the default level (hard) and medium,
// each opening in turn; every step where the game is not over is valued in
// order, as a player stepping through the replay meets them, once as the
// bot did before the table of weak results (Evaluate, the position's value
// the best column's when every column settled) and once as it does now
// (PositionVerdict), each with an engine of its own (64 MiB, one worker).
//
//	CONNECTN_VERDICT_SHARE=8 go test ./game/ai -run TestVerdictShare -v -timeout 60m
func TestVerdictShare(t *testing.T) {
	n := os.Getenv("CONNECTN_VERDICT_SHARE")
	if n == "" {
		t.Skip("CONNECTN_VERDICT_SHARE not set: the measure takes minutes")
	}
	rounds := 0
	for _, ch := range n {
		rounds = rounds*10 + int(ch-'0')
	}
	cfg := game.Config{Rows: 6, Columns: 7, Connect: 4, Wins: 1}
	players := NewEngine(Options{TableMB: 16, Workers: 1})
	var games [][]int
	for k := 0; k < rounds; k++ {
		levels := [2]Level{Hard, Medium}
		if k%2 == 1 {
			levels = [2]Level{Medium, Hard}
		}
		m, _ := game.NewMatch(cfg)
		p := players.WithSeed(uint64(k + 1))
		for !m.Over() {
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			c, err := p.Move(ctx, m, levels[m.Round().Plies()%2])
			cancel()
			if err != nil {
				t.Fatal(err)
			}
			if _, err := m.Play(m.ToMove(), c); err != nil {
				t.Fatal(err)
			}
		}
		games = append(games, m.Round().Moves())
		t.Logf("round %d: %s", k+1, movesString(m.Round().Moves()))
	}
	before, after := NewEngine(Options{Workers: 1}), NewEngine(Options{Workers: 1})
	const budget = 1200 * time.Millisecond
	var steps, oldShown, newShown, newDistance, newInstant int
	byPly := map[int][3]int{} // ply: steps, shown before, shown after
	for _, moves := range games {
		for k := 0; k < len(moves); k++ { // the last position is over
			steps++
			ctx, cancel := context.WithTimeout(context.Background(), budget)
			vals, err := before.Evaluate(ctx, cfg, moves[:k])
			cancel()
			if err != nil {
				t.Fatal(err)
			}
			shownBefore := true
			for _, v := range vals {
				if v.Legal && !v.Settled {
					shownBefore = false
				}
			}
			ctx, cancel = context.WithTimeout(context.Background(), budget)
			v, err := after.PositionVerdict(ctx, cfg, moves[:k])
			cancel()
			if err != nil {
				t.Fatal(err)
			}
			b := byPly[k]
			b[0]++
			if shownBefore {
				oldShown++
				b[1]++
			}
			if v.Outcome != Unknown {
				newShown++
				b[2]++
			}
			if v.In > 0 || v.Outcome == Draw {
				newDistance++
			}
			if v.Instant {
				newInstant++
			}
			byPly[k] = b
		}
	}
	for k := 0; k < 43; k++ {
		if b, ok := byPly[k]; ok {
			t.Logf("%2d discs: %d steps, a verdict before %d, after %d", k, b[0], b[1], b[2])
		}
	}
	t.Logf("%d replay steps of %d rounds: a verdict before %d (%.0f%%), after %d (%.0f%%); after, with a distance (or a draw) %d (%.0f%%), known at once %d (%.0f%%)",
		steps, len(games), oldShown, 100*float64(oldShown)/float64(steps), newShown, 100*float64(newShown)/float64(steps),
		newDistance, 100*float64(newDistance)/float64(steps), newInstant, 100*float64(newInstant)/float64(steps))
}
