package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/puzzle"
)

const puzzlesUsage = `Usage: connectn puzzles generate [flags]

Commands of the puzzles (package puzzle, docs/puzzles.md):
  generate   make puzzles proved by the exact solver, one a line
`

const puzzlesGenerateUsage = `Usage: connectn puzzles generate [flags]

Makes puzzles on one board: plays games from the empty board (random moves
mixed with the AI's medium level, seeded by -seed), and keeps the positions
whose first move the exact solver proves to be the only one that keeps the
result: a win in 2 to 12, an only move (the one move that keeps a draw) or
a defence (the one move that delays a loss longest), spread evenly over
those 13 tasks. Writes one puzzle a line (the format of the embedded
starter set, after a first line that records the command) to FILE, or to
standard output; progress and a summary with the puzzles made per minute
go to standard error. The same flags give the same puzzles, but for the
positions the solver cannot settle within -budget (the summary counts them).

Flags:
  -rows N        rows of the board (default 6)
  -columns N     columns of the board (default 7); (rows+1) x columns <= 64
  -connect N     discs in a line that win (default 4)
  -n N           puzzles to make (default 500)
  -seed N        seed of the games (default 1)
  -out FILE      write to FILE (replaced once the run is over) instead of
                 standard output
  -max-empty N   try positions with at most N empty cells (default 30)
  -table MB      the solver's transposition table in MiB (default 64)
  -budget D      the solver's time for one position (default 10s)
`

// puzzlesMain runs "connectn puzzles" and returns the exit status.
func puzzlesMain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, puzzlesUsage)
		return exitUsage
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, puzzlesUsage)
		return 0
	case "generate":
		return puzzlesGenerate(ctx, args[1:], stdout, stderr)
	}
	fmt.Fprintf(stderr, "connectn puzzles: unknown command %q\n%s", args[0], puzzlesUsage)
	return exitUsage
}

// puzzlesGenerate runs "connectn puzzles generate".
func puzzlesGenerate(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("connectn puzzles generate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {}
	rows := fs.Int("rows", 6, "rows")
	columns := fs.Int("columns", 7, "columns")
	connect := fs.Int("connect", 4, "connect")
	n := fs.Int("n", 500, "puzzles")
	seed := fs.Uint64("seed", 1, "seed")
	out := fs.String("out", "", "output file")
	maxEmpty := fs.Int("max-empty", 30, "most empty cells")
	tableMB := fs.Int("table", 64, "table size in MiB")
	budget := fs.Duration("budget", 10*time.Second, "time per position")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, puzzlesGenerateUsage)
			return 0
		}
		fmt.Fprint(stderr, puzzlesGenerateUsage)
		return exitUsage
	}
	fail := func(status int, format string, a ...any) int {
		fmt.Fprintf(stderr, "connectn puzzles generate: "+format+"\n", a...)
		return status
	}
	if fs.NArg() > 0 {
		return fail(exitUsage, "unexpected argument %q", fs.Arg(0))
	}
	cfg := game.Config{Rows: *rows, Columns: *columns, Connect: *connect, Wins: 1}
	if err := cfg.Validate(); err != nil {
		return fail(exitUsage, "%v", err)
	}
	switch {
	case (*rows+1)**columns > 64:
		return fail(exitUsage, "a %dx%d board needs %d bits: the solver holds (rows+1) x columns <= 64", *rows, *columns, (*rows+1)**columns)
	case *n < 1:
		return fail(exitUsage, "-n %d: make at least 1 puzzle", *n)
	case *maxEmpty < 1:
		return fail(exitUsage, "-max-empty %d: must be at least 1", *maxEmpty)
	case *tableMB < 4:
		return fail(exitUsage, "-table %d: at least 4 MiB", *tableMB)
	case *budget <= 0:
		return fail(exitUsage, "-budget %v: must be positive", *budget)
	}
	w := stdout
	var file *os.File
	if *out != "" {
		f, err := os.CreateTemp(filepath.Dir(*out), ".puzzles-*.tmp")
		if err == nil {
			err = f.Chmod(0o644)
		}
		if err != nil {
			return fail(exitFailed, "%v", err)
		}
		defer os.Remove(f.Name()) // gone once renamed
		defer f.Close()
		file, w = f, f
	}
	bw := bufio.NewWriter(w)
	command := fmt.Sprintf("connectn puzzles generate -rows %d -columns %d -connect %d -n %d -seed %d", *rows, *columns, *connect, *n, *seed)
	if *maxEmpty != 30 {
		command += fmt.Sprintf(" -max-empty %d", *maxEmpty)
	}
	fmt.Fprintf(bw, "# %s\n", command)
	last := time.Now()
	opts := puzzle.GenerateOptions{Config: cfg, N: *n, Seed: *seed, TableMB: *tableMB, Budget: *budget, MaxEmpty: *maxEmpty,
		Progress: func(s puzzle.Stats) {
			if time.Since(last) >= 10*time.Second {
				last = time.Now()
				fmt.Fprintf(stderr, "connectn puzzles generate: %d of %d puzzles, %d games, %s\n", s.Puzzles, *n, s.Games, s.Elapsed.Round(time.Second))
			}
		}}
	st, err := puzzle.Generate(ctx, opts, func(p puzzle.Puzzle) error {
		_, err := fmt.Fprintln(bw, p.Format())
		return err
	})
	if err == nil {
		err = bw.Flush()
	}
	if err == nil && file != nil {
		if err = file.Close(); err == nil {
			err = os.Rename(file.Name(), *out)
		}
	}
	fmt.Fprintln(stderr, summary(cfg, st))
	if err != nil {
		return fail(exitFailed, "%v", err)
	}
	return 0
}

// summary is the last line of a run: what it made, how fast, and what it
// tried.
func summary(cfg game.Config, st puzzle.Stats) string {
	themes := make([]string, 0, len(st.Themes))
	for t, k := range st.Themes {
		themes = append(themes, fmt.Sprintf("%s %d", t, k))
	}
	slices.Sort(themes)
	return fmt.Sprintf("connectn puzzles generate: %d puzzles on %dx%d (rows x columns), connect %d, in %s: %.1f per minute; "+
		"%d games, %d positions tested, %d skipped, %d not settled in time, %d duplicates; %s",
		st.Puzzles, cfg.Rows, cfg.Columns, cfg.Connect, st.Elapsed.Round(time.Second), st.PerMinute(),
		st.Games, st.Positions, st.Skipped, st.Unsettled, st.Duplicates, strings.Join(themes, ", "))
}
