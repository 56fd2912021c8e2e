package puzzle

import (
	"crypto/sha256"
	"encoding/base32"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/rating"
)

// Sentinel errors returned (wrapped) by this package; check them with
// errors.Is.
var (
	// ErrInvalidPuzzle means a puzzle (or its line, see Parse) does not
	// describe a playable task: a bad board, moves that cannot be played,
	// an unknown task, a solution column off the board.
	ErrInvalidPuzzle = errors.New("invalid puzzle")
	// ErrNotPuzzle means a position fails the only-move test (see Test):
	// its first move is not the only one that keeps its result, or the
	// task is trivial or out of range.
	ErrNotPuzzle = errors.New("not a puzzle")
	// ErrIllegalMove means a move of an attempt cannot be played: a column
	// off the board or full.
	ErrIllegalMove = errors.New("illegal move")
	// ErrAttemptOver means a move came after the attempt had ended (the
	// task solved or failed), or out of turn.
	ErrAttemptOver = errors.New("attempt over")
)

// Kind is the task of a puzzle.
type Kind uint8

// The kinds of task. Every kind asks for the one move that keeps the
// position's exact result (see Test); they differ by that result.
const (
	// WinIn: the player to move wins by force, and exactly one move keeps
	// the win. N is the winner's discs from now on, the winning one
	// included, with the fastest win against the longest defence (as
	// /connectn analyze counts: "win in 5" is the mover's fifth disc from
	// now). The member plays the whole win: N moves.
	WinIn Kind = iota + 1
	// OnlyMove: the position is a draw with best play, and exactly one move
	// keeps the draw; every other move loses. The member plays that one
	// move. N is 0.
	OnlyMove
	// Defence: the position is lost with best play, and exactly one move
	// delays the loss longest; every other move lets the opponent win with
	// fewer discs. N is the opponent's discs from now on, their winning one
	// included, after that defence (as /connectn analyze counts a loss).
	// The member plays that one move.
	Defence
)

var kindNames = [...]string{WinIn: "win", OnlyMove: "only", Defence: "defence"}

// String returns "win", "only" or "defence", the names Parse reads.
func (k Kind) String() string {
	return enumName(kindNames[:], k, "Kind")
}

// enumName returns names[v], or "typ(v)" for a value without a name.
func enumName[T ~uint8](names []string, v T, typ string) string {
	if int(v) < len(names) && names[v] != "" {
		return names[v]
	}
	return fmt.Sprintf("%s(%d)", typ, uint8(v))
}

// Valid reports whether k is WinIn, OnlyMove or Defence.
func (k Kind) Valid() bool { return k >= WinIn && k <= Defence }

// The range of N for WinIn puzzles: a win in 1 is no puzzle, and beyond 12
// no member plays the line out.
const (
	MinWinIn = 2
	MaxWinIn = 12
)

// Theme is a tag of a puzzle, stable for storage and for the catalog's
// keys: "win-in-N" (N from MinWinIn to MaxWinIn), "only-move", "defence",
// and the board's size "board-RxC" (rows x columns, such as "board-6x7").
type Theme string

// The themes of the kinds without a number.
const (
	ThemeOnlyMove Theme = "only-move"
	ThemeDefence  Theme = "defence"
)

// WinInTheme returns the theme of a win in n: "win-in-n".
func WinInTheme(n int) Theme { return Theme("win-in-" + strconv.Itoa(n)) }

// BoardTheme returns the theme of a board of rows x columns: "board-RxC".
func BoardTheme(rows, columns int) Theme {
	return Theme(fmt.Sprintf("board-%dx%d", rows, columns))
}

// SourceKind says where a puzzle comes from.
type SourceKind uint8

// The sources of puzzles.
const (
	// Generated: the generator made it (Generator, connectn puzzles
	// generate) from random and self-play positions, with Source.Seed.
	Generated SourceKind = iota + 1
	// FromMatch: found in a finished match (FindInMatch), where the player
	// to move had a forced win and played a move that gave it away.
	FromMatch
)

