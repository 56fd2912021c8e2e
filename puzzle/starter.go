package puzzle

import (
	"bufio"
	"embed"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"
	"sync"
)

// The starter set, made once by the generator (docs/puzzles.md has the
// figures of the run). "go generate ./puzzle" makes it afresh: every file
// is rewritten from its seed, and the same seed gives the same puzzles.
//
//go:generate go run ../cmd/connectn puzzles generate -rows 6 -columns 7 -connect 4 -n 2000 -seed 1 -out starter/6x7c4.txt
//go:generate go run ../cmd/connectn puzzles generate -rows 6 -columns 6 -connect 4 -n 500 -seed 1 -out starter/6x6c4.txt
//go:generate go run ../cmd/connectn puzzles generate -rows 7 -columns 7 -connect 4 -n 500 -seed 1 -out starter/7x7c4.txt
//go:generate go run ../cmd/connectn puzzles generate -rows 8 -columns 7 -connect 4 -n 500 -seed 1 -out starter/8x7c4.txt

//go:embed starter/*.txt
var starterFiles embed.FS

var (
	starterOnce sync.Once
	starterSet  []Puzzle
)

// Starter returns the starter set that ships with the bot, embedded: 2,000
// puzzles on the standard board (6 rows x 7 columns, connect 4) and 500 on
// each of 6 x 6, 7 x 7 and 8 x 7 (rows x columns), their tasks spread over
// a win in 2 to 12, only move and defence; each file's first line is the
// command that made it. The puzzles are read once; the caller gets its own
// copy of the slice, ordered by board (rows, then columns) and then as the
// generator made them. It panics if an embedded file does not parse,
// which a test rules out.
func Starter() []Puzzle {
	starterOnce.Do(func() {
		names, err := fs.Glob(starterFiles, "starter/*.txt")
		if err != nil {
			panic("puzzle: " + err.Error())
		}
		for _, name := range names {
			f, err := starterFiles.Open(name)
			if err != nil {
				panic("puzzle: " + err.Error())
			}
			ps, err := Read(f)
			f.Close()
			if err != nil {
				panic("puzzle: the embedded " + name + " is corrupt: " + err.Error())
			}
			starterSet = append(starterSet, ps...)
		}
		slices.SortStableFunc(starterSet, func(a, b Puzzle) int {
			if a.Config.Rows != b.Config.Rows {
				return a.Config.Rows - b.Config.Rows
			}
			return a.Config.Columns - b.Config.Columns
		})
	})
	return slices.Clone(starterSet)
}

// Read reads puzzles written one a line by Format (the starter set's
// files, and what connectn puzzles generate writes), skipping empty lines
// and comment lines that start with "#". It returns the first bad line's
// error (wrapping ErrInvalidPuzzle) with its line number, and no puzzle.
func Read(r io.Reader) ([]Puzzle, error) {
	var out []Puzzle
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimRight(sc.Text(), "\r")
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		p, err := Parse(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		out = append(out, p)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read puzzles: %w", err)
	}
	return out, nil
}
