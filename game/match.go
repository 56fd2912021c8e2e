package game

import (
	"fmt"
	"strings"
)

// MaxSize is the largest number of rows or columns a board may have.
const MaxSize = 256

// OpenerPolicy decides who drops the first disc of each round.
type OpenerPolicy uint8

const (
	// Alternate gives the first disc of round 1 to Config.FirstOpener and
	// then alternates: the other player opens round 2, and so on.
	Alternate OpenerPolicy = iota
	// AlwaysFirst gives the first disc of every round to Config.FirstOpener.
	AlwaysFirst
)

// String returns "alternate" or "first", the names ParseOpenerPolicy reads.
func (p OpenerPolicy) String() string {
	switch p {
	case Alternate:
		return "alternate"
	case AlwaysFirst:
		return "first"
	default:
		return fmt.Sprintf("OpenerPolicy(%d)", uint8(p))
	}
}

// MarshalText encodes p as its String form, so stored configurations read
// "alternate" or "first". It returns an error wrapping ErrInvalidConfig for
// an unknown policy.
func (p OpenerPolicy) MarshalText() ([]byte, error) {
	if p != Alternate && p != AlwaysFirst {
		return nil, fmt.Errorf("opener policy %d: %w", uint8(p), ErrInvalidConfig)
	}
	return []byte(p.String()), nil
}

// UnmarshalText decodes what MarshalText writes, as ParseOpenerPolicy does.
func (p *OpenerPolicy) UnmarshalText(b []byte) error {
	v, err := ParseOpenerPolicy(string(b))
	if err != nil {
		return err
	}
	*p = v
	return nil
}

// ParseOpenerPolicy reads "alternate" or "first" (any case). Any other text
// returns an error wrapping ErrInvalidConfig.
func ParseOpenerPolicy(s string) (OpenerPolicy, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "alternate":
		return Alternate, nil
	case "first":
		return AlwaysFirst, nil
	}
	return 0, fmt.Errorf("opener policy %q (want alternate or first): %w", s, ErrInvalidConfig)
}

// Config is everything that defines a match besides its moves.
type Config struct {
	// Rows and Columns are the board size, each 1..MaxSize.
	Rows    int `json:"rows"`
	Columns int `json:"columns"`
	// Connect is N, the number of discs in a line that wins a round:
	// at least 1 and at most max(Rows, Columns).
	Connect int `json:"connect"`
	// Wins is the number of round wins that takes the match, at least 1.
	Wins int `json:"wins"`
	// Openers is the policy that picks who opens each round.
	Openers OpenerPolicy `json:"openers"`
	// FirstOpener opens round 1; NoPlayer means Player1.
	FirstOpener Player `json:"first_opener"`
}

// DefaultConfig returns the classic game: 6 rows, 7 columns, connect 4, one
// round win takes the match, alternate openers, Player1 opens.
func DefaultConfig() Config {
	return Config{Rows: 6, Columns: 7, Connect: 4, Wins: 1, Openers: Alternate, FirstOpener: Player1}
}

// Validate returns nil when c describes a playable match, and otherwise an
// error wrapping ErrInvalidConfig that names the first setting at fault.
func (c Config) Validate() error {
	switch {
	case c.Rows < 1 || c.Rows > MaxSize:
		return fmt.Errorf("rows %d: must be from 1 to %d: %w", c.Rows, MaxSize, ErrInvalidConfig)
	case c.Columns < 1 || c.Columns > MaxSize:
		return fmt.Errorf("columns %d: must be from 1 to %d: %w", c.Columns, MaxSize, ErrInvalidConfig)
	case c.Connect < 1:
		return fmt.Errorf("connect %d: must be at least 1: %w", c.Connect, ErrInvalidConfig)
	case c.Connect > c.Rows && c.Connect > c.Columns:
		return fmt.Errorf("connect %d: longer than both %d rows and %d columns, so nobody could ever win: %w", c.Connect, c.Rows, c.Columns, ErrInvalidConfig)
	case c.Wins < 1:
		return fmt.Errorf("wins %d: must be at least 1: %w", c.Wins, ErrInvalidConfig)
	case c.Openers != Alternate && c.Openers != AlwaysFirst:
		return fmt.Errorf("opener policy %d: %w", c.Openers, ErrInvalidConfig)
	case c.FirstOpener != NoPlayer && !c.FirstOpener.Valid():
		return fmt.Errorf("first opener %d: %w", c.FirstOpener, ErrInvalidConfig)
	}
	return nil
}

