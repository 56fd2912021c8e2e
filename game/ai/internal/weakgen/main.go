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
	"time"

	"github.com/connectn/connectn/game/ai"
)

func main() {
	out := flag.String("out", "weak7x6.txt", "table file, written once complete")
	plies := flag.Int("plies", 5, "most discs of a position in the table (1 to 8)")
	limit := flag.Int("limit", 0, "solve only the first positions of the order (0: all)")
	tableMB := flag.Int("table", 1024, "transposition table in MiB, kept from one position to the next")
	flag.Parse()
	if err := run(*out, *plies, *limit, *tableMB); err != nil {
		fmt.Fprintln(os.Stderr, "weakgen:", err)
		os.Exit(1)
	}
}

func run(out string, plies, limit, tableMB int) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	part := out + ".part"
	done, err := os.ReadFile(part)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	f, err := os.OpenFile(part, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	start := time.Now()
	var table bytes.Buffer
	err = ai.GenerateWeak(ctx, &table, ai.WeakOptions{Plies: plies, Limit: limit, TableMB: tableMB, Done: bytes.NewReader(done), Progress: f, Log: os.Stderr})
	fmt.Fprintf(os.Stderr, "weakgen: %v elapsed\n", time.Since(start).Round(time.Second))
	if err != nil {
		return err
	}
	if err := os.WriteFile(out, table.Bytes(), 0o644); err != nil {
		return err
	}
	return os.Remove(part)
}
