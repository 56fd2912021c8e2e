package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot/discordtest"
)

// slot is one channel where two made-up members play match after match:
// challenge, accept, then legal moves read from the buttons of each
// response until the match ends. When a round ends, the response is the
// round's record and the next board arrives as a follow-up through the
// webhook (see fakeDiscord). A slot is used by one goroutine at a time.
type slot struct {
	n        int
	channel  string
	a, b     discordtest.User // the challenger and the opponent
	c        *client
	d        *fakeDiscord // nil when nothing is posted as follow-ups
	follow   chan *discordgo.Message
	rng      *rand.Rand
	settings matchSettings
	rec      *recorder
	// followTimeout bounds the wait for the next round's board.
	followTimeout time.Duration

	phase   slotPhase
	match   int64              // the match being played, 0 before the challenge is answered
	board   *discordgo.Message // the last acknowledged message with live buttons
	boardID string             // its message ID
	post    int                // the board's post sequence, from its custom_ids
	acked   []int              // columns (0-based) of the acknowledged drops of this match, in order
	// history keeps the matches this slot finished (with keepHistory), for
	// a crash check.
	history     []doneMatch
	keepHistory bool
	// inflight is the request sent and not answered yet (nil when none);
	// after a transport failure it stays, so a crash check knows what
	// may or may not have been applied.
	inflight *request
	// inflightApplied says, after a crash check, that the store holds the
	// request in flight.
	inflightApplied bool
	// ackTotal, when set, counts the acknowledged moves of every slot
	// sharing it, for a test that acts after so many.
	ackTotal *atomic.Int64

	matchesDone int
	channelGen  int       // bumped when the channel is given up for a fresh one
	roundEnd    time.Time // when the response that ended the last round came
	turn        uint64    // the slot's own turn among the replicas (-route alternate)
}

// doneMatch is a finished match and its acknowledged drops.
type doneMatch struct {
	id    int64
	acked []int
}

// slotPhase is where a slot stands in its match.
type slotPhase int

const (
	phaseIdle      slotPhase = iota // no match: the next step is a challenge
	phaseChallenge                  // challenge posted: the next step is Accept
	phasePlaying                    // a live board: the next step is a drop
	phaseAwaitNext                  // a round ended: waiting for the next board as a follow-up
)

func (p slotPhase) String() string {
	return [...]string{"idle", "challenge", "playing", "awaiting the next board"}[p]
}

// request is a request in flight.
type request struct {
	kind     string // "challenge", "accept", "move"
	column   int    // for a move, 0-based
	customID string
}

// errServerGone is a transport failure: the server did not answer.
type errServerGone struct{ kind string }

func (e *errServerGone) Error() string { return "server did not answer: " + e.kind }

// refusal is a private answer where a public one was expected.
type refusal struct{ text string }

func (e *refusal) Error() string { return "refused: " + e.text }

func newSlot(n int, c *client, d *fakeDiscord, channelBase int64, s matchSettings, seed uint64) *slot {
	sl := &slot{
		n: n, c: c, d: d, settings: s, rec: newRecorder(),
		a:             player(userBase + int64(2*n+1)),
		b:             player(userBase + int64(2*n+2)),
		rng:           rand.New(rand.NewPCG(seed, uint64(n))),
		followTimeout: 10 * time.Second,
		turn:          uint64(n),
	}
	sl.setChannel(strconv.FormatInt(channelBase+int64(n), 10))
	return sl
}

// setChannel moves the slot to channel, where it receives the follow-ups.
func (s *slot) setChannel(channel string) {
	s.channel = channel
	if s.d != nil {
		s.follow = s.d.subscribe(channel)
	}
}

// step takes the slot's next action. It returns an error when the action
// failed; the slot's state then still describes the last acknowledged
// message.
func (s *slot) step(ctx context.Context) error {
	switch s.phase {
	case phaseIdle:
		return s.challenge(ctx)
	case phaseChallenge:
		return s.accept(ctx)
	case phasePlaying:
		return s.move(ctx)
	default:
		return s.awaitNext(ctx)
	}
}

