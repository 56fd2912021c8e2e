package sessions

import (
	"errors"
	"fmt"
	"hash/fnv"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/tournament"
)

// A tournament, as the lifecycle runs it: its rules and results are a
// tournament.State (package tournament: pairing, scoring, tie-breaks,
// standings); around it, where it is played (a server and a channel), how
// far it is (TournamentStatus), what its games are (a session each, in a
// thread or in the channel: TournamentGame) and which of its messages are
// posted (TournamentPosts). The lifecycle is functions of (tournament,
// policy, now) that change a Tournament and return what happened, or a
// *Refusal; they run inside TournamentStore.UpdateTournament, whose
// compare-and-swap on the tournament's revision makes each change happen
// once however many processes try it at once (see Step).

// TournamentStatus is where a tournament stands.
type TournamentStatus string

// The statuses of a tournament: open for sign-up, then running (paused
// by an admin in between, maybe), then finished (played to its end,
// ended by an admin, or called off at its start for want of players).
const (
	TournamentSignUp   TournamentStatus = "signup"
	TournamentRunning  TournamentStatus = "running"
	TournamentPaused   TournamentStatus = "paused"
	TournamentFinished TournamentStatus = "finished"
)

// Valid reports whether s is one of the statuses above.
func (s TournamentStatus) Valid() bool {
	switch s {
	case TournamentSignUp, TournamentRunning, TournamentPaused, TournamentFinished:
		return true
	}
	return false
}

// Tournament is a tournament of a server: the tournament.State of its
// rules, players and results, and the rest the bot keeps about it. Values
// returned by a TournamentStore are copies owned by the caller; only
// UpdateTournament writes.
type Tournament struct {
	// ID identifies the tournament; CreateTournament assigns it, from 1,
	// and never reuses one, so that it can go into custom_ids.
	ID int64
	// GuildID is the server; ChannelID the channel where its sign-up,
	// pairings, standings and podium are posted (and its games are
	// played when they are not played in threads).
	GuildID, ChannelID string
	// State is the tournament's rules, players and rounds with their
	// results (package tournament). Treat it as a value: the functions of
	// package tournament return new states that share unchanged slices
	// with the old one.
	State tournament.State
	// Names are the players' display names, by user ID, as they joined.
	Names map[string]string
	// Status is where the tournament stands.
	Status TournamentStatus
	// Settings are how its games are played and who may join.
	Settings TournamentSettings
	// Games are the games of the pairings, Games[r][b] the game of
	// State.Rounds[r].Pairings[b]: the session that plays it, once
	// started. A bye and a game decided without being played (a forfeit
	// against a withdrawn player) never start one.
	Games [][]TournamentGame
	// Posts are the tournament's messages in ChannelID.
	Posts TournamentPosts
	// Due is when the tournament has work to do next (a round to pair, a
	// game to start, a message to post or edit, its start or its end):
	// the scheduler looks at it then (DueTournaments). Zero: nothing
	// until someone acts. The lifecycle keeps it (Step, and every change
	// below); the store also makes a tournament due at once when one of
	// its games ends.
	Due time.Time
	// Revision counts the writes to the tournament; the store's
	// compare-and-swap reads it. Set by the store.
	Revision int64
	// CreatedBy is the admin who made it; EndedBy the admin who ended it
	// early ("" otherwise). Forget clears them.
	CreatedBy, EndedBy string
	// CreatedAt and UpdatedAt come from the store's clock, in UTC.
	CreatedAt, UpdatedAt time.Time
}

// TournamentSettings are how a tournament's games are played and who may
// join it, besides its tournament.Config.
type TournamentSettings struct {
	// Theme names the boards' emoji set ("" the default).
	Theme string `json:"theme,omitempty"`
	// TurnTimeout is how long a player has for a turn in its games; zero:
	// the Policy's.
	TurnTimeout time.Duration `json:"turn_timeout,omitempty"`
	// Role is the ID of the role a member needs to join; "" none.
	Role string `json:"role,omitempty"`
	// StartAt is when the tournament starts by itself; zero: when an admin
	// starts it.
	StartAt time.Time `json:"start_at,omitzero"`
	// Threads is set when each game is played in a thread of its own;
	// otherwise (or where a thread cannot be opened) in ChannelID, one
	// game at a time.
	Threads bool `json:"threads,omitempty"`
	// Locale is the language of its public messages (a Discord locale
	// code; "" English).
	Locale string `json:"locale,omitempty"`
}

// TournamentGame is the game of one pairing.
type TournamentGame struct {
	// SessionID is the session that plays it; 0 until it starts. The
	// store records it with the session, in one transaction, once.
	SessionID int64
	// ChannelID is where that session is: a thread, or the tournament's
	// channel.
	ChannelID string
	// Claimed is until when a process is starting the game (opening its
	// thread, creating its session): no other starts it before, and after
	// it, when the game still has no session (the process died), another
	// one does.
	Claimed time.Time
}

