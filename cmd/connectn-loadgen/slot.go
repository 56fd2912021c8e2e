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
)

// slot is one channel where two made-up members play match after match:
// challenge, accept, then legal moves read from the buttons of each
// response until the match ends. When a round ends, the response is the
// round's record and the next board arrives as a follow-up through the
// webhook (see hooks). A slot is used by one goroutine at a time.
type slot struct {
	n        int
	channel  string
	a, b     *wireUser // the challenger and the opponent
	c        *client
	follow   chan followUp
	rng      *rand.Rand
	settings matchSettings
	rec      *recorder
	// followTimeout bounds the wait for the next round's board.
	followTimeout time.Duration

	phase   slotPhase
	match   int64        // the match being played, 0 before the challenge is answered
	board   *messageData // the last acknowledged message with live buttons
	boardID string       // its message ID
	post    int          // the board's post sequence, from its custom_ids
	acked   []int        // columns (0-based) of the acknowledged drops of this match, in order
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
	channelGen  int // bumped when the channel is given up for a fresh one
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

func newSlot(n int, c *client, h *hooks, channelBase int64, s matchSettings, seed uint64) *slot {
	sl := &slot{
		n: n, c: c, settings: s, rec: newRecorder(),
		a:             userObject(userBase + int64(2*n+1)),
		b:             userObject(userBase + int64(2*n+2)),
		rng:           rand.New(rand.NewPCG(seed, uint64(n))),
		followTimeout: 10 * time.Second,
	}
	if h != nil {
		sl.follow = h.subscribe(n)
	}
	sl.channel = strconv.FormatInt(channelBase+int64(n), 10)
	return sl
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
func (s *slot) send(ctx context.Context, r *request, body []byte) (*wireResponse, error) {
	s.inflight = r
	ex := s.c.send(ctx, body)
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
	if resp.Type == respNewMessage && resp.Data != nil && resp.Data.Flags&flagEphemeral != 0 {
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
	body, seq := s.c.challenge(s.n, s.channel, s.a, s.b, s.settings)
	resp, err := s.send(ctx, &request{kind: "challenge"}, body)
	var ref *refusal
	if errors.As(err, &ref) && strings.Contains(ref.text, "already has a challenge") {
		s.freshChannel() // a session of an earlier run holds it
	}
	if err != nil {
		return err
	}
	accept := find(resp.Data, "Accept")
	if resp.Type != respNewMessage || accept == nil {
		return s.unexpected("challenge", resp)
	}
	r := parseCustomID(accept.CustomID)
	if !r.OK || r.Action != "accept" {
		return s.unexpected("challenge", resp)
	}
	s.match, s.board, s.boardID, s.acked, s.phase = r.Match, resp.Data, strconv.FormatInt(originalBase+seq, 10), nil, phaseChallenge
	return nil
}

func (s *slot) accept(ctx context.Context) error {
	b := find(s.board, "Accept")
	if b == nil {
		return fmt.Errorf("no Accept button on the challenge")
	}
	resp, err := s.send(ctx, &request{kind: "accept", customID: b.CustomID}, s.c.click(s.n, s.channel, s.b, s.boardID, s.board, b.CustomID))
	if err != nil {
		return err
	}
	d := drops(resp.Data)
	if resp.Type != respUpdateMessage || len(d) == 0 {
		return s.unexpected("accept", resp)
	}
	s.board, s.phase, s.post = resp.Data, phasePlaying, parseCustomID(d[0].CustomID).Post
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
	resp, err := s.send(ctx, &request{kind: "move", column: r.Column - 1, customID: btn.CustomID},
		s.c.click(s.n, s.channel, mover, s.boardID, s.board, btn.CustomID))
	if err != nil {
		return err
	}
	if resp.Type != respUpdateMessage {
		return s.unexpected("move", resp)
	}
	s.acked = append(s.acked, r.Column-1)
	s.rec.moves++
	if s.ackTotal != nil {
		s.ackTotal.Add(1)
	}
	switch d := drops(resp.Data); {
	case len(d) > 0:
		s.board, s.post = resp.Data, parseCustomID(d[0].CustomID).Post
	case find(resp.Data, "Rematch") != nil:
		s.endMatch()
	case len(allButtons(resp.Data)) == 0:
		// The round's record: the next board comes as a follow-up.
		s.board, s.phase = nil, phaseAwaitNext
	default:
		return s.unexpected("move", resp)
	}
	return nil
}

// pick returns a random enabled column button of the board and the member
// to click it.
func (s *slot) pick() (button, *wireUser, error) {
	live := drops(s.board)
	var open []button
	for _, b := range live {
		if !b.Disabled {
			open = append(open, b)
		}
	}
	if len(open) == 0 {
		return button{}, nil, fmt.Errorf("no enabled column button on the board")
	}
	var mover *wireUser
	switch s.board.toMove() {
	case s.a.ID:
		mover = s.a
	case s.b.ID:
		mover = s.b
	default:
		return button{}, nil, fmt.Errorf("the board mentions nobody of this match to move")
	}
	return open[s.rng.IntN(len(open))], mover, nil
}

// awaitNext waits for the next round's board, posted as a follow-up.
func (s *slot) awaitNext(ctx context.Context) error {
	timer := time.NewTimer(s.followTimeout)
	defer timer.Stop()
	for {
		select {
		case f := <-s.follow:
			d := drops(f.data)
			if len(d) == 0 {
				continue // an edit or board of something else
			}
			r := parseCustomID(d[0].CustomID)
			if r.Match != s.match || r.Post <= s.post {
				continue // a late or repeated post of an earlier board
			}
			s.rec.ok("follow-up", 0)
			s.board, s.boardID, s.phase, s.post = f.data, f.id, phasePlaying, r.Post
			return nil
		case <-timer.C:
			s.rec.fail("follow-up", "next board not posted within "+s.followTimeout.String())
			return fmt.Errorf("the next round's board did not come within %v", s.followTimeout)
		case <-ctx.Done():
			return ctx.Err()
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
	s.channel = strconv.FormatInt(n+1_000_000, 10)
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
	s.c.send(ctx, s.c.click(s.n, s.channel, s.a, s.boardID, nil, cid))
	s.reset()
}

func (s *slot) unexpected(kind string, resp *wireResponse) error {
	what := fmt.Sprintf("response type %d", resp.Type)
	if resp.Data != nil {
		what += fmt.Sprintf(", %q, buttons %v", resp.Data.title(), labels(resp.Data))
	}
	s.rec.fail(kind, "unexpected "+kind+" response")
	return fmt.Errorf("unexpected %s response: %s", kind, what)
}

// find returns the button labelled label, nil when there is none.
func find(d *messageData, label string) *button {
	for _, b := range allButtons(d) {
		if b.Label == label {
			return &b
		}
	}
	return nil
}

// drops returns the column buttons of d.
func drops(d *messageData) []button {
	var out []button
	for _, b := range allButtons(d) {
		if strings.HasPrefix(b.CustomID, "cn:drop:") {
			out = append(out, b)
		}
	}
	return out
}

func allButtons(d *messageData) []button {
	b, _ := d.buttons()
	return b
}

func labels(d *messageData) []string {
	var out []string
	for _, b := range allButtons(d) {
		out = append(out, b.Label)
	}
	return out
}

// recorder keeps one slot's latencies and errors by kind.
type recorder struct {
	lat   map[string][]time.Duration
	errs  map[string]int
	moves int
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