// OpenerOf returns who opens round number n (1-based) under c.
func (c Config) OpenerOf(n int) Player {
	first := c.FirstOpener
	if first == NoPlayer {
		first = Player1
	}
	if c.Openers == Alternate && n%2 == 0 {
		return first.Other()
	}
	return first
}

// Outcome is the state of a round.
type Outcome uint8

const (
	// InProgress means the round is still being played.
	InProgress Outcome = iota
	// Won means a player made a line of Connect discs.
	Won
	// Drawn means the board filled with no line.
	Drawn
	// Forfeited means a player gave up the round (or the whole match).
	Forfeited
)

// String returns "in progress", "won", "draw" or "forfeit".
func (o Outcome) String() string {
	switch o {
	case InProgress:
		return "in progress"
	case Won:
		return "won"
	case Drawn:
		return "draw"
	case Forfeited:
		return "forfeit"
	default:
		return fmt.Sprintf("Outcome(%d)", uint8(o))
	}
}

// Round is one game on one board within a match, seen read-only: Match
// changes it, callers read it through its methods, and every slice or board
// a method returns is a copy the caller may change freely.
type Round struct {
	number  int
	opener  Player
	board   *Board
	moves   []int
	outcome Outcome
	winner  Player
	line    []Cell
}

// Number returns the round's place in the match, from 1.
func (r *Round) Number() int { return r.number }

// Opener returns the player who dropped (or drops) the round's first disc.
func (r *Round) Opener() Player { return r.opener }

// Board returns a copy of the round's board: changing it changes nothing in
// the match. It costs O(rows x columns).
func (r *Round) Board() *Board { return r.board.Clone() }

// Rows returns the number of rows of the round's board, without the copy
// Board makes.
func (r *Round) Rows() int { return r.board.Rows() }

// Columns returns the number of columns of the round's board, without the
// copy Board makes.
func (r *Round) Columns() int { return r.board.Columns() }

// At returns the disc at (row, column) of the round's board, row 0 being the
// bottom row, or NoPlayer when the cell is empty or outside the board. It
// reads the board without copying it.
func (r *Round) At(row, column int) Player { return r.board.At(row, column) }

// CanDrop reports whether column (zero-based) is on the round's board and
// not full.
func (r *Round) CanDrop(column int) bool { return r.board.CanDrop(column) }

// LongestRun returns the length of p's longest unbroken line on the round's
// board, as Board.LongestRun.
func (r *Round) LongestRun(p Player) int { return r.board.LongestRun(p) }

// Moves returns a copy of the columns (zero-based) played in order; the
// opener played Moves()[0].
func (r *Round) Moves() []int { return append([]int(nil), r.moves...) }

// Plies returns the number of discs dropped in the round, len(Moves()).
func (r *Round) Plies() int { return len(r.moves) }

// Outcome says whether and how the round ended.
func (r *Round) Outcome() Outcome { return r.outcome }

// Winner returns the player who won (by a line or by the other's forfeit);
// NoPlayer while in progress and for a draw.
func (r *Round) Winner() Player { return r.winner }

// Line returns a copy of every cell of the winning line or lines, as
// Board.LinesThrough reports them; nil unless Outcome() is Won.
func (r *Round) Line() []Cell { return append([]Cell(nil), r.line...) }

// Over reports whether the round has ended.
func (r *Round) Over() bool { return r.outcome != InProgress }

// ToMove returns the player whose turn it is, NoPlayer once the round is over.
func (r *Round) ToMove() Player {
	if r.Over() {
		return NoPlayer
	}
	if len(r.moves)%2 == 0 {
		return r.opener
	}
	return r.opener.Other()
}