// TournamentPosts are a tournament's messages in its channel, and the
// lease of the work that posts and edits them.
type TournamentPosts struct {
	// SignUp, Standings and Podium are the IDs of the sign-up message
	// (with Join and Leave), the standings message (edited after every
	// result) and the podium (at the end); "" until posted.
	SignUp    string `json:"sign_up,omitempty"`
	Standings string `json:"standings,omitempty"`
	Podium    string `json:"podium,omitempty"`
	// Pairings counts the rounds whose pairings message was posted (a
	// Swiss or a round robin; an arena posts none).
	Pairings int `json:"pairings,omitempty"`
	// Shown is the Stamp the sign-up and standings messages show.
	Shown uint64 `json:"shown,omitempty"`
	// Claimed is until when a process is posting and editing them.
	Claimed time.Time `json:"claimed,omitzero"`
}

// TournamentLink names the game of a tournament a session plays: the
// tournament, the round and the board (the pairing's place in the round,
// from 1). The zero value is no tournament.
type TournamentLink struct {
	ID           int64
	Round, Board int
}

// Set reports whether l names a tournament game.
func (l TournamentLink) Set() bool { return l.ID != 0 }

// Sentinel errors of tournaments, wrapped with the tournament concerned.
var (
	// ErrTournamentNotFound means no tournament has that ID.
	ErrTournamentNotFound = errors.New("no such tournament")
	// ErrGameTaken means a session was created for a tournament game that
	// has a session already, or a result, or whose tournament is not
	// running: nothing was stored.
	ErrGameTaken = errors.New("tournament game started already or not to be started")
	// ErrInvalidTournament means a tournament passed to CreateTournament,
	// or left by an UpdateTournament function, breaks a rule (see
	// Tournament.Validate).
	ErrInvalidTournament = errors.New("invalid tournament")
)

// The reasons of the tournament lifecycle's refusals (each with its text
// in the catalog, as every reason).
var (
	// ReasonTournamentRounds: a number of rounds given to another format
	// than a Swiss.
	ReasonTournamentRounds = NewReason("tournament_rounds")
	// ReasonTournamentDouble: double asked of another format than a round
	// robin.
	ReasonTournamentDouble = NewReason("tournament_double")
	// ReasonTournamentDuration: an arena without its duration (from Min to
	// Max), or a duration given to another format.
	ReasonTournamentDuration = NewReason("tournament_duration")
	// ReasonTournamentBoard: board rules no game can be played on.
	ReasonTournamentBoard = NewReason("tournament_board")
	// ReasonTournamentName: a name that is empty or longer than Max.
	ReasonTournamentName = NewReason("tournament_name")
	// ReasonTournamentStartPast: the start time given is not in the
	// future.
	ReasonTournamentStartPast = NewReason("tournament_start_past")
	// ReasonTournamentNotFound: no tournament is running or open here.
	ReasonTournamentNotFound = NewReason("tournament_not_found")
	// ReasonTournamentWhich: several tournaments are open in the server;
	// the command must be used in the one's channel.
	ReasonTournamentWhich = NewReason("tournament_which")
	// ReasonTournamentFull: the player limit (Limit) is reached.
	ReasonTournamentFull = NewReason("tournament_full")
	// ReasonTournamentJoined: the member joined already.
	ReasonTournamentJoined = NewReason("tournament_joined")
	// ReasonTournamentNotJoined: the member is not a player of it.
	ReasonTournamentNotJoined = NewReason("tournament_not_joined")
	// ReasonTournamentClosed: sign-up is over (a Swiss or a round robin
	// that started, or a tournament that ended).
	ReasonTournamentClosed = NewReason("tournament_closed")
	// ReasonTournamentRole: joining needs Role.
	ReasonTournamentRole = NewReason("tournament_role")
	// ReasonTournamentWithdrawn: the member left it already (or was
	// removed): they may not come back.
	ReasonTournamentWithdrawn = NewReason("tournament_withdrawn")
	// ReasonTournamentStarted: an admin asked to start one that started.
	ReasonTournamentStarted = NewReason("tournament_started")
	// ReasonTournamentFewPlayers: it cannot start with fewer than two
	// players.
	ReasonTournamentFewPlayers = NewReason("tournament_few_players")
	// ReasonTournamentNotRunning: pausing one that is not running.
	ReasonTournamentNotRunning = NewReason("tournament_not_running")
	// ReasonTournamentNotPaused: resuming one that is not paused.
	ReasonTournamentNotPaused = NewReason("tournament_not_paused")
	// ReasonTournamentOver: it has ended.
	ReasonTournamentOver = NewReason("tournament_over")
)