// Source is the provenance of a puzzle.
type Source struct {
	Kind SourceKind `json:"kind"`
	// Seed is the generator's seed, for Generated.
	Seed uint64 `json:"seed,omitempty"`
	// Guild is the Discord server (a snowflake, "" for a match in DMs) and
	// Match the match's ID in the store, for FromMatch.
	Guild string `json:"guild,omitempty"`
	Match int64  `json:"match,omitempty"`
	// Players are the names of the match's players, game.Player1's first
	// ("Alice vs Bob"), for FromMatch.
	Players [2]string `json:"players,omitempty"`
	// Mover is the match player (game.Player1 or game.Player2) who was to
	// move in the puzzle's position and gave the win away, for FromMatch.
	Mover game.Player `json:"mover,omitempty"`
	// Round is the round's number in the match (from 1), and Move the
	// number in the round (from 1) of the disc the mover got wrong: the
	// puzzle's position is the round after Move-1 discs ("from Alice vs
	// Bob, round 2, move 17"), for FromMatch.
	Round int `json:"round,omitempty"`
	Move  int `json:"move,omitempty"`
}

// Puzzle is a position with a task whose answer the exact solver proved:
// its first move is the only one that keeps the position's result (see
// Test). A Puzzle is a plain value; its fields are its whole description,
// and Format writes it as one line that Parse reads back.
type Puzzle struct {
	// ID is stable and short (10 characters of [a-z2-7]): derived from the
	// board (rows, columns, connect) and the position's discs (see
	// MakeID), so two move orders that reach one position give one ID.
	ID string `json:"id"`
	// Config is the board: Rows, Columns and Connect, with Wins 1, Openers
	// AlwaysFirst and FirstOpener Player1 (Normalize).
	Config game.Config `json:"config"`
	// Moves is the position, in the game's moves notation (game.MovesCode):
	// the columns played from the empty board, first player first, from 1
	// (1 to 9, then a to w). The first disc is always game.Player1's, so
	// the player to move is Player1 after an even number of discs (see
	// ToMove), whoever opened the round the position came from.
	Moves string `json:"moves"`
	// Kind is the task and N its number (see Kind): the winner's discs for
	// WinIn, the opponent's for Defence, 0 for OnlyMove.
	Kind Kind `json:"kind"`
	N    int  `json:"n"`
	// Solution is the solution's first move (a zero-based column): the
	// only move that keeps the position's result.
	Solution int `json:"solution"`
	// Rating is the puzzle's rating when it was made (InitialRating); the
	// store keeps the rating attempts move (Rate).
	Rating rating.Rating `json:"rating"`
	// Source is the puzzle's provenance.
	Source Source `json:"source"`
}

// Normalize returns cfg as a puzzle's board: its Rows, Columns and Connect
// with Wins 1, Openers game.AlwaysFirst and FirstOpener game.Player1.
func Normalize(cfg game.Config) game.Config {
	return game.Config{Rows: cfg.Rows, Columns: cfg.Columns, Connect: cfg.Connect, Wins: 1,
		Openers: game.AlwaysFirst, FirstOpener: game.Player1}
}

// MoveList returns the position's moves as zero-based columns, or an error
// wrapping ErrInvalidPuzzle for a character that names no column of the
// board.
func (p Puzzle) MoveList() ([]int, error) { return parseMoves(p.Moves, p.Config.Columns) }

func parseMoves(s string, columns int) ([]int, error) {
	moves := make([]int, 0, len(s))
	for i, ch := range s {
		c, ok := game.ParseColumnCode(ch)
		if !ok || c >= columns {
			return nil, fmt.Errorf("move %d: %q is not a column of a board of %d columns: %w", i+1, ch, columns, ErrInvalidPuzzle)
		}
		moves = append(moves, c)
	}
	return moves, nil
}

// ToMove returns the player to move in the position: game.Player1 after an
// even number of discs, game.Player2 after an odd one.
func (p Puzzle) ToMove() game.Player {
	if len(p.Moves)%2 == 0 {
		return game.Player1
	}
	return game.Player2
}

// Length is how many moves the member plays to solve the puzzle: N for
// WinIn (the last one completes the line), 1 for OnlyMove and Defence.
func (p Puzzle) Length() int {
	if p.Kind == WinIn {
		return p.N
	}
	return 1
}