// LastMove returns the cell of the last disc dropped, and false when no disc
// has been dropped yet.
func (r *Round) LastMove() (Cell, bool) {
	if len(r.moves) == 0 {
		return Cell{}, false
	}
	column := r.moves[len(r.moves)-1]
	return Cell{Row: r.board.Height(column) - 1, Column: column}, true
}

// InLine reports whether c is part of the winning line.
func (r *Round) InLine(c Cell) bool {
	for _, l := range r.line {
		if l == c {
			return true
		}
	}
	return false
}

// Record counts a player's round results.
type Record struct {
	Wins, Losses, Draws int
}

// Add returns the sum of two records.
func (r Record) Add(o Record) Record {
	return Record{Wins: r.Wins + o.Wins, Losses: r.Losses + o.Losses, Draws: r.Draws + o.Draws}
}

// Match is a series of rounds between Player1 and Player2: the first to
// Config.Wins round wins takes it; draws are counted. A Match is fully
// described by its Config and its Actions: Replay rebuilds it exactly.
// A Match is not safe for concurrent use.
type Match struct {
	cfg       Config
	rounds    []*Round
	actions   []Action
	score     [3]int
	draws     int
	winner    Player
	forfeited bool
}

// NewMatch starts a match with its first round. It returns an error wrapping
// ErrInvalidConfig when cfg.Validate fails.
func NewMatch(cfg Config) (*Match, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.FirstOpener == NoPlayer {
		cfg.FirstOpener = Player1
	}
	m := &Match{cfg: cfg}
	m.startRound()
	return m, nil
}

func (m *Match) startRound() {
	n := len(m.rounds) + 1
	b, _ := NewBoard(m.cfg.Rows, m.cfg.Columns) // sizes already validated
	m.rounds = append(m.rounds, &Round{number: n, opener: m.cfg.OpenerOf(n), board: b})
}

// Clone returns an independent copy of m: playing on one changes nothing
// in the other. It costs O(rows x columns + rounds), without replaying any
// move, which is what makes it cheaper than Replay.
//
// What never changes is shared, not copied: the rounds before the current
// one (a round that is over never changes), and the actions, moves and
// winning line played so far, which are only ever appended to or replaced
// whole. The copy's slices of those are capped at their length: an append
// on the copy moves it to an array of its own, and one on the original
// writes past the end of what the copy reads.
func (m *Match) Clone() *Match {
	c := *m
	c.actions = m.actions[:len(m.actions):len(m.actions)]
	c.rounds = append([]*Round(nil), m.rounds...)
	r := m.Round()
	rc := *r
	rc.board = r.board.Clone()
	rc.moves = r.moves[:len(r.moves):len(r.moves)]
	rc.line = r.line[:len(r.line):len(r.line)]
	c.rounds[len(c.rounds)-1] = &rc
	return &c
}

// Config returns the match's configuration, with FirstOpener filled in.
func (m *Match) Config() Config { return m.cfg }

// Round returns the current round: the one in progress, or the last one once
// the match is over.
func (m *Match) Round() *Round { return m.rounds[len(m.rounds)-1] }

// Rounds returns every round so far, oldest first. The slice is a copy and
// the rounds are read-only views.
func (m *Match) Rounds() []*Round { return append([]*Round(nil), m.rounds...) }

// Previous returns the round before the current one, or nil during round 1.
// While the match goes on, that is the round that just ended.
func (m *Match) Previous() *Round {
	if len(m.rounds) < 2 {
		return nil
	}
	return m.rounds[len(m.rounds)-2]
}

// Score returns p's round wins.
func (m *Match) Score(p Player) int {
	if !p.Valid() {
		return 0
	}
	return m.score[p]
}

// Draws returns the number of drawn rounds.
func (m *Match) Draws() int { return m.draws }

// Record returns p's wins, losses and draws over the rounds of this match.
func (m *Match) Record(p Player) Record {
	if !p.Valid() {
		return Record{}
	}
	return Record{Wins: m.score[p], Losses: m.score[p.Other()], Draws: m.draws}
}

// Over reports whether the match has ended.
func (m *Match) Over() bool { return m.winner != NoPlayer }

