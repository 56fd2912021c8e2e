package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/game/ai"
)

const solveUsage = `Usage: connectn solve [flags] [position ...]
       connectn solve [flags] < positions

Solves Connect N positions exactly and prints one line per position:
  moves score nodes microseconds
A position is written as the columns played, first player first, numbered
from 1 (columns 10 to 32 are written a to w): "connectn solve 4453" solves
the position after 4, 4, 5, 3. Without positions as arguments, they are
read from standard input, one a line, each optionally followed by a space
and anything else (such as a known score), which is ignored: the format of
Pascal Pons' test sets, so that his solver and this one run side by side on
the same input. An empty line (or argument "") is the empty board.

The score follows Pons' convention, for the player to move: 0 for a draw, a
positive score for a win (the sooner, the larger: 22 minus the winner's
discs at the end, on 7x6), a negative one for a loss. With -weak it is 1, 0
or -1. The transposition table is emptied before every position, as Pons'
benchmark does; the time counts the search only (not reading the moves
nor emptying the table), as his does.

An invalid position (a column off the board, a full column, a move after
the game is won, a position already won) is reported on stderr with its
line number (or argument number), and the command stops with exit status 1.
Bad flags give status 2.

Flags:
  -rows N      rows of the board (default 6)
  -columns N   columns of the board (default 7)
  -connect N   discs in a line that win (default 4)
  -weak        only win, draw or loss: score 1, 0 or -1
  -table MB    transposition table size in MiB (default 64)
  -workers N   goroutines per position, 1 to 64, sharing the table (default 2)
  -keep        keep the table from one position to the next
`

// solveMain runs "connectn solve" and returns the exit status.
func solveMain(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("connectn solve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {} // help on stdout, the usage after an error on stderr: below
	rows := fs.Int("rows", 6, "rows")
	columns := fs.Int("columns", 7, "columns")
	connect := fs.Int("connect", 4, "connect")
	weak := fs.Bool("weak", false, "win, draw or loss only")
	tableMB := fs.Int("table", ai.DefaultTableMB, "table size in MiB")
	workers := fs.Int("workers", 2, "workers per position")
	keep := fs.Bool("keep", false, "keep the table between positions")
	// Flags may come before, between or after the positions.
	var positions []string
	for rest := args; ; {
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fmt.Fprint(stdout, solveUsage)
				return 0
			}
			fmt.Fprint(stderr, solveUsage) // after the flag package's line on the error
			return 2
		}
		if fs.NArg() == 0 {
			break
		}
		positions = append(positions, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	if *columns > 32 {
		fmt.Fprintf(stderr, "connectn solve: -columns %d: at most 32 columns can be written in this format\n", *columns)
		return 2
	}
	if *workers < 1 || *workers > ai.MaxWorkers {
		fmt.Fprintf(stderr, "connectn solve: -workers %d: must be 1 to %d\n", *workers, ai.MaxWorkers)
		return 2
	}
	if *tableMB < 4 {
		fmt.Fprintf(stderr, "connectn solve: -table %d: must be at least 4 (MiB)\n", *tableMB)
		return 2
	}
	solver, err := ai.NewSolver(*rows, *columns, *connect, ai.SolverOptions{TableMB: *tableMB, Workers: *workers})
	if err != nil {
		fmt.Fprintf(stderr, "connectn solve: %v\n", err)
		return 2
	}
	in := bufio.NewScanner(stdin)
	in.Buffer(make([]byte, 0, 4096), 1<<20)
	where := "line"
	next := func() (string, bool) {
		if !in.Scan() {
			return "", false
		}
		field, _, _ := strings.Cut(strings.TrimRight(in.Text(), "\r"), " ")
		return field, true
	}
	if positions != nil {
		where = "argument"
		next = func() (string, bool) {
			if len(positions) == 0 {
				return "", false
			}
			field := positions[0]
			positions = positions[1:]
			return field, true
		}
	}
	out := bufio.NewWriter(stdout)
	defer out.Flush()
	for line := 1; ; line++ {
		field, ok := next()
		if !ok {
			break
		}
		moves, err := parseMoves(field, *columns)
		if err == nil && !*keep {
			solver.Reset()
		}
		var pos ai.Position
		if err == nil {
			pos, err = solver.Play(moves)
		}
		var r ai.Result
		var took time.Duration
		if err == nil {
			start := time.Now()
			r, err = solver.SolveReporting(ctx, pos, *weak, func(p ai.Progress) {
				if p.Elapsed >= progressAfter {
					fmt.Fprintf(stderr, "connectn solve: %s %d: score between %d and %d, %d nodes, %.0f s\n",
						where, line, p.Lo, p.Hi, p.Nodes, p.Elapsed.Seconds())
				}
			})
			took = time.Since(start)
		}
		if err != nil {
			out.Flush()
			fmt.Fprintf(stderr, "connectn solve: %s %d %q: %v\n", where, line, shorten(field), err)
			return 1
		}
		fmt.Fprintf(out, "%s %d %d %d\n", field, r.Score, r.Nodes, took.Microseconds())
		if *keep {
			continue
		}
		out.Flush() // one line per position as soon as it is solved
	}
	if err := in.Err(); err != nil {
		out.Flush()
		fmt.Fprintf(stderr, "connectn solve: reading standard input: %v\n", err)
		return 1
	}
	return 0
}

// progressAfter is how long a position is solved before connectn solve
// reports its progress on standard error, about every second.
const progressAfter = 2 * time.Second

// parseMoves reads a position written as columns numbered from 1 (1-9,
// then a-w for 10-32) into zero-based columns. Whether the moves can be
// played is for the solver to say.
func parseMoves(s string, columns int) ([]int, error) {
	moves := make([]int, 0, len(s))
	for i := 0; i < len(s); i++ {
		ch := s[i]
		c, ok := game.ParseColumnCode(rune(ch))
		if !ok {
			return nil, fmt.Errorf("move %d: %q is not a column (columns are 1 to %s)", i+1, ch, columnName(columns-1))
		}
		if c >= columns {
			return nil, fmt.Errorf("move %d: column %s is not on a board of %d columns", i+1, columnName(c), columns)
		}
		moves = append(moves, c)
	}
	return moves, nil
}

// columnName writes a zero-based column as parseMoves reads it.
func columnName(c int) string { return string(game.ColumnCode(c)) }

func shorten(s string) string {
	if len(s) > 60 {
		return s[:60] + "..."
	}
	return s
}