// TournamentRequest is what an admin asks for when creating a tournament.
type TournamentRequest struct {
	GuildID, ChannelID string
	// Config is the tournament's rules (Name, Format, Rounds, Double,
	// Duration, Rated, PlayerLimit and the board).
	Config tournament.Config
	// Settings are how its games are played and who may join.
	Settings TournamentSettings
	// Seed is the tournament's own randomness (drawn once by the caller
	// from its injected source).
	Seed int64
	// CreatedBy is the admin.
	CreatedBy string
}

// NewTournament returns the tournament req asks for, open for sign-up at
// now, its sign-up message to post, to be stored with CreateTournament.
// It refuses ReasonTournamentRounds for rounds given to another format
// than a Swiss, ReasonTournamentDouble for a double other than a round
// robin, ReasonTournamentDuration for an arena without a duration in
// range or a duration given to another format, ReasonTournamentBoard for
// board rules game.Config refuses, ReasonTournamentName for a name that
// is empty or too long, and ReasonTournamentStartPast for a start time
// not after now.
func NewTournament(req TournamentRequest, now time.Time) (*Tournament, error) {
	st, err := tournament.New(req.Config, req.Seed)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", settingsRefusal(req.Config), err)
	}
	if !req.Settings.StartAt.IsZero() && !req.Settings.StartAt.After(now) {
		return nil, Refuse(ReasonTournamentStartPast)
	}
	t := &Tournament{
		GuildID: req.GuildID, ChannelID: req.ChannelID, State: st, Names: map[string]string{},
		Status: TournamentSignUp, Settings: req.Settings, CreatedBy: req.CreatedBy,
	}
	t.Due = t.nextDue(now)
	return t, nil
}

// settingsRefusal returns the refusal of the first setting of cfg that
// tournament.Config.Validate refuses.
func settingsRefusal(cfg tournament.Config) *Refusal {
	c := cfg
	switch {
	case c.Rounds != 0 && c.Format != tournament.Swiss:
		return Refuse(ReasonTournamentRounds)
	case c.Double && c.Format != tournament.RoundRobin:
		return Refuse(ReasonTournamentDouble)
	case (c.Format == tournament.Arena) != (c.Duration != 0),
		c.Format == tournament.Arena && (c.Duration < tournament.MinArenaDuration || c.Duration > tournament.MaxArenaDuration):
		return Refuse(ReasonTournamentDuration, "Min", tournament.MinArenaDuration, "Max", tournament.MaxArenaDuration)
	case c.Game().Validate() != nil:
		return Refuse(ReasonTournamentBoard)
	}
	return Refuse(ReasonTournamentName, "Max", tournament.MaxNameLength)
}

// Clone returns a deep copy of t.
func (t *Tournament) Clone() *Tournament {
	c := *t
	c.State.Players = slices.Clone(t.State.Players)
	c.State.Rounds = make([]tournament.Round, len(t.State.Rounds))
	for i, r := range t.State.Rounds {
		r.Pairings = slices.Clone(r.Pairings)
		c.State.Rounds[i] = r
	}
	c.Names = maps.Clone(t.Names)
	if c.Names == nil {
		c.Names = map[string]string{}
	}
	c.Games = make([][]TournamentGame, len(t.Games))
	for i, g := range t.Games {
		c.Games[i] = slices.Clone(g)
	}
	return &c
}

// Validate checks the rules every stored tournament obeys: a server and a
// channel, a known status, a state that holds together
// (tournament.State.Validate), a game for every pairing and no more, and
// a started state once it runs. It returns an error wrapping
// ErrInvalidTournament. Store backends call it before every write.
func (t *Tournament) Validate() error {
	switch {
	case t.GuildID == "" || t.ChannelID == "":
		return fmt.Errorf("tournament without a server or a channel: %w", ErrInvalidTournament)
	case !t.Status.Valid():
		return fmt.Errorf("unknown status %q: %w", t.Status, ErrInvalidTournament)
	case len(t.Games) != len(t.State.Rounds):
		return fmt.Errorf("%d rounds of games for %d rounds: %w", len(t.Games), len(t.State.Rounds), ErrInvalidTournament)
	}
	for i, r := range t.State.Rounds {
		if len(t.Games[i]) != len(r.Pairings) {
			return fmt.Errorf("round %d: %d games for %d pairings: %w", r.Number, len(t.Games[i]), len(r.Pairings), ErrInvalidTournament)
		}
	}
	if err := t.State.Validate(); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidTournament, err)
	}
	return nil
}

