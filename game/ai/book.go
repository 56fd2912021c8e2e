package ai

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"
)

//go:generate go run ./internal/bookgen -out book7x6.txt -max-plies 16 -slow 250ms

// book7x6 is the opening book of the perfect level on the standard board
// (7 columns, 6 rows, connect 4), made by GenerateBook (go generate, see
// internal/bookgen) and documented in doc.go. One line per position:
// "moves column score seconds", moves written as columns from 1, column the
// book move counted from 1, score the weak result (1, 0, -1) for the player
// to move, seconds the time the solver took for it.
//
//go:embed book7x6.txt
var book7x6 []byte

// book maps positions on one board to the move the perfect level plays.
type book struct {
	g       *geometry
	entries map[uint64]bookEntry // by canonical key
}

type bookEntry struct {
	column int8 // in the orientation of the canonical key
	score  int8
}

var (
	bookOnce   sync.Once
	bookParsed *book
)

// embeddedBook returns the parsed 7x6 book (parsed once, shared).
func embeddedBook() *book {
	bookOnce.Do(func() {
		b, err := parseBook(bytes.NewReader(book7x6))
		if err != nil {
			panic("ai: the embedded opening book is corrupt: " + err.Error())
		}
		bookParsed = b
	})
	return bookParsed
}

func parseBook(r io.Reader) (*book, error) {
	g, _ := newGeometry(6, 7, 4)
	b := &book{g: g, entries: map[uint64]bookEntry{}}
	err := readPositions(r, g, "book", 3, func(line int, p position, f []string) error {
		col, err1 := strconv.Atoi(f[1])
		score, err2 := strconv.Atoi(f[2])
		if err1 != nil || err2 != nil || col < 1 || col > g.columns || !g.canPlay(&p, col-1) {
			return fmt.Errorf("book line %d: bad column or score in %q", line, strings.Join(f, " "))
		}
		b.put(&p, col-1, score)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return b, nil
}

// readPositions reads the lines of a file of 7x6 positions, the opening
// book's and the table of weak results' format: a move string (columns
// from 1, "-" for the empty board) and at least fields-1 more fields,
// separated by spaces; empty lines and lines starting with # are skipped.
// It calls fn with each line's number, the position its moves reach on g
// and its fields, and returns fn's first error, or one naming what (book,
// weak table) and the line of a move string that is not a game or a line
// with fewer fields.
func readPositions(r io.Reader, g *geometry, what string, fields int, fn func(line int, p position, f []string) error) error {
	sc := bufio.NewScanner(r)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || text[0] == '#' {
			continue
		}
		f := strings.Fields(text)
		if len(f) < fields {
			return fmt.Errorf("%s line %d: %q", what, line, text)
		}
		moves := f[0]
		if moves == "-" {
			moves = ""
		}
		p, err := g.replay(digits(moves))
		if err != nil {
			return fmt.Errorf("%s line %d: %w", what, line, err)
		}
		if err := fn(line, p, f); err != nil {
			return err
		}
	}
	return sc.Err()
}

func digits(s string) []int {
	m := make([]int, len(s))
	for i := range s {
		m[i] = int(s[i] - '1')
	}
	return m
}

func (b *book) put(p *position, column, score int) {
	key := p.key()
	if mk := p.mcur + p.mmask; mk < key {
		key, column = mk, b.g.columns-1-column
	}
	b.entries[key] = bookEntry{column: int8(column), score: int8(score)}
}

// lookup returns the book move (zero-based column) for p, if any.
func (b *book) lookup(p *position) (int, bool) {
	key, mirrored := p.key(), false
	if mk := p.mcur + p.mmask; mk < key {
		key, mirrored = mk, true
	}
	e, ok := b.entries[key]
	if !ok {
		return 0, false
	}
	if mirrored {
		return b.g.columns - 1 - int(e.column), true
	}
	return int(e.column), true
}

// bookMove returns the book's move for a 7x6 connect-4 position.
func (e *Engine) bookMove(rows, columns, connect int, moves []int) (int, bool) {
	if rows != 6 || columns != 7 || connect != 4 || e.book == nil {
		return 0, false
	}
	p, err := e.book.g.replay(moves)
	if err != nil {
		return 0, false
	}
	return e.book.lookup(&p)
}

// BookOptions configures GenerateBook.
type BookOptions struct {
	// MaxPlies is the most discs a book position may have.
	MaxPlies int
	// Slow is the solving time above which a position's successors are
	// added to the book too: a position the solver settles faster needs no
	// book, and neither (in practice) do those that follow it.
	Slow time.Duration
	// MinPlies: positions with fewer discs always have their successors
	// added, however fast they were solved.
	MinPlies int
	// TableMB is the solver's table size.
	TableMB int
	// Workers is the solver's workers (1 or 2). The book is meant to cover
	// what the live solver cannot do in time, so measure it as it runs: one
	// worker, the table emptied before each position (Cold).
	Workers int
	Cold    bool
	// Log, when set, receives one line per position solved.
	Log io.Writer
}

// GenerateBook writes the 7x6 opening book of the perfect level to out, one
// line per position (see book7x6), resuming from the lines of a previous
// run given in done (nil for none): positions already there are not solved
// again, so an interrupted run loses at most the position it was solving.
//
// The book holds the positions the perfect level meets when it follows its
// own book moves, as first or as second player, against every reply: from
// the empty board (the AI opens) and from each first move of the opponent,
// breadth first, each position is solved weakly (win, draw or loss) with
// the exact solver, its move recorded, and, when it took longer than
// opts.Slow (or has fewer than opts.MinPlies discs), every position after
// that move and any reply is queued, up to opts.MaxPlies discs.
func GenerateBook(ctx context.Context, out io.Writer, done io.Reader, opts BookOptions) error {
	s, err := NewSolver(6, 7, 4, SolverOptions{TableMB: opts.TableMB, Workers: max(opts.Workers, 1)})
	if err != nil {
		return err
	}
	g := s.g
	type known struct {
		column  int
		seconds float64
	}
	have := map[string]known{}
	if done != nil {
		sc := bufio.NewScanner(done)
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			if len(f) < 4 || f[0][0] == '#' {
				continue
			}
			col, _ := strconv.Atoi(f[1])
			sec, _ := strconv.ParseFloat(f[3], 64)
			have[f[0]] = known{col - 1, sec}
		}
	}
	seen := map[uint64]bool{}
	queue := [][]int{{}}
	for c := 0; c < g.columns; c++ {
		queue = append(queue, []int{c})
	}
	for len(queue) > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		moves := queue[0]
		queue = queue[1:]
		p, err := g.replay(moves)
		if err != nil {
			continue // a line already won: nothing to play
		}
		if seen[p.canonicalKey()] || len(moves) > opts.MaxPlies {
			continue
		}
		seen[p.canonicalKey()] = true
		name := movesString(moves)
		k, ok := have[name]
		if !ok {
			if opts.Cold {
				s.Reset()
			}
			start := time.Now()
			r, err := s.solve(ctx, p, true, nil)
			if err != nil {
				return err
			}
			k = known{r.Column, time.Since(start).Seconds()}
			if _, err := fmt.Fprintf(out, "%s %d %d %.3f\n", name, r.Column+1, r.Score, k.seconds); err != nil {
				return err
			}
			if opts.Log != nil {
				fmt.Fprintf(opts.Log, "%s %d %d %.3fs, %d queued\n", name, r.Column+1, r.Score, k.seconds, len(queue))
			}
		}
		if k.seconds < opts.Slow.Seconds() && len(moves) >= opts.MinPlies {
			continue
		}
		q := p
		if g.winsNow(&q, k.column) {
			continue
		}
		g.playColumn(&q, k.column)
		for r := 0; r < g.columns; r++ {
			if g.canPlay(&q, r) && !g.winsNow(&q, r) {
				next := append(append(append([]int(nil), moves...), k.column), r)
				queue = append(queue, next)
			}
		}
	}
	return nil
}

// movesString writes zero-based columns as digits from 1 ("-" for none).
func movesString(moves []int) string {
	if len(moves) == 0 {
		return "-"
	}
	var sb strings.Builder
	for _, c := range moves {
		sb.WriteByte(byte('1' + c))
	}
	return sb.String()
}

// entry returns the book's move (zero-based column, in p's orientation)
// and the weak result (1, 0, -1) of p for the player to move, if the book
// holds p.
func (b *book) entry(p *position) (column, score int, ok bool) {
	column, ok = b.lookup(p)
	if !ok {
		return 0, 0, false
	}
	return column, int(b.entries[p.canonicalKey()].score), true
}