// Themes returns the puzzle's themes: its task's ("win-in-N", "only-move"
// or "defence"), then its board's ("board-6x7").
func (p Puzzle) Themes() []Theme {
	var task Theme
	switch p.Kind {
	case WinIn:
		task = WinInTheme(p.N)
	case OnlyMove:
		task = ThemeOnlyMove
	case Defence:
		task = ThemeDefence
	}
	return []Theme{task, BoardTheme(p.Config.Rows, p.Config.Columns)}
}

// Area is a third of the board's columns, for a hint.
type Area uint8

// The areas of a board, from the left.
const (
	Left Area = iota + 1
	Centre
	Right
)

var areaNames = [...]string{Left: "left", Centre: "centre", Right: "right"}

// String returns "left", "centre" or "right".
func (a Area) String() string {
	return enumName(areaNames[:], a, "Area")
}

// Hint is the area of the solution's column, as data for the catalog to
// word ("left", or "one of columns 3 to 5").
type Hint struct {
	Area Area
	// First and Last are the area's zero-based columns, inclusive.
	First, Last int
}

// Hint returns the area of the solution's column: the board's columns cut
// in three, the side thirds columns/3 wide each (rounded down) and the
// centre the rest; on 7 columns, left is 1-2, centre 3-5 and right 6-7
// (counted from 1). A board of fewer than 3 columns is all centre.
func (p Puzzle) Hint() Hint { return HintFor(p.Config.Columns, p.Solution) }

// HintFor returns the area of zero-based column c on a board of columns
// columns, as Puzzle.Hint.
func HintFor(columns, c int) Hint {
	side := columns / 3
	switch {
	case c < side:
		return Hint{Area: Left, First: 0, Last: side - 1}
	case c >= columns-side:
		return Hint{Area: Right, First: columns - side, Last: columns - 1}
	}
	return Hint{Area: Centre, First: side, Last: columns - side - 1}
}