// CheckTournamentChange checks what an UpdateTournament function left in
// after against the tournament it was given, before: ID, GuildID,
// ChannelID, the Config, the seed, CreatedBy and CreatedAt must not
// change; no round may disappear nor a pairing change its players, and a
// result once given stays; and after must pass Validate. It returns an
// error wrapping ErrInvalidTournament otherwise. For store backends.
func CheckTournamentChange(before, after *Tournament) error {
	switch {
	case after.ID != before.ID, after.GuildID != before.GuildID, after.ChannelID != before.ChannelID,
		after.State.Config != before.State.Config, after.State.Seed != before.State.Seed,
		after.CreatedBy != before.CreatedBy, !after.CreatedAt.Equal(before.CreatedAt):
		return fmt.Errorf("ID, GuildID, ChannelID, Config, Seed, CreatedBy and CreatedAt cannot change: %w", ErrInvalidTournament)
	case len(after.State.Rounds) < len(before.State.Rounds):
		return fmt.Errorf("rounds cannot be taken back: %w", ErrInvalidTournament)
	}
	for i, r := range before.State.Rounds {
		a := after.State.Rounds[i]
		if len(a.Pairings) != len(r.Pairings) {
			return fmt.Errorf("round %d changed its pairings: %w", r.Number, ErrInvalidTournament)
		}
		for b, p := range r.Pairings {
			q := a.Pairings[b]
			if q.Opener != p.Opener || q.Second != p.Second || (p.Result != tournament.Pending && q.Result != p.Result) {
				return fmt.Errorf("round %d, board %d changed: %w", r.Number, b+1, ErrInvalidTournament)
			}
		}
	}
	return after.Validate()
}

// Stamp is a number that changes whenever what the sign-up and standings
// messages show changes: the status, the players and who withdrew, the
// rounds paired and the results given. The messages are edited when it
// differs from Posts.Shown.
func (t *Tournament) Stamp() uint64 {
	h := fnv.New64a()
	write := func(s string) { h.Write([]byte(s)); h.Write([]byte{0}) }
	write(string(t.Status))
	for _, p := range t.State.Players {
		write(p.ID)
		if p.Withdrawn {
			write("w")
		}
	}
	for _, r := range t.State.Rounds {
		write(strconv.Itoa(r.Number))
		for _, p := range r.Pairings {
			write(string(p.Result))
		}
	}
	return h.Sum64()
}

// Active returns how many players have not withdrawn.
func (t *Tournament) Active() int {
	n := 0
	for _, p := range t.State.Players {
		if !p.Withdrawn {
			n++
		}
	}
	return n
}

// Entry returns the entry of player userID and whether there is one.
func (t *Tournament) Entry(userID string) (tournament.Player, bool) {
	i := slices.IndexFunc(t.State.Players, func(p tournament.Player) bool { return p.ID == userID })
	if i < 0 {
		return tournament.Player{}, false
	}
	return t.State.Players[i], true
}

// Open reports whether members may join t at now: a tournament open for
// sign-up, or an arena under way (running or paused) before its end.
func (t *Tournament) Open(now time.Time) bool {
	switch t.Status {
	case TournamentSignUp:
		return true
	case TournamentRunning, TournamentPaused:
		return t.State.Config.Format == tournament.Arena && now.Before(tournament.ArenaEnd(t.State))
	}
	return false
}

// Join enters member m, whose rating in the server is r (its R; 0 for a
// member never rated there), into t at now; hasRole says whether they
// hold Settings.Role (ignored when it is ""). It refuses ReasonTournamentOver
// when t ended, ReasonTournamentClosed when sign-up is over,
// ReasonTournamentRole, ReasonTournamentJoined, ReasonTournamentWithdrawn
// for a player who left (or was removed), and ReasonTournamentFull (Limit).
func (t *Tournament) Join(m Member, r float64, hasRole bool, now time.Time) error {
	switch {
	case t.Status == TournamentFinished:
		return Refuse(ReasonTournamentOver)
	case !t.Open(now):
		return Refuse(ReasonTournamentClosed)
	case t.Settings.Role != "" && !hasRole:
		return Refuse(ReasonTournamentRole, "Role", Role(t.Settings.Role))
	}
	if p, ok := t.Entry(m.ID); ok {
		if p.Withdrawn {
			return Refuse(ReasonTournamentWithdrawn)
		}
		return Refuse(ReasonTournamentJoined)
	}
	st, err := tournament.Join(t.State, tournament.Player{ID: m.ID, Rating: r})
	switch {
	case errors.Is(err, tournament.ErrFull):
		return Refuse(ReasonTournamentFull, "Limit", t.State.Config.Limit())
	case errors.Is(err, tournament.ErrStarted):
		return Refuse(ReasonTournamentClosed)
	case err != nil:
		return err
	}
	t.State = st
	t.Names = maps.Clone(t.Names)
	if t.Names == nil {
		t.Names = map[string]string{}
	}
	t.Names[m.ID] = m.Name
	t.touch(now)
	return nil
}

