package tournament

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/rating"
)

// Limits of a tournament.
const (
	// MaxPlayers is the largest number of entries a tournament may have.
	MaxPlayers = 512
	// MaxNameLength is the longest name, in characters (Discord's limit for
	// a string option).
	MaxNameLength = 100
	// MaxIDLength is the longest player ID, in bytes (a Discord snowflake
	// has at most 20 digits).
	MaxIDLength = 64
	// MaxRounds is the most rounds a Swiss may be given.
	MaxRounds = 100
	// MinArenaDuration and MaxArenaDuration bound an arena's length.
	MinArenaDuration = time.Minute
	MaxArenaDuration = 24 * time.Hour
)

// Format is the kind of tournament. Its values are the names the store and
// the commands use.
type Format string

// The formats.
const (
	// Swiss pairs players of equal score for a set number of rounds, never
	// twice the same two (see NextRound).
	Swiss Format = "swiss"
	// RoundRobin pairs every player with every other, once (or twice with
	// the openers swapped when Config.Double), by Berger tables.
	RoundRobin Format = "round-robin"
	// Arena is a timed event: a player who finishes a game is paired again
	// at once with a waiting player of close score (see ArenaPair).
	Arena Format = "arena"
)

// Valid reports whether f is one of the formats above.
func (f Format) Valid() bool { return f == Swiss || f == RoundRobin || f == Arena }

// Config is what defines a tournament besides its players and rounds: the
// fields a store keeps in columns. The board rules are those of every game:
// one tournament game is one Connect N match of Wins round wins on a Rows ×
// Columns board with Connect in a row, the openers alternating round by
// round, the player paired as opener opening round 1 (see Game).
type Config struct {
	// Name is shown to players: 1 to MaxNameLength characters.
	Name string `json:"name"`
	// Format is Swiss, RoundRobin or Arena.
	Format Format `json:"format"`
	// Rounds is a Swiss's number of rounds, 1 to MaxRounds; 0 means
	// DefaultRounds of the number of entries (TotalRounds). It must be 0
	// for the other formats (a round robin's follows from its players).
	Rounds int `json:"rounds,omitempty"`
	// Double makes a round robin double: each pair meets twice, the
	// openers swapped. Round robin only.
	Double bool `json:"double,omitempty"`
	// Duration is an arena's length, MinArenaDuration to MaxArenaDuration,
	// from State.Started. Arena only; 0 for the other formats.
	Duration time.Duration `json:"duration,omitempty"`
	// Rated says whether the games update the players' ratings; the
	// package only carries it.
	Rated bool `json:"rated,omitempty"`
	// PlayerLimit is the most players who may join, 2 to MaxPlayers; 0
	// means MaxPlayers.
	PlayerLimit int `json:"player_limit,omitempty"`
	// Rows, Columns, Connect and Wins are the board rules of every game
	// (game.Config's fields of the same names); 0 means the standard
	// game's value (6, 7, 4 and 1).
	Rows    int `json:"rows,omitempty"`
	Columns int `json:"columns,omitempty"`
	Connect int `json:"connect,omitempty"`
	Wins    int `json:"wins,omitempty"`
}

// Game returns the match configuration of every game of the tournament:
// the board rules with game.DefaultConfig's values where c leaves them 0,
// alternate openers, and game.Player1 (the pairing's Opener) opening round 1.
func (c Config) Game() game.Config {
	g := game.DefaultConfig()
	for _, f := range []struct {
		dst *int
		v   int
	}{{&g.Rows, c.Rows}, {&g.Columns, c.Columns}, {&g.Connect, c.Connect}, {&g.Wins, c.Wins}} {
		if f.v != 0 {
			*f.dst = f.v
		}
	}
	g.Openers, g.FirstOpener = game.Alternate, game.Player1
	return g
}

// Limit returns the player limit: PlayerLimit, or MaxPlayers when it is 0.
func (c Config) Limit() int {
	if c.PlayerLimit == 0 {
		return MaxPlayers
	}
	return c.PlayerLimit
}

