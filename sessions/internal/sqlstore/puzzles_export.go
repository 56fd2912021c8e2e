package sqlstore

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// The puzzles' tables in export and import: a line per row, its key the
// table's (found_puzzle, puzzle_scan, puzzle_rating, puzzle_player,
// puzzle_attempt, puzzle_daily, puzzle_day, puzzle_daily_post), its value
// the row's columns by name, as stored:
//
//	{"puzzle_attempt":{"id":3,"revision":2,"user_id":"...","puzzle_id":"k2m7x4q9ab","line":"6x7c4 ... win5 3 gen:1",...}}
//
// Their columns are all text, integers or reals, so one description of
// each table (puzzleTables) writes and reads them.

// puzzleRow is a row of a puzzles' table as exported: its columns by
// name.
type puzzleRow map[string]json.RawMessage

// columnKind is how a column is stored.
type columnKind uint8

const (
	textColumn columnKind = iota
	intColumn
	realColumn
)

// puzzleTable describes one of the puzzles' tables for export and import.
type puzzleTable struct {
	name    string // the table
	columns []string
	kinds   map[string]columnKind // the columns that are not text
	// guild is the condition of a server's export, with one ? for the
	// server; "" leaves the table out of a server's export (rows that
	// belong to no server: the puzzles' ratings, the puzzle of each day).
	guild string
	order string
	field func(*exportLine) *puzzleRow
	count func(*Counts) *int
}

// puzzleTables are the puzzles' tables, in the order export writes them.
var puzzleTables = []puzzleTable{
	{name: "found_puzzles", columns: strings.Fields("guild_id puzzle_id line match_id player1_id player2_id found_at"),
		kinds: map[string]columnKind{"match_id": intColumn}, guild: "guild_id = ?", order: "guild_id, puzzle_id",
		field: func(l *exportLine) *puzzleRow { return &l.FoundPuzzle }, count: func(c *Counts) *int { return &c.FoundPuzzles }},
	{name: "puzzle_scans", columns: strings.Fields("match_id guild_id channel_id due_at tries done found"),
		kinds: map[string]columnKind{"match_id": intColumn, "tries": intColumn, "done": intColumn, "found": intColumn},
		guild: "guild_id = ?", order: "match_id",
		field: func(l *exportLine) *puzzleRow { return &l.PuzzleScan }, count: func(c *Counts) *int { return &c.PuzzleScans }},
	{name: "puzzle_ratings", columns: strings.Fields("puzzle_id r rd sigma attempts solved"),
		kinds: map[string]columnKind{"r": realColumn, "rd": realColumn, "sigma": realColumn, "attempts": intColumn, "solved": intColumn},
		order: "puzzle_id",
		field: func(l *exportLine) *puzzleRow { return &l.PuzzleRating }, count: func(c *Counts) *int { return &c.PuzzleRatings }},
	{name: "puzzle_players", columns: strings.Fields("user_id r rd sigma rated solved streak best_streak best last_rated"),
		kinds: map[string]columnKind{"r": realColumn, "rd": realColumn, "sigma": realColumn, "rated": intColumn, "solved": intColumn,
			"streak": intColumn, "best_streak": intColumn, "best": realColumn},
		// A server's export holds the records of the members who played
		// a puzzle there (their one record, over every server).
		guild: "user_id IN (SELECT user_id FROM puzzle_attempts WHERE guild_id = ?)", order: "user_id",
		field: func(l *exportLine) *puzzleRow { return &l.PuzzlePlayer }, count: func(c *Counts) *int { return &c.PuzzlePlayers }},
	{name: "puzzle_attempts", columns: strings.Fields(`id revision user_id guild_id puzzle_id line puzzle_r puzzle_rd puzzle_sigma
		daily moves hinted result first change started_at finished_at`),
		kinds: map[string]columnKind{"id": intColumn, "revision": intColumn, "puzzle_r": realColumn, "puzzle_rd": realColumn,
			"puzzle_sigma": realColumn, "hinted": intColumn, "first": intColumn},
		guild: "guild_id = ?", order: "id",
		field: func(l *exportLine) *puzzleRow { return &l.PuzzleAttempt }, count: func(c *Counts) *int { return &c.PuzzleAttempts }},
	{name: "puzzle_daily", columns: strings.Fields("guild_id channel_id minute zone locale next_at last_error last_error_at revision updated_at"),
		kinds: map[string]columnKind{"minute": intColumn, "revision": intColumn}, guild: "guild_id = ?", order: "guild_id",
		field: func(l *exportLine) *puzzleRow { return &l.DailyPuzzle }, count: func(c *Counts) *int { return &c.DailyPuzzles }},
	{name: "puzzle_days", columns: strings.Fields("day puzzle_id line"), order: "day",
		field: func(l *exportLine) *puzzleRow { return &l.PuzzleDay }, count: func(c *Counts) *int { return &c.PuzzleDays }},
	{name: "puzzle_daily_posts", columns: strings.Fields(`guild_id day channel_id puzzle_id line state message_id lease_until
		solvers shown edit_due error revision created_at updated_at`),
		kinds: map[string]columnKind{"solvers": intColumn, "shown": intColumn, "revision": intColumn}, guild: "guild_id = ?", order: "guild_id, day",
		field: func(l *exportLine) *puzzleRow { return &l.DailyPost }, count: func(c *Counts) *int { return &c.DailyPosts }},
	// Not a puzzles' table, but one of text and integers alike: the
	// shared result cards (cards.go).
	{name: "shared_cards", columns: strings.Fields("match_id guild_id channel_id user_id message_id shared_at"),
		kinds: map[string]columnKind{"match_id": intColumn}, guild: "guild_id = ?", order: "match_id",
		field: func(l *exportLine) *puzzleRow { return &l.SharedCard }, count: func(c *Counts) *int { return &c.SharedCards }},
}