// Leave takes player userID out of t at now, as they ask or as an admin
// removes them: before the first round their entry goes; after it they are
// withdrawn (paired no more, their results kept). It returns the game of
// theirs still being played, if any (its link set), which the caller ends
// as their forfeit (Session.Forfeit), so that it is recorded as any
// result. It refuses ReasonTournamentOver when t ended,
// ReasonTournamentNotJoined and ReasonTournamentWithdrawn.
func (t *Tournament) Leave(userID string, now time.Time) (TournamentLink, TournamentGame, error) {
	if t.Status == TournamentFinished {
		return TournamentLink{}, TournamentGame{}, Refuse(ReasonTournamentOver)
	}
	p, ok := t.Entry(userID)
	switch {
	case !ok:
		return TournamentLink{}, TournamentGame{}, Refuse(ReasonTournamentNotJoined)
	case p.Withdrawn:
		return TournamentLink{}, TournamentGame{}, Refuse(ReasonTournamentWithdrawn)
	}
	st, err := tournament.Leave(t.State, userID)
	if err != nil {
		return TournamentLink{}, TournamentGame{}, err
	}
	t.State = st
	if len(st.Rounds) == 0 {
		t.Names = maps.Clone(t.Names)
		delete(t.Names, userID)
	}
	t.touch(now)
	for r, round := range t.State.Rounds {
		for b, pr := range round.Pairings {
			if pr.Has(userID) && pr.Result == tournament.Pending && t.Games[r][b].SessionID != 0 {
				return TournamentLink{ID: t.ID, Round: r + 1, Board: b + 1}, t.Games[r][b], nil
			}
		}
	}
	return TournamentLink{}, TournamentGame{}, nil
}

// Start starts t at now, as an admin asks or its start time comes: a
// Swiss or a round robin pairs round 1 (and a round robin every round
// after it that is decided at once), an arena starts its clock and pairs
// its players. It refuses ReasonTournamentOver when t ended,
// ReasonTournamentStarted when it runs already and
// ReasonTournamentFewPlayers with fewer than two players.
func (t *Tournament) Start(now time.Time) error {
	switch {
	case t.Status == TournamentFinished:
		return Refuse(ReasonTournamentOver)
	case t.Status != TournamentSignUp:
		return Refuse(ReasonTournamentStarted)
	case t.Active() < 2:
		return Refuse(ReasonTournamentFewPlayers)
	}
	t.Status = TournamentRunning
	t.State.Started = now.UTC()
	t.Settings.StartAt = time.Time{}
	t.touch(now)
	return nil
}

// Pause stops t from pairing rounds and starting games at now (games under
// way are played out; an arena's clock runs on). It refuses
// ReasonTournamentOver and ReasonTournamentNotRunning.
func (t *Tournament) Pause(now time.Time) error {
	switch {
	case t.Status == TournamentFinished:
		return Refuse(ReasonTournamentOver)
	case t.Status != TournamentRunning:
		return Refuse(ReasonTournamentNotRunning)
	}
	t.Status = TournamentPaused
	t.touch(now)
	return nil
}

// Resume lets a paused t go on at now. It refuses ReasonTournamentOver and
// ReasonTournamentNotPaused.
func (t *Tournament) Resume(now time.Time) error {
	switch {
	case t.Status == TournamentFinished:
		return Refuse(ReasonTournamentOver)
	case t.Status != TournamentPaused:
		return Refuse(ReasonTournamentNotPaused)
	}
	t.Status = TournamentRunning
	t.touch(now)
	return nil
}

// End ends t at now, as admin userID asks: finished, nothing more paired;
// each game not yet started is recorded as a double forfeit (neither
// played it). It returns the games still being played, which the caller
// ends (Session.EndBy): the store then records each as its match stood
// (tournament.StoppedResult), and the final standings follow once every
// result is in. It refuses ReasonTournamentOver when t ended already.
func (t *Tournament) End(userID string, now time.Time) ([]TournamentGame, error) {
	if t.Status == TournamentFinished {
		return nil, Refuse(ReasonTournamentOver)
	}
	t.Status, t.EndedBy = TournamentFinished, userID
	var playing []TournamentGame
	for r, round := range t.State.Rounds {
		for b, p := range round.Pairings {
			if p.Result != tournament.Pending {
				continue
			}
			if t.Games[r][b].SessionID != 0 {
				playing = append(playing, t.Games[r][b])
				continue
			}
			st, err := tournament.RecordResult(t.State, r+1, p.Opener, tournament.DoubleForfeit)
			if err != nil {
				return nil, err
			}
			t.State = st
		}
	}
	t.touch(now)
	return playing, nil
}