// Validate returns nil when c describes a tournament the package can run,
// and otherwise an error wrapping ErrInvalidConfig that names the first
// setting at fault (for board rules, wrapping game.ErrInvalidConfig too).
func (c Config) Validate() error {
	name := strings.TrimSpace(c.Name)
	switch {
	case name == "":
		return fmt.Errorf("the name is empty: %w", ErrInvalidConfig)
	case utf8.RuneCountInString(c.Name) > MaxNameLength:
		return fmt.Errorf("the name has %d characters, more than %d: %w", utf8.RuneCountInString(c.Name), MaxNameLength, ErrInvalidConfig)
	case !c.Format.Valid():
		return fmt.Errorf("format %q (want %s, %s or %s): %w", c.Format, Swiss, RoundRobin, Arena, ErrInvalidConfig)
	case c.Rounds < 0 || c.Rounds > MaxRounds:
		return fmt.Errorf("rounds %d: must be from 1 to %d, or 0 for the default: %w", c.Rounds, MaxRounds, ErrInvalidConfig)
	case c.Rounds != 0 && c.Format != Swiss:
		return fmt.Errorf("rounds %d: only a Swiss is given a number of rounds: %w", c.Rounds, ErrInvalidConfig)
	case c.Double && c.Format != RoundRobin:
		return fmt.Errorf("double: only a round robin may be double: %w", ErrInvalidConfig)
	case c.Format == Arena && (c.Duration < MinArenaDuration || c.Duration > MaxArenaDuration):
		return fmt.Errorf("duration %v: an arena lasts from %v to %v: %w", c.Duration, MinArenaDuration, MaxArenaDuration, ErrInvalidConfig)
	case c.Format != Arena && c.Duration != 0:
		return fmt.Errorf("duration %v: only an arena has a duration: %w", c.Duration, ErrInvalidConfig)
	case c.PlayerLimit != 0 && (c.PlayerLimit < 2 || c.PlayerLimit > MaxPlayers):
		return fmt.Errorf("player limit %d: must be from 2 to %d, or 0 for no limit: %w", c.PlayerLimit, MaxPlayers, ErrInvalidConfig)
	case c.Rows < 0 || c.Columns < 0 || c.Connect < 0 || c.Wins < 0:
		return fmt.Errorf("board rules %d×%d, connect %d, wins %d: none may be negative: %w", c.Rows, c.Columns, c.Connect, c.Wins, ErrInvalidConfig)
	}
	if err := c.Game().Validate(); err != nil {
		return fmt.Errorf("board rules: %w: %w", err, ErrInvalidConfig)
	}
	return nil
}

// DefaultRounds returns the default number of Swiss rounds for the given
// number of players: ⌈log2 players⌉ + 1, enough for one player to win
// every game and be the only one left on the top score, and one more round
// (8 players: 4; 9 to 16: 5; 256: 9). It returns 1 for fewer than 2 players.
func DefaultRounds(players int) int {
	if players < 2 {
		return 1
	}
	return bits.Len(uint(players-1)) + 1
}

// Player is an entry of a tournament.
type Player struct {
	// ID identifies the player (the bot uses Discord user IDs): 1 to
	// MaxIDLength bytes, unique within the tournament.
	ID string `json:"id"`
	// Rating is the player's rating R (rating.Rating.R, Glicko scale) when
	// they joined; 0 means none, counted as rating.DefaultR (1500). It
	// orders players within a score (pairing order, Swiss colours) and is
	// the last tie-break. It must be finite.
	Rating float64 `json:"rating,omitempty"`
	// Withdrawn is set when the player left or was removed after the
	// start: they are not paired again, and stay in the standings.
	Withdrawn bool `json:"withdrawn,omitempty"`
}

// rating returns p's rating with 0 read as rating.DefaultR.
func (p Player) rating() float64 {
	if p.Rating == 0 {
		return rating.DefaultR
	}
	return p.Rating
}

// Result is the result of one pairing, as the opener's score then the
// second player's, in the notation of the FIDE Tournament Report File
// ("+" and "-" for a game won and lost by forfeit). Its values are what a
// store keeps.
type Result string

// The results. A game's result is decided by its match (see MatchResult):
// won, lost or drawn when both played; won or lost by forfeit when the loser
// never dropped a disc (did not show up or let their first turn pass).
const (
	// Pending: the game has no result yet.
	Pending Result = ""
	// OpenerWins and SecondWins: the game was played and won.
	OpenerWins Result = "1-0"
	SecondWins Result = "0-1"
	// Draw: the game was played and ended level (see StoppedResult).
	Draw Result = "1/2-1/2"
	// OpenerWinsByForfeit and SecondWinsByForfeit: the loser did not play.
	OpenerWinsByForfeit Result = "+/-"
	SecondWinsByForfeit Result = "-/+"
	// DoubleForfeit: neither played; both lose.
	DoubleForfeit Result = "-/-"
	// Bye: the player paired alone scores one point without a game.
	Bye Result = "bye"
)