// idEncoding writes IDs: lower-case base 32 without padding.
var idEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// MakeID returns the ID of the position moves (zero-based columns, first
// player first, assumed legal) reach on a board of cfg: the first 50 bits
// of the SHA-256 of the board's size, connect and discs, column by column
// from the bottom, in 10 characters of [a-z2-7]. Positions that differ
// only by the order of their moves share an ID; mirror images do not.
func MakeID(cfg game.Config, moves []int) string {
	cols := make([][]byte, cfg.Columns)
	for i, c := range moves {
		if c >= 0 && c < cfg.Columns {
			cols[c] = append(cols[c], byte('1'+i%2))
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%dx%dc%d", cfg.Rows, cfg.Columns, cfg.Connect)
	for _, col := range cols {
		b.WriteByte('/')
		b.Write(col)
	}
	sum := sha256.Sum256([]byte(b.String()))
	return idEncoding.EncodeToString(sum[:7])[:10]
}

// InitialRating returns the rating a new puzzle of kind k and number n
// starts with, before any attempt: a guess at its difficulty that attempts
// then correct (Rate). A win in 2 starts at 1100 and each disc more adds
// 80 (a win in 12 starts at 1900); an only move starts at 1500 and a
// defence at 1600. RD is rating.DefaultRD (350) and σ rating.DefaultSigma,
// so the first attempts move the rating a lot.
func InitialRating(k Kind, n int) rating.Rating {
	r := rating.New()
	switch k {
	case WinIn:
		r.R = 1100 + 80*float64(n-MinWinIn)
	case OnlyMove:
		r.R = 1500
	case Defence:
		r.R = 1600
	}
	return r
}

// Format returns p as one line (no newline), the form of the starter set's
// files, which Parse reads back: space-separated fields
//
//	6x7c4 4453326 win5 3 gen:1
//
// the board (rows x columns, connect), the moves ("-" for the empty board),
// the task ("win" and N, "only", or "defence" and N), the solution's column
// in the moves notation (from 1), and the source: "gen:SEED", or "match"
// followed by the guild ("-" for none), the match's ID, the round, the move,
// the mover (1 or 2) and the two players' names quoted as Go strings
// (strconv.Quote). The ID is not written (MakeID derives it), nor the
// rating (Parse sets InitialRating).
func (p Puzzle) Format() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%dx%dc%d ", p.Config.Rows, p.Config.Columns, p.Config.Connect)
	if p.Moves == "" {
		b.WriteByte('-')
	} else {
		b.WriteString(p.Moves)
	}
	b.WriteByte(' ')
	b.WriteString(p.Kind.String())
	if p.Kind != OnlyMove {
		b.WriteString(strconv.Itoa(p.N))
	}
	b.WriteByte(' ')
	if p.Solution >= 0 && p.Solution < game.MaxNotationColumns {
		b.WriteByte(game.ColumnCode(p.Solution))
	} else {
		b.WriteByte('?')
	}
	b.WriteByte(' ')
	switch p.Source.Kind {
	case Generated:
		fmt.Fprintf(&b, "gen:%d", p.Source.Seed)
	case FromMatch:
		s := p.Source
		guild := s.Guild
		if guild == "" {
			guild = "-"
		}
		fmt.Fprintf(&b, "match %s %d %d %d %d %s %s", guild, s.Match, s.Round, s.Move, s.Mover,
			strconv.Quote(s.Players[0]), strconv.Quote(s.Players[1]))
	default:
		b.WriteString("unknown")
	}
	return b.String()
}

// Parse reads a line that Format wrote and returns the puzzle, with its ID
// (MakeID) and InitialRating. It checks that the line describes a playable
// task: a valid board the solver holds, moves that can be played from the
// empty board and leave the round in progress, a known task with N in range
// (MinWinIn to MaxWinIn for a win, at least 1 for a defence), a solution
// column that is not full, and a known source. It does not re-solve the
// position (Test does). Any other line returns an error wrapping
// ErrInvalidPuzzle.
func Parse(line string) (Puzzle, error) {
	bad := func(format string, a ...any) (Puzzle, error) {
		return Puzzle{}, fmt.Errorf("puzzle %q: "+format+": %w", append(append([]any{line}, a...), ErrInvalidPuzzle)...)
	}
	fields := strings.SplitN(line, " ", 5)
	if len(fields) < 5 {
		return bad("want 5 fields or more, found %d", len(fields))
	}
	var p Puzzle
	var rows, columns, connect int
	if n, err := fmt.Sscanf(fields[0], "%dx%dc%d", &rows, &columns, &connect); err != nil || n != 3 ||
		fields[0] != fmt.Sprintf("%dx%dc%d", rows, columns, connect) {
		return bad("board %q is not ROWSxCOLUMNScCONNECT", fields[0])
	}
	p.Config = Normalize(game.Config{Rows: rows, Columns: columns, Connect: connect})
	if fields[1] != "-" {
		p.Moves = fields[1]
	}
	task := fields[2]
	switch {
	case task == "only":
		p.Kind = OnlyMove
	case strings.HasPrefix(task, "win"):
		p.Kind = WinIn
		task = task[len("win"):]
	case strings.HasPrefix(task, "defence"):
		p.Kind = Defence
		task = task[len("defence"):]
	default:
		return bad("unknown task %q", fields[2])
	}
	if p.Kind != OnlyMove {
		n, err := strconv.Atoi(task)
		if err != nil || strconv.Itoa(n) != task {
			return bad("task %q has no number", fields[2])
		}
		p.N = n
	}
	if len(fields[3]) != 1 {
		return bad("solution %q is not one column", fields[3])
	}
	sol, ok := game.ParseColumnCode(rune(fields[3][0]))
	if !ok {
		return bad("solution %q is not a column", fields[3])
	}
	p.Solution = sol
	src, err := parseSource(fields[4])
	if err != nil {
		return bad("%v", err)
	}
	p.Source = src
	if err := p.Validate(); err != nil {
		return Puzzle{}, fmt.Errorf("puzzle %q: %w", line, err)
	}
	moves, _ := p.MoveList()
	p.ID = MakeID(p.Config, moves)
	p.Rating = InitialRating(p.Kind, p.N)
	return p, nil
}

func parseSource(s string) (Source, error) {
	if seed, ok := strings.CutPrefix(s, "gen:"); ok {
		n, err := strconv.ParseUint(seed, 10, 64)
		if err != nil {
			return Source{}, fmt.Errorf("source %q: bad seed", s)
		}
		return Source{Kind: Generated, Seed: n}, nil
	}
	rest, ok := strings.CutPrefix(s, "match ")
	if !ok {
		return Source{}, fmt.Errorf("unknown source %q", s)
	}
	f := strings.SplitN(rest, " ", 6)
	if len(f) != 6 {
		return Source{}, fmt.Errorf("source %q: want guild, match, round, move, mover and names", s)
	}
	src := Source{Kind: FromMatch, Guild: f[0]}
	if src.Guild == "-" {
		src.Guild = ""
	}
	var err error
	var mover int
	for _, x := range []struct {
		s string
		v any
	}{{f[1], &src.Match}, {f[2], &src.Round}, {f[3], &src.Move}, {f[4], &mover}} {
		if _, e := fmt.Sscan(x.s, x.v); e != nil {
			err = e
		}
	}
	if err != nil || src.Round < 1 || src.Move < 1 || (mover != 1 && mover != 2) {
		return Source{}, fmt.Errorf("source %q: bad numbers", s)
	}
	src.Mover = game.Player(mover)
	names := f[5]
	for i := range src.Players {
		q, err := strconv.QuotedPrefix(names)
		if err != nil {
			return Source{}, fmt.Errorf("source %q: bad name", s)
		}
		src.Players[i], _ = strconv.Unquote(q)
		names = strings.TrimPrefix(names[len(q):], " ")
	}
	if names != "" {
		return Source{}, fmt.Errorf("source %q: text after the names", s)
	}
	return src, nil
}

// Validate checks what Parse checks (see Parse) on p's fields, not its ID
// or rating, and returns an error wrapping ErrInvalidPuzzle naming the
// first fault.
func (p Puzzle) Validate() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf(format+": %w", append(a, ErrInvalidPuzzle)...)
	}
	cfg := p.Config
	if err := cfg.Validate(); err != nil {
		return bad("board: %v", err)
	}
	if (cfg.Rows+1)*cfg.Columns > 64 {
		return bad("board %dx%d is too large for the solver", cfg.Rows, cfg.Columns)
	}
	moves, err := p.MoveList()
	if err != nil {
		return err
	}
	b, over, err := replay(cfg, moves)
	if err != nil {
		return bad("%v", err)
	}
	if over {
		return bad("the round is over after the moves")
	}
	switch {
	case !p.Kind.Valid():
		return bad("unknown kind %d", p.Kind)
	case p.Kind == WinIn && (p.N < MinWinIn || p.N > MaxWinIn):
		return bad("win in %d is out of %d to %d", p.N, MinWinIn, MaxWinIn)
	case p.Kind == Defence && p.N < 1:
		return bad("defence against a loss in %d", p.N)
	case p.Kind == OnlyMove && p.N != 0:
		return bad("only move with N %d", p.N)
	case !b.CanDrop(p.Solution):
		return bad("solution column %d cannot be played", p.Solution+1)
	case p.Source.Kind != Generated && p.Source.Kind != FromMatch:
		return bad("unknown source")
	}
	return nil
}

// replay plays moves on an empty board of cfg, first player first, and
// reports whether the round is over after them (a line or a full board).
// It returns an error for a move off the board or in a full column, or one
// after the round was over.
func replay(cfg game.Config, moves []int) (*game.Board, bool, error) {
	b, err := game.NewBoard(cfg.Rows, cfg.Columns)
	if err != nil {
		return nil, false, err
	}
	player, won := game.Player1, false
	for i, c := range moves {
		if won {
			return nil, false, fmt.Errorf("move %d comes after a line was made", i+1)
		}
		row, err := b.Drop(c, player)
		if err != nil {
			return nil, false, fmt.Errorf("move %d: %w", i+1, err)
		}
		won = len(b.LinesThrough(row, c, cfg.Connect)) > 0
		player = player.Other()
	}
	return b, won || b.Full(), nil
}