// Over reports whether t is finished and every result is in: its final
// standings and podium can be posted.
func (t *Tournament) Over() bool {
	if t.Status != TournamentFinished {
		return false
	}
	for _, r := range t.State.Rounds {
		if !r.Finished() {
			return false
		}
	}
	return true
}

// touch makes t due at now, for its messages (and whatever else) to catch
// up with a change.
func (t *Tournament) touch(now time.Time) { t.Due = now.UTC() }

// GameRef names one game of a tournament by its round and board, from 1.
type GameRef struct{ Round, Board int }

// TournamentStep is what Step did to a tournament.
type TournamentStep struct {
	// Started is set when the tournament started (its start time came).
	Started bool
	// Paired lists the rounds it paired (for an arena, the rounds of
	// games it paired).
	Paired []int
	// Finished is set when it finished (its last round played, its time
	// up, or no pairing possible).
	Finished bool
	// Games are the games the caller now starts (claimed for it until the
	// lease ends): a thread and a session each (GameSession, then
	// CreateSession's link records it).
	Games []GameRef
	// Posts is set when the caller now posts or edits the messages
	// (claimed for it until the lease ends; PostsDone records the result).
	Posts bool
}

// Empty reports whether the step did nothing.
func (s TournamentStep) Empty() bool {
	return !s.Started && len(s.Paired) == 0 && !s.Finished && len(s.Games) == 0 && !s.Posts
}

// Step does what is due in t at now, as the scheduler finds it (any
// process may): it starts t when its start time has come (calling it off,
// finished without a round, when fewer than two players joined); pairs the
// next round of a Swiss or a round robin whose last round is finished, or
// finishes t when it is over (or no pairing respects the rules); pairs an
// arena's waiting players (those without a game under way), or finishes
// it once its time is up and every game has a result; claims for
// p.PostLease the games that still need their thread and session, and the
// work of the messages that need posting or editing. It then sets Due to
// the next time something is to do. Step is a pure function of t, now and
// p, and runs inside UpdateTournament: when two processes step the same
// tournament at once, one writes and the other runs again on what it
// wrote, where the round is paired already, so a round is paired and
// posted once (see TournamentStore.UpdateTournament). It returns
// ErrNothingDue when it changed nothing.
func (t *Tournament) Step(now time.Time, p Policy) (TournamentStep, error) {
	var out TournamentStep
	before := t.Due
	now = now.UTC()
	if t.Status == TournamentSignUp && !t.Settings.StartAt.IsZero() && !now.Before(t.Settings.StartAt) {
		if t.Active() < 2 {
			t.Status = TournamentFinished // called off: nobody to play
			out.Finished = true
		} else if err := t.Start(now); err == nil {
			out.Started = true
		}
	}
	if t.Status == TournamentRunning {
		if err := t.advance(now, &out); err != nil {
			return TournamentStep{}, err
		}
		for r, round := range t.State.Rounds {
			for b, pr := range round.Pairings {
				g := &t.Games[r][b]
				if pr.Result == tournament.Pending && g.SessionID == 0 && !now.Before(g.Claimed) {
					g.Claimed = now.Add(p.PostLease)
					out.Games = append(out.Games, GameRef{Round: r + 1, Board: b + 1})
				}
			}
		}
	}
	if t.postsWanted() && !now.Before(t.Posts.Claimed) {
		t.Posts.Claimed = now.Add(p.PostLease)
		out.Posts = true
	}
	t.Due = t.nextDue(now)
	if out.Empty() && t.Due.Equal(before) {
		return out, ErrNothingDue
	}
	return out, nil
}

// advance pairs what a running t can pair at now, or finishes it.
func (t *Tournament) advance(now time.Time, out *TournamentStep) error {
	if t.State.Config.Format == tournament.Arena {
		return t.advanceArena(now, out)
	}
	for {
		r, err := tournament.NextRound(t.State)
		switch {
		case errors.Is(err, tournament.ErrRoundNotFinished):
			return nil
		case errors.Is(err, tournament.ErrTournamentOver), errors.Is(err, tournament.ErrTooFewPlayers), errors.Is(err, tournament.ErrNoPairing):
			t.Status = TournamentFinished
			out.Finished = true
			return nil
		case err != nil:
			return fmt.Errorf("tournament %d: pair the next round: %w", t.ID, err)
		}
		t.appendRound(r, now)
		out.Paired = append(out.Paired, r.Number)
		if !r.Finished() {
			return nil // its games are to be played
		}
	}
}