// Valid reports whether r is one of the results above.
func (r Result) Valid() bool {
	switch r {
	case Pending, OpenerWins, SecondWins, Draw, OpenerWinsByForfeit, SecondWinsByForfeit, DoubleForfeit, Bye:
		return true
	}
	return false
}

// Decided reports whether r is a result (valid and not Pending).
func (r Result) Decided() bool { return r != Pending && r.Valid() }

// Forfeit reports whether r was decided without a game between the two:
// a forfeit or a bye. Such rounds are "unplayed" for the tie-breaks.
func (r Result) Forfeit() bool {
	return r == OpenerWinsByForfeit || r == SecondWinsByForfeit || r == DoubleForfeit || r == Bye
}

// Points returns the points r gives the opener and the second player in a
// Swiss or a round robin: 1 for a win (by forfeit too), ½ for a draw, 0 for
// a loss, 1 for a bye (to the opener, the player paired alone), 0 while
// pending.
func (r Result) Points() (opener, second float64) {
	switch r {
	case OpenerWins, OpenerWinsByForfeit, Bye:
		return 1, 0
	case SecondWins, SecondWinsByForfeit:
		return 0, 1
	case Draw:
		return 0.5, 0.5
	}
	return 0, 0
}

// outcome is a result from one player's side.
type outcome int8

const (
	loss outcome = iota
	draw
	win
)

// outcomes returns r from each side's point of view.
func (r Result) outcomes() (opener, second outcome) {
	switch r {
	case OpenerWins, OpenerWinsByForfeit, Bye:
		return win, loss
	case SecondWins, SecondWinsByForfeit:
		return loss, win
	case Draw:
		return draw, draw
	}
	return loss, loss
}

// Pairing is one game of a round, or a bye. In chess terms Opener is White
// and Second is Black: the opener drops the first disc of the match's first
// round (game.Player1), then the openers alternate round by round.
type Pairing struct {
	Opener string `json:"opener"`
	// Second is "" for a bye: Opener is then the player paired alone, and
	// Result is Bye from the start.
	Second string `json:"second,omitempty"`
	Result Result `json:"result,omitempty"`
}

// IsBye reports whether p is a bye.
func (p Pairing) IsBye() bool { return p.Second == "" }

// Has reports whether id plays in p.
func (p Pairing) Has(id string) bool { return id != "" && (p.Opener == id || p.Second == id) }

// Round is one round of pairings. In an arena, each call of ArenaPair makes
// a round of its own, started at the time given, while earlier ones go on.
type Round struct {
	// Number counts from 1: Rounds[i].Number is i+1.
	Number int `json:"number"`
	// Started is when the round was paired: set by ArenaPair, left to the
	// caller otherwise (informational).
	Started time.Time `json:"started,omitzero"`
	// Pairings are the games, the best placed first (board 1), then the
	// bye if any. A pairing with a result decided at once (a bye, or in a
	// round robin a game against a withdrawn player, won by forfeit) starts
	// no game.
	Pairings []Pairing `json:"pairings"`
}

// Finished reports whether every pairing of r has a result.
func (r Round) Finished() bool {
	for _, p := range r.Pairings {
		if p.Result == Pending {
			return false
		}
	}
	return true
}

// State is a tournament: everything NextRound, ArenaPair and Standings
// read. It is plain data a store can keep (a row for the tournament, rows
// for its entries and for its pairings) and round-trips through
// encoding/json. The functions of the package never change a State they are
// given: those that make a new one (Join, Leave, RecordResult) return a
// copy, which shares with the old one the slices it did not change, so
// treat a State as a value and do not write into its slices in place
// (appending a round to Rounds, as a store does, is fine).
type State struct {
	Config Config `json:"config"`
	// Seed is the tournament's own randomness, drawn once when it is made
	// (New): it decides the round robin's pairing numbers and the drawing
	// of lots for openers, so that every replica computes the same round.
	Seed int64 `json:"seed"`
	// Started is when the tournament started (round 1 paired, or the
	// arena's clock started); zero before. An arena ends Config.Duration
	// after it.
	Started time.Time `json:"started,omitzero"`
	// Players are the entries in the order they joined, withdrawn ones
	// included.
	Players []Player `json:"players"`
	// Rounds are the rounds paired so far, oldest first.
	Rounds []Round `json:"rounds,omitempty"`
}

