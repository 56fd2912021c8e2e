// Command bookgen makes the opening book of the perfect level on 7x6
// (game/ai/book7x6.txt) with the package's own exact solver; run it through
// "go generate ./game/ai". It resumes from the lines already in the output
// file, so it can be stopped and started again.
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
	out := flag.String("out", "book7x6.txt", "book file, extended in place")
	maxPlies := flag.Int("max-plies", 16, "most discs of a book position")
	minPlies := flag.Int("min-plies", 0, "positions with fewer discs are always expanded")
	slow := flag.Duration("slow", 250*time.Millisecond, "expand positions the solver takes longer than this for")
	tableMB := flag.Int("table", 64, "transposition table in MiB")
	workers := flag.Int("workers", 1, "solver workers")
	warm := flag.Bool("warm", false, "keep the table from one position to the next (faster, but times then understate a live solve)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	done, err := os.ReadFile(*out)
	if err != nil && !os.IsNotExist(err) {
		fmt.Fprintln(os.Stderr, "bookgen:", err)
		os.Exit(1)
	}
	f, err := os.OpenFile(*out, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bookgen:", err)
		os.Exit(1)
	}
	defer f.Close()
	start := time.Now()
	err = ai.GenerateBook(ctx, f, bytes.NewReader(done), ai.BookOptions{MaxPlies: *maxPlies, MinPlies: *minPlies, Slow: *slow, TableMB: *tableMB, Workers: *workers, Cold: !*warm, Log: os.Stderr})
	fmt.Fprintf(os.Stderr, "bookgen: %v elapsed\n", time.Since(start).Round(time.Second))
	if err != nil {
		fmt.Fprintln(os.Stderr, "bookgen:", err)
		os.Exit(1)
	}
}