// send sends body as the request r and records its latency under r.kind.
func (s *slot) send(ctx context.Context, r *request, body []byte) (*discordgo.InteractionResponse, error) {
	s.inflight = r
	ex := s.c.sendVia(ctx, &s.turn, body)
	if ex.errKind != "" {
		if ex.status == 0 {
			// No answer: inflight stays, as the request may or may not
			// have been applied.
			return nil, &errServerGone{kind: ex.errKind}
		}
		s.inflight = nil
		s.rec.fail(r.kind, ex.errKind)
		return nil, ex.err
	}
	s.inflight = nil
	s.rec.ok(r.kind, ex.took)
	resp := ex.resp
	if resp.Type == discordgo.InteractionResponseChannelMessageWithSource && resp.Data != nil && resp.Data.Flags&discordgo.MessageFlagsEphemeral != 0 {
		text := resp.Data.Content
		if len(text) > 60 {
			text = text[:60] + "…"
		}
		s.rec.fail(r.kind, "refused: "+text)
		return nil, &refusal{text: resp.Data.Content}
	}
	return resp, nil
}

func (s *slot) challenge(ctx context.Context) error {
	body, seq := s.c.challenge(s.channel, s.a, s.b, s.settings)
	resp, err := s.send(ctx, &request{kind: "challenge"}, body)
	var ref *refusal
	if errors.As(err, &ref) && strings.Contains(ref.text, "already has a challenge") {
		s.freshChannel() // a session of an earlier run holds it
	}
	if err != nil {
		return err
	}
	accept := find(boardOf(resp.Data), "Accept")
	if !newMessage(resp) || accept == nil {
		return s.unexpected("challenge", resp)
	}
	r := parseCustomID(accept.CustomID)
	if !r.OK || r.Action != "accept" {
		return s.unexpected("challenge", resp)
	}
	s.match, s.board, s.boardID, s.acked, s.phase = r.Match, boardOf(resp.Data), strconv.FormatInt(originalBase+seq, 10), nil, phaseChallenge
	return nil
}

func (s *slot) accept(ctx context.Context) error {
	b := find(s.board, "Accept")
	if b == nil {
		return fmt.Errorf("no Accept button on the challenge")
	}
	resp, err := s.send(ctx, &request{kind: "accept", customID: b.CustomID}, s.c.click(s.channel, s.b, s.onBoard(), b.CustomID))
	if err != nil {
		return err
	}
	board := boardOf(resp.Data)
	d := drops(board)
	if resp.Type != discordgo.InteractionResponseUpdateMessage || len(d) == 0 {
		return s.unexpected("accept", resp)
	}
	s.board, s.phase, s.post = board, phasePlaying, parseCustomID(d[0].CustomID).Post
	return nil
}

// move drops a disc in a random column whose button is enabled, as the
// player the board names.
func (s *slot) move(ctx context.Context) error {
	btn, mover, err := s.pick()
	if err != nil {
		return err
	}
	r := parseCustomID(btn.CustomID)
	body, seq := s.c.clickSeq(s.channel, mover, s.onBoard(), btn.CustomID)
	resp, err := s.send(ctx, &request{kind: "move", column: r.Column - 1, customID: btn.CustomID}, body)
	if err != nil {
		return err
	}
	board := boardOf(resp.Data)
	next := resp.Type == discordgo.InteractionResponseChannelMessageWithSource && len(drops(board)) > 0 &&
		parseCustomID(drops(board)[0].CustomID).Post > s.post
	if resp.Type != discordgo.InteractionResponseUpdateMessage && !next {
		return s.unexpected("move", resp)
	}
	s.acked = append(s.acked, r.Column-1)
	s.rec.moves++
	if s.ackTotal != nil {
		s.ackTotal.Add(1)
	}
	switch d := drops(board); {
	case next:
		// The click ended a round: its response is the next round's
		// board, a new message (its ID follows from the click's
		// sequence, as a challenge's does), there as the round ends.
		s.rec.ok("next board", 0)
		s.rec.inResponse++
		if s.d != nil {
			s.d.sawBoard(board)
		}
		s.board, s.boardID, s.post = board, strconv.FormatInt(originalBase+seq, 10), parseCustomID(d[0].CustomID).Post
	case len(d) > 0:
		s.board, s.post = board, parseCustomID(d[0].CustomID).Post
	case find(board, "Rematch") != nil:
		s.endMatch()
	case len(discordtest.Buttons(board.Components)) == 0:
		// The round's record (a server that posts the next board as a
		// follow-up, as connectn did before it answered with it).
		s.board, s.phase, s.roundEnd = nil, phaseAwaitNext, time.Now()
	default:
		return s.unexpected("move", resp)
	}
	return nil
}