// New returns an empty tournament of cfg with the given seed (the caller
// draws it once, from its injected randomness). It returns an error wrapping
// ErrInvalidConfig when cfg.Validate fails.
func New(cfg Config, seed int64) (State, error) {
	if err := cfg.Validate(); err != nil {
		return State{}, err
	}
	return State{Config: cfg, Seed: seed}, nil
}

// clone returns a deep copy of s.
func (s State) clone() State {
	c := s
	c.Players = slices.Clone(s.Players)
	c.Rounds = make([]Round, len(s.Rounds))
	for i, r := range s.Rounds {
		r.Pairings = slices.Clone(r.Pairings)
		c.Rounds[i] = r
	}
	return c
}

// index returns the position of the player with the given ID in Players,
// or −1.
func (s State) index(id string) int {
	return slices.IndexFunc(s.Players, func(p Player) bool { return p.ID == id })
}

func checkPlayer(p Player) error {
	switch {
	case p.ID == "" || len(p.ID) > MaxIDLength:
		return fmt.Errorf("player ID %q: must have 1 to %d bytes: %w", p.ID, MaxIDLength, ErrInvalidState)
	case math.IsNaN(p.Rating) || math.IsInf(p.Rating, 0):
		return fmt.Errorf("player %s has rating %v: %w", p.ID, p.Rating, ErrInvalidState)
	}
	return nil
}

// Validate returns nil when s holds together, and otherwise an error
// wrapping ErrInvalidConfig (its Config) or ErrInvalidState naming the first
// fault: a player's ID empty, too long or repeated, a rating not finite,
// more than MaxPlayers entries, a round numbered out of order, a pairing
// naming an unknown player or a player twice in one round, a bye whose
// result is not Bye or a game whose result is Bye or unknown, a result
// missing in a round before the last (Swiss, round robin), an arena round
// without its start time, or an arena player paired again while a game of
// theirs has no result.
func (s State) Validate() error {
	if err := s.Config.Validate(); err != nil {
		return err
	}
	if len(s.Players) > MaxPlayers {
		return fmt.Errorf("%d players, more than %d: %w", len(s.Players), MaxPlayers, ErrInvalidState)
	}
	known := make(map[string]int, len(s.Players))
	for i, p := range s.Players {
		if err := checkPlayer(p); err != nil {
			return err
		}
		if _, ok := known[p.ID]; ok {
			return fmt.Errorf("player %s is entered twice: %w", p.ID, ErrInvalidState)
		}
		known[p.ID] = i
	}
	busy := map[string]int{}            // arena: the round of a player's pending game
	seen := make([]int, len(s.Players)) // seen[i] == r: player i is paired in round r
	for i, r := range s.Rounds {
		if r.Number != i+1 {
			return fmt.Errorf("round %d is numbered %d: %w", i+1, r.Number, ErrInvalidState)
		}
		if s.Config.Format == Arena && r.Started.IsZero() {
			return fmt.Errorf("arena round %d has no start time: %w", r.Number, ErrInvalidState)
		}
		for b, p := range r.Pairings {
			ids := [2]string{p.Opener, p.Second}
			n := 2
			if p.IsBye() {
				n = 1
			}
			for _, id := range ids[:n] {
				at, ok := known[id]
				if !ok {
					return fmt.Errorf("round %d, board %d: player %q is not an entry: %w", r.Number, b+1, id, ErrInvalidState)
				}
				if seen[at] == r.Number {
					return fmt.Errorf("round %d: player %s is paired twice: %w", r.Number, id, ErrInvalidState)
				}
				seen[at] = r.Number
			}
			switch {
			case !p.Result.Valid():
				return fmt.Errorf("round %d, board %d: result %q: %w", r.Number, b+1, p.Result, ErrInvalidState)
			case p.IsBye() && p.Result != Bye:
				return fmt.Errorf("round %d, board %d: a bye with result %q: %w", r.Number, b+1, p.Result, ErrInvalidState)
			case !p.IsBye() && p.Result == Bye:
				return fmt.Errorf("round %d, board %d: a game with result bye: %w", r.Number, b+1, ErrInvalidState)
			case p.Result == Pending && s.Config.Format != Arena && i < len(s.Rounds)-1:
				return fmt.Errorf("round %d, board %d: no result, but round %d was paired: %w", r.Number, b+1, len(s.Rounds), ErrInvalidState)
			}
			if s.Config.Format == Arena {
				for _, id := range ids[:n] {
					if at, ok := busy[id]; ok {
						return fmt.Errorf("arena round %d: player %s is paired while their game of round %d has no result: %w", r.Number, id, at, ErrInvalidState)
					}
					if p.Result == Pending {
						busy[id] = r.Number
					}
				}
			}
		}
	}
	return nil
}