// Winner returns the player who took the match, NoPlayer while it goes on.
func (m *Match) Winner() Player { return m.winner }

// Forfeited reports whether the match ended because a player forfeited it
// with Forfeit. A ForfeitRound that gives the other player the deciding
// round win ends the match on round wins, and Forfeited stays false.
func (m *Match) Forfeited() bool { return m.forfeited }

// ToMove returns the player whose turn it is, NoPlayer once the match is over.
func (m *Match) ToMove() Player {
	if m.Over() {
		return NoPlayer
	}
	return m.Round().ToMove()
}

// Actions returns a copy of every action applied so far, in order.
func (m *Match) Actions() []Action { return append([]Action(nil), m.actions...) }

// Action returns action i (from 0) of those applied so far, as Actions()[i]
// does without the copy; i must be less than Plies().
func (m *Match) Action(i int) Action { return m.actions[i] }

// Plies returns the number of actions applied so far. It grows by one with
// every successful Play, ForfeitRound or Forfeit, so it identifies a state of
// the match.
func (m *Match) Plies() int { return len(m.actions) }

// Play drops p's disc into column (zero-based) of the current round and
// returns that round. When the drop completes a line of Config.Connect discs
// the round is won; when it fills the board the round is drawn; either way
// the next round starts at once unless the match is over. It returns (with
// the match unchanged) an error wrapping ErrMatchOver, ErrInvalidPlayer,
// ErrNotYourTurn, ErrColumnOutOfRange or ErrColumnFull.
func (m *Match) Play(p Player, column int) (*Round, error) {
	if err := m.check(p); err != nil {
		return nil, err
	}
	r := m.Round()
	if p != r.ToMove() {
		return nil, fmt.Errorf("%v played but %v is to move: %w", p, r.ToMove(), ErrNotYourTurn)
	}
	row, err := r.board.Drop(column, p)
	if err != nil {
		return nil, err
	}
	r.moves = append(r.moves, column)
	m.actions = append(m.actions, Action{Kind: Drop, Player: p, Column: column})
	if line := r.board.LinesThrough(row, column, m.cfg.Connect); line != nil {
		r.line = line
		m.endRound(r, Won, p)
	} else if r.board.Full() {
		m.endRound(r, Drawn, NoPlayer)
	}
	return r, nil
}

// ForfeitRound gives up the current round: the other player wins it, and the
// next round starts unless that win takes the match. Either player may
// forfeit at any time during the round. It returns an error wrapping
// ErrMatchOver or ErrInvalidPlayer, with the match unchanged.
func (m *Match) ForfeitRound(p Player) error {
	if err := m.check(p); err != nil {
		return err
	}
	m.actions = append(m.actions, Action{Kind: ForfeitRound, Player: p})
	m.endRound(m.Round(), Forfeited, p.Other())
	return nil
}

// Forfeit gives up the whole match: the current round is forfeited to the
// other player, counted as a round win for them, and they take the match
// whatever the score; no new round starts. Either player may forfeit at any
// time. It returns an error wrapping ErrMatchOver or ErrInvalidPlayer, with
// the match unchanged.
func (m *Match) Forfeit(p Player) error {
	if err := m.check(p); err != nil {
		return err
	}
	m.actions = append(m.actions, Action{Kind: ForfeitMatch, Player: p})
	r := m.Round()
	r.outcome, r.winner = Forfeited, p.Other()
	m.score[p.Other()]++
	m.winner, m.forfeited = p.Other(), true
	return nil
}

func (m *Match) check(p Player) error {
	if m.Over() {
		return fmt.Errorf("%v won the match: %w", m.winner, ErrMatchOver)
	}
	if !p.Valid() {
		return fmt.Errorf("player %d: %w", uint8(p), ErrInvalidPlayer)
	}
	return nil
}

func (m *Match) endRound(r *Round, o Outcome, winner Player) {
	r.outcome, r.winner = o, winner
	if winner == NoPlayer {
		m.draws++
	} else {
		m.score[winner]++
		if m.score[winner] >= m.cfg.Wins {
			m.winner = winner
			return
		}
	}
	m.startRound()
}