// advanceArena pairs an arena's waiting players, or finishes it once its
// time is up and every game has a result.
func (t *Tournament) advanceArena(now time.Time, out *TournamentStep) error {
	if !now.Before(tournament.ArenaEnd(t.State)) {
		if tournament.Over(t.State, now) {
			t.Status = TournamentFinished
			out.Finished = true
		}
		return nil
	}
	busy := map[string]bool{}
	for _, r := range t.State.Rounds {
		for _, p := range r.Pairings {
			if p.Result == tournament.Pending {
				busy[p.Opener], busy[p.Second] = true, true
			}
		}
	}
	var waiting []string
	for _, p := range t.State.Players {
		if !p.Withdrawn && !busy[p.ID] {
			waiting = append(waiting, p.ID)
		}
	}
	if len(waiting) < 2 {
		return nil
	}
	r, err := tournament.ArenaPair(t.State, waiting, now)
	switch {
	case errors.Is(err, tournament.ErrNoPairing):
		return nil // they wait for another player to finish
	case err != nil:
		return fmt.Errorf("tournament %d: pair the arena: %w", t.ID, err)
	}
	t.appendRound(r, now)
	out.Paired = append(out.Paired, r.Number)
	return nil
}

// appendRound adds round r, paired at now, with a game for each pairing.
func (t *Tournament) appendRound(r tournament.Round, now time.Time) {
	if r.Started.IsZero() {
		r.Started = now
	}
	t.State.Rounds = append(slices.Clip(t.State.Rounds), r)
	t.Games = append(slices.Clip(t.Games), make([]TournamentGame, len(r.Pairings)))
}

// postsWanted reports whether t's messages need work: the sign-up message
// to post, a round's pairings to post, the sign-up or standings message
// to edit, or the podium to post.
func (t *Tournament) postsWanted() bool {
	switch {
	case t.Posts.SignUp == "" && t.Posts.Podium == "":
		return true
	case t.Posts.Shown != t.Stamp():
		return true
	case t.State.Config.Format != tournament.Arena && t.Posts.Pairings < len(t.State.Rounds) && t.Status != TournamentFinished:
		return true
	case t.Over() && t.Posts.Podium == "":
		return true
	}
	return false
}

// nextDue returns when t has work to do next, from now on: now for work
// that can be done now, else the earliest lease to run out, start time or
// arena's end; zero for none.
func (t *Tournament) nextDue(now time.Time) time.Time {
	var due time.Time
	at := func(x time.Time) {
		if x.Before(now) {
			x = now
		}
		if due.IsZero() || x.Before(due) {
			due = x
		}
	}
	if t.postsWanted() {
		at(t.Posts.Claimed)
	}
	switch t.Status {
	case TournamentSignUp:
		if !t.Settings.StartAt.IsZero() {
			at(t.Settings.StartAt)
		}
	case TournamentRunning:
		for r, round := range t.State.Rounds {
			for b, p := range round.Pairings {
				if g := t.Games[r][b]; p.Result == tournament.Pending && g.SessionID == 0 {
					at(g.Claimed)
				}
			}
		}
		if t.State.Config.Format == tournament.Arena {
			at(tournament.ArenaEnd(t.State))
		} else if n := len(t.State.Rounds); n == 0 || t.State.Rounds[n-1].Finished() {
			at(now)
		}
	}
	return due
}

// GameSession returns the session that plays the game ref of t, to be
// created (Store.Create) in channelID (a thread of its own when thread is
// set) at now: a match being played from the start, between the pairing's
// opener (Players[0], game.Player1, who opens round 1) and its second,
// with the tournament's board rules, theme and turn time (the player to
// move loses the game when their turn runs out, as in any match), its
// board to be posted at once (PostDue now), rated when the tournament is
// rated and the board is the standard one (the daily cap between two
// members does not apply to the games the bot pairs), and linked to the
// pairing (Session.Tournament), so that the store records the session on
// the pairing when it creates it, and the result on the pairing when it
// ends. It returns an error wrapping ErrGameTaken for a game that is a
// bye, is decided, or has a session already.
func (t *Tournament) GameSession(ref GameRef, channelID string, thread bool, now time.Time, p Policy) (*Session, error) {
	if ref.Round < 1 || ref.Round > len(t.State.Rounds) || ref.Board < 1 || ref.Board > len(t.State.Rounds[ref.Round-1].Pairings) {
		return nil, fmt.Errorf("tournament %d has no game %d.%d: %w", t.ID, ref.Round, ref.Board, ErrGameTaken)
	}
	pr := t.State.Rounds[ref.Round-1].Pairings[ref.Board-1]
	if pr.IsBye() || pr.Result != tournament.Pending || t.Games[ref.Round-1][ref.Board-1].SessionID != 0 {
		return nil, fmt.Errorf("tournament %d, game %d.%d: %w", t.ID, ref.Round, ref.Board, ErrGameTaken)
	}
	cfg := t.State.Config.Game()
	m, err := game.NewMatch(cfg)
	if err != nil {
		return nil, err
	}
	place := Place{Locale: t.Settings.Locale, Thread: thread, TurnTimeout: t.Settings.TurnTimeout}
	now = now.UTC()
	return &Session{
		ChannelID:  channelID,
		GuildID:    t.GuildID,
		Players:    [2]Member{{ID: pr.Opener, Name: t.Names[pr.Opener]}, {ID: pr.Second, Name: t.Names[pr.Second]}},
		Config:     m.Config(),
		Match:      m,
		Phase:      PhasePlaying,
		Theme:      t.Settings.Theme,
		Deadline:   now.Add(place.policy(p).TurnTimeout),
		PostDue:    now,
		Place:      place,
		Rated:      t.State.Config.Rated && Rateable(m.Config()),
		Tournament: TournamentLink{ID: t.ID, Round: ref.Round, Board: ref.Board},
	}, nil
}

