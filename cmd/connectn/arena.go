package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"time"

	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/game/ai"
)

const arenaUsage = `Usage: connectn arena [flags]

Plays two AI levels against each other over many games on one board,
alternating who opens, and prints wins, draws and losses. Each game starts
with a few random plies (-random) so that the games differ; with 0 every
game starts from the empty board, and the games differ only by the
randomness of the easy and medium levels (seeded per game from -seed).

Flags:
  -a LEVEL       first level: easy, medium, hard or perfect (default medium)
  -b LEVEL       second level (default hard)
  -games N       games to play (default 20)
  -rows N        rows (default 6)
  -columns N     columns (default 7)
  -connect N     discs in a line that win (default 4)
  -random N      random plies at the start of each game (default 2)
  -seed N        seed of the random plies and of the AI (default 1)
  -move-time D   time per move (default 900ms)
  -v             print every game
`

// arenaMain runs "connectn arena" and returns the exit status.
func arenaMain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("connectn arena", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {} // help on stdout, the usage after an error on stderr: below
	aName := fs.String("a", "medium", "first level")
	bName := fs.String("b", "hard", "second level")
	games := fs.Int("games", 20, "games")
	rows := fs.Int("rows", 6, "rows")
	columns := fs.Int("columns", 7, "columns")
	connect := fs.Int("connect", 4, "connect")
	randomPlies := fs.Int("random", 2, "random opening plies")
	seed := fs.Uint64("seed", 1, "seed")
	moveTime := fs.Duration("move-time", 900*time.Millisecond, "time per move")
	verbose := fs.Bool("v", false, "print every game")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, arenaUsage)
			return 0
		}
		fmt.Fprint(stderr, arenaUsage) // after the flag package's line on the error
		return 2
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "connectn arena: "+format+"\n", a...)
		return 2
	}
	if fs.NArg() > 0 {
		return fail("unexpected argument %q", fs.Arg(0))
	}
	levels := [2]ai.Level{}
	for i, name := range []string{*aName, *bName} {
		l, err := ai.ParseLevel(name)
		if err != nil {
			return fail("%v", err)
		}
		levels[i] = l
	}
	cfg := game.Config{Rows: *rows, Columns: *columns, Connect: *connect, Wins: 1}
	if err := cfg.Validate(); err != nil {
		return fail("%v", err)
	}
	if *games < 1 || *randomPlies < 0 || *moveTime <= 0 {
		return fail("-games must be at least 1, -random at least 0 and -move-time positive")
	}
	engine := ai.NewEngine(ai.Options{Seed: *seed, MoveTime: *moveTime})
	// record[side][opened]: wins, draws, losses of levels[side].
	var record [2][2][3]int
	start := time.Now()
	for i := 0; i < *games; i++ {
		first := i % 2 // index of the level that opens
		rng := rand.New(rand.NewPCG(*seed, uint64(i)))
		m, _ := game.NewMatch(cfg)
		var moves []int
		for !m.Over() {
			r := m.Round()
			p := r.ToMove()
			side := first
			if p == game.Player2 {
				side = 1 - first
			}
			var column int
			if r.Plies() < *randomPlies {
				column = randomColumn(rng, m)
			} else {
				mctx, cancel := context.WithTimeout(ctx, *moveTime+100*time.Millisecond)
				c, err := engine.WithSeed(*seed*1000003+uint64(i)).Move(mctx, m, levels[side])
				cancel()
				if err != nil {
					return fail("game %d: %v", i+1, err)
				}
				column = c
			}
			if _, err := m.Play(p, column); err != nil {
				return fail("game %d: %s played column %d: %v", i+1, levels[side], column+1, err)
			}
			moves = append(moves, column)
			if ctx.Err() != nil {
				return fail("%v", ctx.Err())
			}
		}
		winner := m.Winner()
		result := "draw"
		if m.Draws() == 0 {
			ws := first
			if winner == game.Player2 {
				ws = 1 - first
			}
			record[ws][boolInt(ws == first)][0]++
			record[1-ws][boolInt(1-ws == first)][2]++
			result = levels[ws].String() + " wins"
		} else {
			record[0][boolInt(first == 0)][1]++
			record[1][boolInt(first == 1)][1]++
		}
		if *verbose {
			fmt.Fprintf(stdout, "game %d: %s opens, %s: %s\n", i+1, levels[first], result, columnsString(moves))
		}
	}
	fmt.Fprintf(stdout, "%s vs %s on %dx%d (rows x columns), connect %d: %d games, %d random opening plies, %v per move at most, %v in all\n",
		levels[0], levels[1], *rows, *columns, *connect, *games, *randomPlies, *moveTime, time.Since(start).Round(time.Second))
	for side := 0; side < 2; side++ {
		f, s := record[side][1], record[side][0]
		fmt.Fprintf(stdout, "%-8s %3d wins %3d draws %3d losses   (opening: %d-%d-%d, second: %d-%d-%d)\n", levels[side].String()+":",
			f[0]+s[0], f[1]+s[1], f[2]+s[2], f[0], f[1], f[2], s[0], s[1], s[2])
	}
	return 0
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// randomColumn picks a random column that is not full.
func randomColumn(rng *rand.Rand, m *game.Match) int {
	r := m.Round()
	cols := m.Config().Columns
	var open []int
	for c := 0; c < cols; c++ {
		if r.CanDrop(c) {
			open = append(open, c)
		}
	}
	return open[rng.IntN(len(open))]
}

func columnsString(moves []int) string {
	b := make([]byte, len(moves))
	for i, c := range moves {
		b[i] = columnName(c)[0]
	}
	return string(b)
}