// TotalRounds returns how many rounds the tournament has: for a Swiss,
// Config.Rounds or, when it is 0, DefaultRounds of the number of entries;
// for a round robin, one round per player less one (per player, with an odd
// number, as each sits one out), twice that when double; 0 for an arena.
// The entries are counted as they are, withdrawn ones included, so the
// number is fixed from the first round on.
func TotalRounds(s State) int {
	n := len(s.Players)
	switch s.Config.Format {
	case Swiss:
		if s.Config.Rounds != 0 {
			return s.Config.Rounds
		}
		return DefaultRounds(n)
	case RoundRobin:
		if n < 2 {
			return 0
		}
		r := n - 1
		if n%2 == 1 {
			r = n
		}
		if s.Config.Double {
			r *= 2
		}
		return r
	}
	return 0
}

// ArenaEnd returns when an arena ends: Started plus Config.Duration (zero
// before it started). A game paired before then is played out and counts.
func ArenaEnd(s State) time.Time {
	if s.Started.IsZero() {
		return time.Time{}
	}
	return s.Started.Add(s.Config.Duration)
}

// Over reports whether the tournament is over at now: a Swiss or a round
// robin when its last round (TotalRounds) is paired and finished, an arena
// when its time is up and every game has a result. A Swiss that cannot pair
// another round (NextRound returns ErrTooFewPlayers or ErrNoPairing) is
// not over by this test: the caller ends it.
func Over(s State, now time.Time) bool {
	last := len(s.Rounds) == 0 || s.Rounds[len(s.Rounds)-1].Finished()
	if s.Config.Format == Arena {
		if s.Started.IsZero() || now.Before(ArenaEnd(s)) {
			return false
		}
		for _, r := range s.Rounds {
			if !r.Finished() {
				return false
			}
		}
		return true
	}
	return len(s.Rounds) > 0 && len(s.Rounds) >= TotalRounds(s) && last
}

// Join returns s with p entered. It returns an error wrapping
// ErrInvalidState for a bad ID or rating, ErrAlreadyJoined when p.ID is an
// entry already (withdrawn or not), ErrStarted for a Swiss or round robin
// whose first round is paired, or ErrFull when Config.Limit players (not
// counting withdrawn ones) are in. An arena takes players until its end; the
// caller checks the time.
func Join(s State, p Player) (State, error) {
	p.Withdrawn = false
	if err := checkPlayer(p); err != nil {
		return State{}, err
	}
	if s.index(p.ID) >= 0 {
		return State{}, fmt.Errorf("player %s: %w", p.ID, ErrAlreadyJoined)
	}
	if s.Config.Format != Arena && len(s.Rounds) > 0 {
		return State{}, fmt.Errorf("round %d is paired: %w", len(s.Rounds), ErrStarted)
	}
	active := 0
	for _, q := range s.Players {
		if !q.Withdrawn {
			active++
		}
	}
	if active >= s.Config.Limit() || len(s.Players) >= MaxPlayers {
		return State{}, fmt.Errorf("%d players: %w", active, ErrFull)
	}
	c := s.clone()
	c.Players = append(c.Players, p)
	return c, nil
}

// Leave returns s without the player id: before the first round the entry
// is removed; after it the player is withdrawn (not paired again; their
// results stay, and so do they in the standings). A game of theirs still
// without a result is left to its match, which the caller ends by forfeit
// and records with RecordResult. It returns an error wrapping
// ErrUnknownPlayer or ErrWithdrawn.
func Leave(s State, id string) (State, error) {
	i := s.index(id)
	if i < 0 {
		return State{}, fmt.Errorf("player %q: %w", id, ErrUnknownPlayer)
	}
	if s.Players[i].Withdrawn {
		return State{}, fmt.Errorf("player %s: %w", id, ErrWithdrawn)
	}
	c := s.clone()
	if len(s.Rounds) == 0 {
		c.Players = slices.Delete(c.Players, i, i+1)
	} else {
		c.Players[i].Withdrawn = true
	}
	return c, nil
}