// pick returns a random enabled column button of the board and the member
// to click it.
func (s *slot) pick() (*discordgo.Button, discordtest.User, error) {
	var open []*discordgo.Button
	for _, b := range drops(s.board) {
		if !b.Disabled {
			open = append(open, b)
		}
	}
	if len(open) == 0 {
		return nil, discordtest.User{}, fmt.Errorf("no enabled column button on the board")
	}
	switch {
	case pings(s.board, s.a.ID):
		return open[s.rng.IntN(len(open))], s.a, nil
	case pings(s.board, s.b.ID):
		return open[s.rng.IntN(len(open))], s.b, nil
	}
	return nil, discordtest.User{}, fmt.Errorf("the board mentions nobody of this match to move")
}

// pings reports whether board names the member id first, as a board names
// the player to move.
func pings(board *discordgo.Message, id string) bool {
	return strings.HasPrefix(board.Content, "<@"+id+">")
}

// awaitNext waits for the next round's board, posted as a follow-up.
func (s *slot) awaitNext(ctx context.Context) error {
	f, post, err := nextBoard(ctx, s.follow, s.match, s.post, s.followTimeout)
	switch {
	case errors.Is(err, errNoNextBoard):
		s.rec.fail("next board", "not posted within "+s.followTimeout.String())
		return err
	case err != nil:
		return err
	}
	// From the round's end as the players saw it to the next board.
	s.rec.ok("next board", time.Since(s.roundEnd))
	s.board, s.boardID, s.phase, s.post = f, f.ID, phasePlaying, post
	return nil
}

// errNoNextBoard is nextBoard's error when no board came in time.
var errNoNextBoard = errors.New("the next round's board did not come in time")

// nextBoard waits on follow for the next board of match after post
// sequence post, for at most timeout, and returns it with its post
// sequence. Follow-ups of anything else (another match, a late or repeated
// post of an earlier board) are passed over. It returns errNoNextBoard
// when none came in time, or ctx's error.
func nextBoard(ctx context.Context, follow <-chan *discordgo.Message, match int64, post int, timeout time.Duration) (*discordgo.Message, int, error) {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		select {
		case f := <-follow:
			d := drops(f)
			if len(d) == 0 {
				continue // an edit or board of something else
			}
			r := parseCustomID(d[0].CustomID)
			if r.Match != match || r.Post <= post {
				continue // a late or repeated post of an earlier board
			}
			return f, r.Post, nil
		case <-timer.C:
			return nil, 0, fmt.Errorf("%w (%v)", errNoNextBoard, timeout)
		case <-ctx.Done():
			return nil, 0, ctx.Err()
		}
	}
}

// endMatch records the slot's match as finished and makes the slot idle.
func (s *slot) endMatch() {
	s.matchesDone++
	if s.keepHistory {
		s.history = append(s.history, doneMatch{id: s.match, acked: s.acked})
	}
	s.reset()
}

// reset makes the slot idle without counting its match.
func (s *slot) reset() {
	s.phase, s.match, s.board, s.boardID, s.acked, s.post = phaseIdle, 0, nil, "", nil, 0
}

// freshChannel moves the slot to a channel of its own that no earlier run
// used.
func (s *slot) freshChannel() {
	s.channelGen++
	n, _ := strconv.ParseInt(s.channel, 10, 64)
	s.setChannel(strconv.FormatInt(n+1_000_000, 10))
	s.reset()
}

// abandon ends the slot's match so that it leaves nothing active behind:
// the challenger withdraws a challenge or forfeits a match. Failures are
// ignored; the slot starts afresh either way.
func (s *slot) abandon(ctx context.Context) {
	if s.match == 0 {
		s.reset()
		return
	}
	id := strconv.FormatInt(s.match, 10)
	var cid string
	switch s.phase {
	case phaseChallenge:
		cid = "cn:decline:" + id
	default:
		cid = "cn:forfeit!:" + id
	}
	s.c.send(ctx, s.c.click(s.channel, s.a, &discordgo.Message{ID: s.boardID}, cid))
	s.reset()
}

func (s *slot) unexpected(kind string, resp *discordgo.InteractionResponse) error {
	what := fmt.Sprintf("response type %d", resp.Type)
	if b := boardOf(resp.Data); len(b.Embeds) > 0 {
		what += fmt.Sprintf(", %q, buttons %v", b.Embeds[0].Title, labels(b))
	}
	s.rec.fail(kind, "unexpected "+kind+" response")
	return fmt.Errorf("unexpected %s response: %s", kind, what)
}

// newMessage reports whether resp posts a new message.
func newMessage(resp *discordgo.InteractionResponse) bool {
	return resp.Type == discordgo.InteractionResponseChannelMessageWithSource
}