// ReleaseGame gives back the claim on game ref, to be tried again at at
// (its channel was busy, or its thread could not be opened for now).
// ErrNothingDue when the game started meanwhile.
func (t *Tournament) ReleaseGame(ref GameRef, at time.Time) error {
	if ref.Round < 1 || ref.Round > len(t.Games) || ref.Board < 1 || ref.Board > len(t.Games[ref.Round-1]) {
		return ErrNothingDue
	}
	g := &t.Games[ref.Round-1][ref.Board-1]
	if g.SessionID != 0 {
		return ErrNothingDue
	}
	g.Claimed = at.UTC()
	t.Due = t.nextDue(at)
	return nil
}

// PostsDone records what the message work claimed by Step did at now:
// the IDs of the messages it posted ("" for none), the rounds whose
// pairings it posted, and the stamp the messages now show. What another
// process recorded meanwhile is kept (a message ID is never replaced).
func (t *Tournament) PostsDone(done TournamentPosts, now time.Time) {
	keep := func(dst *string, v string) {
		if *dst == "" {
			*dst = v
		}
	}
	keep(&t.Posts.SignUp, done.SignUp)
	keep(&t.Posts.Standings, done.Standings)
	keep(&t.Posts.Podium, done.Podium)
	t.Posts.Pairings = max(t.Posts.Pairings, done.Pairings)
	if done.Shown != 0 {
		t.Posts.Shown = done.Shown
	}
	t.Posts.Claimed = time.Time{}
	t.Due = t.nextDue(now.UTC())
}

// SignUpShown records at now that the sign-up message shows t as it now
// stands, while t is open for sign-up (the answer to a click on its Join
// or Leave updated it), so that no edit follows. It does nothing once t
// started: the standings then show what the stamp covers too.
func (t *Tournament) SignUpShown(now time.Time) {
	if t.Status != TournamentSignUp || t.Posts.SignUp == "" {
		return
	}
	t.Posts.Shown = t.Stamp()
	t.Due = t.nextDue(now.UTC())
}

// PostsLater gives back the claim on the message work, to be tried again
// at at (Discord could not be reached for now).
func (t *Tournament) PostsLater(at time.Time) {
	t.Posts.Claimed = at.UTC()
	t.Due = t.nextDue(at.UTC())
}

// TournamentResult returns the result a tournament game's session s gives
// its pairing as it ends, in the pairing's terms (Players[0] is its
// opener): a finished match gives its result (tournament.MatchResult: a
// win, or a win by forfeit when the loser never dropped a disc); a match
// stopped before its end (ended by an admin, the tournament ended, or
// called off) the result of its match as it stood
// (tournament.StoppedResult). It reports false for a session that is
// still active or is no tournament game.
func TournamentResult(s *Session) (tournament.Result, bool) {
	if !s.Tournament.Set() || s.Phase.Active() {
		return tournament.Pending, false
	}
	if s.Phase == PhaseFinished {
		if r, err := tournament.MatchResult(s.Match); err == nil {
			return r, true
		}
	}
	return tournament.StoppedResult(s.Match), true
}

// forgottenPrefix starts the placeholder that takes a forgotten member's
// place in a tournament (ForgottenID).
const forgottenPrefix = "forgotten-"

// ForgottenID returns the placeholder that takes the place of a member
// forgotten by Store.Forget in a tournament they entered: their entry
// (the seq-th to join, from 1) keeps its results under it, anonymous.
// It is no Discord user ID (Forgotten tells it apart).
func ForgottenID(seq int) string { return forgottenPrefix + strconv.Itoa(seq) }

// Forgotten reports whether a tournament player's ID is the placeholder
// of a forgotten member (ForgottenID).
func Forgotten(id string) bool {
	return len(id) > len(forgottenPrefix) && id[:len(forgottenPrefix)] == forgottenPrefix
}