// RecordResult returns s with the result r of the game player id plays in
// round (counted from 1). r is in the pairing's terms (OpenerWins means the
// pairing's Opener won), whichever of the two id is. It returns an error
// wrapping ErrInvalidResult when r is Pending, Bye or unknown,
// ErrUnknownRound, ErrUnknownPlayer when id has no game in that round, or
// ErrAlreadyRecorded when the game has a result already (even the same one:
// the caller that gets it lost a race and must not act on the result again).
func RecordResult(s State, round int, id string, r Result) (State, error) {
	if !r.Decided() || r == Bye {
		return State{}, fmt.Errorf("%q: %w", r, ErrInvalidResult)
	}
	if round < 1 || round > len(s.Rounds) {
		return State{}, fmt.Errorf("round %d of %d: %w", round, len(s.Rounds), ErrUnknownRound)
	}
	b := slices.IndexFunc(s.Rounds[round-1].Pairings, func(p Pairing) bool { return p.Has(id) && !p.IsBye() })
	if b < 0 {
		return State{}, fmt.Errorf("player %q has no game in round %d: %w", id, round, ErrUnknownPlayer)
	}
	if got := s.Rounds[round-1].Pairings[b].Result; got != Pending {
		return State{}, fmt.Errorf("round %d, board %d: %s: %w", round, b+1, got, ErrAlreadyRecorded)
	}
	c := s
	c.Rounds = slices.Clone(s.Rounds)
	c.Rounds[round-1].Pairings = slices.Clone(s.Rounds[round-1].Pairings)
	c.Rounds[round-1].Pairings[b].Result = r
	return c, nil
}

// NextRound returns the next round of a Swiss or a round robin: Number one
// more than the last, its pairings (board 1 first) and a bye if the number
// of players to pair is odd, with its result Bye. It is a pure function of
// s: two replicas that compute it from the same state get the same round,
// so a store can write it with a compare-and-swap exactly once. See Swiss
// pairing and round robin in the package documentation for the rules. It
// returns an error wrapping ErrInvalidConfig or ErrInvalidState (s.Validate),
// ErrWrongFormat for an arena, ErrRoundNotFinished when the last round has a
// game without result, ErrTournamentOver when TotalRounds are paired,
// ErrTooFewPlayers when fewer than two players are left to pair (Swiss),
// or ErrNoPairing when no Swiss pairing avoids a rematch and a second bye.
func NextRound(s State) (Round, error) {
	if err := s.Validate(); err != nil {
		return Round{}, err
	}
	if s.Config.Format == Arena {
		return Round{}, fmt.Errorf("an arena pairs with ArenaPair: %w", ErrWrongFormat)
	}
	if n := len(s.Rounds); n > 0 && !s.Rounds[n-1].Finished() {
		return Round{}, fmt.Errorf("round %d: %w", n, ErrRoundNotFinished)
	}
	if total := TotalRounds(s); total > 0 && len(s.Rounds) >= total {
		return Round{}, fmt.Errorf("%d rounds played: %w", len(s.Rounds), ErrTournamentOver)
	}
	var pairings []Pairing
	var err error
	if s.Config.Format == Swiss {
		pairings, err = pairSwiss(s)
	} else {
		pairings, err = pairBerger(s)
	}
	if err != nil {
		return Round{}, err
	}
	return Round{Number: len(s.Rounds) + 1, Pairings: pairings}, nil
}

// lot returns a number drawn from the tournament's seed and the given
// values: splitmix64 (Steele, Lea and Flood, "Fast splittable pseudorandom
// number generators", 2014) over them, so that it is the same on every
// replica and every version of Go.
func lot(seed int64, values ...uint64) uint64 {
	x := uint64(seed)
	for _, v := range values {
		x += 0x9e3779b97f4a7c15 ^ v
		x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
		x = (x ^ (x >> 27)) * 0x94d049bb133111eb
		x ^= x >> 31
	}
	return x
}
