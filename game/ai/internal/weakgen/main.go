// Command weakgen makes the table of weak results of the 7x6 board
// (game/ai/weak7x6.txt) with the package's own exact solver; run it through
// "go generate ./game/ai". It keeps what it has solved in OUT.part, so it
// can be stopped and started again; once every position is known it writes
// OUT and removes OUT.part.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/connectn/connectn/game/ai"
)

func main() {
	out := flag.String("out", "weak7x6.txt", "table file, written once complete")
	plies := flag.Int("plies", 5, "most discs of a position in the table (1 to 8)")
	limit := flag.Int("limit", 0, "solve only the first positions of the order (0: all)")
	from := flag.Int("from", 0, "leave the first positions of the order to another run (writes no table)")
	part := flag.String("part", "", "progress file (default OUT.part)")
	also := flag.String("done", "", "another run's progress file, read too")
	reverse := flag.Bool("reverse", false, "solve the run's positions last first (to meet another run)")
	doneOnly := flag.Bool("done-only", false, "make the table of what the progress files hold, solving nothing")
	made := flag.String("made", "", "how the table was made, for its header (default: go generate's command)")
	tableMB := flag.Int("table", 1024, "transposition table in MiB, kept from one position to the next")
	flag.Parse()
	if err := run(*out, *part, *also, *made, *plies, *limit, *from, *tableMB, *doneOnly, *reverse); err != nil {
		fmt.Fprintln(os.Stderr, "weakgen:", err)
		os.Exit(1)
	}
}

func run(out, part, also, made string, plies, limit, from, tableMB int, doneOnly, reverse bool) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if part == "" {
		part = out + ".part"
	}
	done, err := os.ReadFile(part)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	if also != "" {
		more, err := os.ReadFile(also)
		if err != nil {
			return err
		}
		done = append(done, more...)
	}
	f, err := os.OpenFile(part, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	start := time.Now()
	var table bytes.Buffer
	err = ai.GenerateWeak(ctx, &table, ai.WeakOptions{Plies: plies, Limit: limit, From: from, DoneOnly: doneOnly, Reverse: reverse, Made: made, TableMB: tableMB, Done: bytes.NewReader(done), Progress: f, Log: os.Stderr})
	fmt.Fprintf(os.Stderr, "weakgen: %v elapsed\n", time.Since(start).Round(time.Second))
	if err != nil {
		return err
	}
	if from > 0 {
		return nil // the table is made by a run from the start
	}
	if err := os.WriteFile(out, table.Bytes(), 0o644); err != nil {
		return err
	}
	if doneOnly {
		return nil // the progress is kept: the runs may go on
	}
	return os.Remove(part)
}