// onBoard returns the board as the message a click is on.
func (s *slot) onBoard() *discordgo.Message {
	b := *s.board
	b.ID, b.ChannelID = s.boardID, s.channel
	return &b
}

// boardOf returns the message a response creates or updates (without its
// ID).
func boardOf(d *discordgo.InteractionResponseData) *discordgo.Message {
	if d == nil {
		return &discordgo.Message{}
	}
	return &discordgo.Message{Content: d.Content, Embeds: d.Embeds, Components: d.Components, Flags: d.Flags}
}

// acceptBoard returns a challenge to match as a board that offers Accept
// only, as a player who never saw the challenge's message would click it.
func acceptBoard(match int64) *discordgo.Message {
	return &discordgo.Message{Components: []discordgo.MessageComponent{discordgo.ActionsRow{Components: []discordgo.MessageComponent{
		discordgo.Button{Label: "Accept", Style: discordgo.SuccessButton, CustomID: "cn:accept:" + strconv.FormatInt(match, 10)}}}}}
}

// find returns the button labelled label, nil when there is none.
func find(m *discordgo.Message, label string) *discordgo.Button {
	return discordtest.FindButton(m.Components, label)
}

// drops returns the column buttons of m.
func drops(m *discordgo.Message) []*discordgo.Button {
	var out []*discordgo.Button
	for _, b := range discordtest.Buttons(m.Components) {
		if strings.HasPrefix(b.CustomID, "cn:drop:") {
			out = append(out, b)
		}
	}
	return out
}

func labels(m *discordgo.Message) []string {
	var out []string
	for _, b := range discordtest.Buttons(m.Components) {
		out = append(out, b.Label)
	}
	return out
}

// dropRoute is a parsed button custom_id of the bot's form
// cn:<action>:<match>[:...]; a column's is cn:drop:<match>:<post>:<ply>:<column>.
type dropRoute struct {
	Match       int64
	Post, Ply   int
	Column      int // 1-based
	OK          bool
	Action      string
	MatchString string
}

// parseCustomID reads a custom_id of the bot's form cn:<action>:<match>[:...].
// It is the load generator's own reading of what the buttons say, not the
// bot's parser.
func parseCustomID(id string) dropRoute {
	parts := strings.Split(id, ":")
	if len(parts) < 3 || parts[0] != "cn" {
		return dropRoute{}
	}
	r := dropRoute{Action: parts[1], MatchString: parts[2]}
	var err error
	if r.Match, err = strconv.ParseInt(parts[2], 10, 64); err != nil {
		return dropRoute{}
	}
	if r.Action == "drop" {
		if len(parts) != 6 {
			return dropRoute{}
		}
		var e1, e2, e3 error
		r.Post, e1 = strconv.Atoi(parts[3])
		r.Ply, e2 = strconv.Atoi(parts[4])
		r.Column, e3 = strconv.Atoi(parts[5])
		if errors.Join(e1, e2, e3) != nil {
			return dropRoute{}
		}
	}
	r.OK = true
	return r
}

// recorder keeps one slot's latencies and errors by kind.
type recorder struct {
	lat   map[string][]time.Duration
	errs  map[string]int
	moves int
	// inResponse counts the next boards that came as the response to the
	// click that ended their round (the rest came as follow-ups).
	inResponse int
}

func newRecorder() *recorder {
	return &recorder{lat: map[string][]time.Duration{}, errs: map[string]int{}}
}

func (r *recorder) ok(kind string, took time.Duration) { r.lat[kind] = append(r.lat[kind], took) }

func (r *recorder) fail(kind, why string) { r.errs[kind+": "+why]++ }

// merge adds o to r.
func (r *recorder) merge(o *recorder) {
	for k, v := range o.lat {
		r.lat[k] = append(r.lat[k], v...)
	}
	for k, v := range o.errs {
		r.errs[k] += v
	}
	r.moves += o.moves
	r.inResponse += o.inResponse
}

// percentiles returns p50, p90, p99 and max of d (which it sorts).
func percentiles(d []time.Duration) (p50, p90, p99, maxd time.Duration) {
	if len(d) == 0 {
		return
	}
	slices.Sort(d)
	at := func(p float64) time.Duration {
		i := int(p*float64(len(d))+0.999999) - 1
		return d[max(0, min(i, len(d)-1))]
	}
	return at(0.50), at(0.90), at(0.99), d[len(d)-1]
}