// exportPuzzles writes the rows of the puzzles' tables in tx to enc, those
// of server guildID only when it is not "", counting them in n.
func (s *Store) exportPuzzles(ctx context.Context, tx *sql.Tx, enc *json.Encoder, guildID string, n *Counts) error {
	for _, t := range puzzleTables {
		query := `SELECT ` + strings.Join(t.columns, ", ") + ` FROM ` + t.name
		var args []any
		if guildID != "" {
			if t.guild == "" {
				continue
			}
			query += ` WHERE ` + t.guild
			args = append(args, guildID)
		}
		if err := s.exportTable(ctx, tx, enc, t, query+` ORDER BY `+t.order, args, t.count(n)); err != nil {
			return err
		}
	}
	return nil
}

// exportTable writes the rows query reads of t as its lines.
func (s *Store) exportTable(ctx context.Context, tx *sql.Tx, enc *json.Encoder, t puzzleTable, query string, args []any, count *int) error {
	rows, err := tx.QueryContext(ctx, s.d.Rebind(query), args...)
	if err != nil {
		return s.failed(err)
	}
	defer rows.Close()
	vals := make([]any, len(t.columns))
	for k, c := range t.columns {
		switch t.kinds[c] {
		case intColumn:
			vals[k] = new(int64)
		case realColumn:
			vals[k] = new(float64)
		default:
			vals[k] = new(string)
		}
	}
	for rows.Next() {
		if err := rows.Scan(vals...); err != nil {
			return s.failed(fmt.Errorf("%s: %w", t.name, err))
		}
		row := puzzleRow{}
		for k, c := range t.columns {
			b, err := json.Marshal(vals[k])
			if err != nil {
				return err
			}
			row[c] = b
		}
		var line exportLine
		*t.field(&line) = row
		if err := enc.Encode(line); err != nil {
			return err
		}
		*count++
	}
	if err := rows.Err(); err != nil {
		return s.failed(err)
	}
	return nil
}

// puzzleLine returns the table of a line that holds a row of one of the
// puzzles' tables, and the row; ok is false for any other line.
func puzzleLine(line *exportLine) (t puzzleTable, row puzzleRow, ok bool) {
	for _, t := range puzzleTables {
		if r := *t.field(line); r != nil {
			return t, r, true
		}
	}
	return puzzleTable{}, nil, false
}

// importPuzzleRow inserts row into t in tx: every column of t given, of
// its kind (an unknown or missing column, or a value of the wrong kind, is
// refused).
func (s *Store) importPuzzleRow(ctx context.Context, tx *sql.Tx, t puzzleTable, row puzzleRow) error {
	if len(row) != len(t.columns) {
		return fmt.Errorf("%s: %d columns, want %d (%s)", t.name, len(row), len(t.columns), strings.Join(t.columns, ", "))
	}
	args := make([]any, len(t.columns))
	for k, c := range t.columns {
		raw, ok := row[c]
		if !ok {
			return fmt.Errorf("%s: no column %s", t.name, c)
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			return fmt.Errorf("%s.%s: %w", t.name, c, err)
		}
		var err error
		switch kind := t.kinds[c]; {
		case kind == intColumn:
			num, isNum := v.(json.Number)
			if !isNum {
				return fmt.Errorf("%s.%s: %s is not an integer", t.name, c, raw)
			}
			args[k], err = strconv.ParseInt(string(num), 10, 64)
		case kind == realColumn:
			num, isNum := v.(json.Number)
			if !isNum {
				return fmt.Errorf("%s.%s: %s is not a number", t.name, c, raw)
			}
			args[k], err = num.Float64()
		default:
			text, isText := v.(string)
			if !isText {
				return fmt.Errorf("%s.%s: %s is not text", t.name, c, raw)
			}
			args[k] = text
		}
		if err != nil {
			return fmt.Errorf("%s.%s: %w", t.name, c, err)
		}
	}
	marks := strings.TrimSuffix(strings.Repeat("?, ", len(args)), ", ")
	if _, err := tx.ExecContext(ctx, s.d.Rebind(`INSERT INTO `+t.name+` (`+strings.Join(t.columns, ", ")+`) VALUES (`+marks+`)`), args...); err != nil {
		return fmt.Errorf("%s: %w", t.name, err)
	}
	return nil
}

// puzzleRowsPresent counts the rows of the puzzles' tables in tx, for
// Import's check that the database is empty.
func puzzleRowsPresent(ctx context.Context, tx *sql.Tx) (int, error) {
	total := 0
	for _, t := range puzzleTables {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM `+t.name).Scan(&n); err != nil {
			return 0, err
		}
		total += n
	}
	return total, nil
}

// errPuzzleRowsPresent refuses an import into a database that holds
// puzzles' rows.
var errPuzzleRowsPresent = errors.New("the database already holds puzzles, attempts, daily puzzles or shared cards: import into an empty database")
