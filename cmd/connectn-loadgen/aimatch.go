package main

// Matches against the bot beside the human ones (-ai-matches): with it, each
// moves phase of -matches is followed by a second one, the same human
// matches with that many matches against the bot playing beside them, so
// that the humans' latency with and without the AI's searches can be read
// off one run.

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot/discordtest"
)

// responseWindow is Discord's time for the first answer to an interaction.
const responseWindow = 3 * time.Second

// aiOptions are the flags of the matches against the bot.
type aiOptions struct {
	matches int       // -ai-matches: matches against the bot at once, 0 for none
	boards  []aiBoard // -ai-boards: the slots take them in turn
	wins    int       // -ai-wins: round wins that take a match against the bot
}

// aiBoard is a board size and the bot's level on it.
type aiBoard struct {
	rows, columns int
	level         string
}

func (b aiBoard) String() string { return fmt.Sprintf("%dx%d:%s", b.columns, b.rows, b.level) }

// aiFlags declares the flags of the matches against the bot on fs; the
// function it returns checks them once fs is parsed.
func aiFlags(fs *flag.FlagSet, o *options) func() error {
	fs.IntVar(&o.ai.matches, "ai-matches", 0, "matches against the bot played beside the human ones: each moves phase is run again with them (0: none)")
	boards := fs.String("ai-boards", "7x6:perfect,12x12:hard", "with -ai-matches: comma-separated COLUMNSxROWS:LEVEL, taken by the matches against the bot in turn")
	fs.IntVar(&o.ai.wins, "ai-wins", 1, "with -ai-matches: round wins that take a match against the bot")
	return func() error {
		if o.ai.matches < 0 {
			return fmt.Errorf("-ai-matches: %d is negative", o.ai.matches)
		}
		if o.ai.wins < 1 {
			return fmt.Errorf("-ai-wins: %d is not positive", o.ai.wins)
		}
		var err error
		o.ai.boards, err = parseAIBoards(*boards)
		return err
	}
}

// parseAIBoards reads -ai-boards.
func parseAIBoards(s string) ([]aiBoard, error) {
	var out []aiBoard
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		size, level, ok := strings.Cut(f, ":")
		cs, rs, ok2 := strings.Cut(size, "x")
		c, err1 := strconv.Atoi(cs)
		r, err2 := strconv.Atoi(rs)
		if !ok || !ok2 || err1 != nil || err2 != nil || c < 4 || r < 4 || level == "" {
			return nil, fmt.Errorf("-ai-boards: %q is not COLUMNSxROWS:LEVEL", f)
		}
		out = append(out, aiBoard{rows: r, columns: c, level: level})
	}
	return out, nil
}

// aiSlot is one channel where a made-up member plays the bot, match after
// match: /connectn challenge without an opponent (the bot) at the slot's
// size and level, then random legal columns until the match ends. The bot
// replies inside the click's response, or, when it cannot in time, the
// response is a deferred update and the board with its disc arrives as an
// edit of @original through the webhook.
type aiSlot struct {
	channel string
	a       discordtest.User
	c       *client
	edits   chan *discordgo.Message
	follow  chan *discordgo.Message
	rng     *rand.Rand
	board   aiBoard
	wins    int
	rec     *recorder
	// The AI's answers: clicks answered with the bot's disc on a board
	// still in play (inline or by a deferred edit), their latency from the
	// click to the board with the bot's disc.
	deferred, beyond int // deferred responses; responses later than the window
	matchesDone      int

	match int64
	msg   *discordgo.Message // the live board
	msgID string
	post  int
}

// newAISlots returns the slots of o's matches against the bot in channels
// and for members no earlier phase used.
func (e *env) newAISlots(o *options) []*aiSlot {
	base := e.chBase + e.seq.Add(1)*10_000
	out := make([]*aiSlot, o.ai.matches)
	for i := range out {
		ch := strconv.FormatInt(base+int64(i), 10)
		out[i] = &aiSlot{channel: ch, a: player(userBase + 900_000 + int64(i)), c: e.c,
			edits: e.d.subscribeEdits(ch), follow: e.d.subscribe(ch), board: o.ai.boards[i%len(o.ai.boards)], wins: o.ai.wins,
			rng: rand.New(rand.NewPCG(o.seed, uint64(base)+uint64(i))), rec: newRecorder()}
	}
	return out
}

// step takes the slot's next action: a challenge when no match is being
// played, else a click.
func (s *aiSlot) step(ctx context.Context) error {
	if s.msg == nil {
		return s.challenge(ctx)
	}
	return s.drop(ctx)
}

func (s *aiSlot) challenge(ctx context.Context) error {
	seq, e := s.c.next(s.channel, s.a)
	body := discordtest.Slash(e, "connectn", "challenge", discordtest.IntArg("rows", s.board.rows), discordtest.IntArg("columns", s.board.columns),
		discordtest.IntArg("connect", 4), discordtest.IntArg("wins", s.wins), discordtest.StringArg("level", s.board.level))
	ex := s.c.send(ctx, body)
	if err := s.answered("ai challenge", ex); err != nil {
		return err
	}
	d := drops(boardOf(ex.resp.Data))
	if !newMessage(ex.resp) || len(d) == 0 {
		s.rec.fail("ai challenge", "unexpected response")
		return fmt.Errorf("unexpected response to a challenge of the bot: type %d", ex.resp.Type)
	}
	r := parseCustomID(d[0].CustomID)
	s.match, s.msg, s.msgID, s.post = r.Match, boardOf(ex.resp.Data), strconv.FormatInt(originalBase+seq, 10), r.Post
	return nil
}

// answered records a response's latency under kind, and its lateness, and
// returns an error for a failed request or a private refusal.
func (s *aiSlot) answered(kind string, ex exchange) error {
	if ex.took > responseWindow {
		s.beyond++
	}
	if ex.errKind != "" {
		s.rec.fail(kind, ex.errKind)
		return fmt.Errorf("%s: %s", kind, ex.errKind)
	}
	s.rec.ok(kind, ex.took)
	if ex.resp.Data != nil && ex.resp.Data.Flags&discordgo.MessageFlagsEphemeral != 0 {
		s.rec.fail(kind, "refused: "+ex.resp.Data.Content)
		return &refusal{text: ex.resp.Data.Content}
	}
	return nil
}

// drop plays a random open column and waits for the bot's answer.
func (s *aiSlot) drop(ctx context.Context) error {
	var open []*discordgo.Button
	for _, b := range drops(s.msg) {
		if !b.Disabled {
			open = append(open, b)
		}
	}
	if len(open) == 0 {
		s.rec.fail("ai click", "no open column")
		return errors.New("no open column on the board")
	}
	btn := open[s.rng.IntN(len(open))]
	on := *s.msg
	on.ID, on.ChannelID = s.msgID, s.channel
	// Edits of an earlier board are of no interest now.
	for len(s.edits) > 0 {
		<-s.edits
	}
	start := time.Now()
	body, seq := s.c.clickSeq(s.channel, s.a, &on, btn.CustomID)
	ex := s.c.send(ctx, body)
	if err := s.answered("ai click", ex); err != nil {
		return err
	}
	board := boardOf(ex.resp.Data)
	switch ex.resp.Type {
	case discordgo.InteractionResponseChannelMessageWithSource:
		// The click ended a round: the response is the next round's
		// board (with the bot's opening disc when it opens).
		d := drops(board)
		if len(d) == 0 || parseCustomID(d[0].CustomID).Post <= s.post {
			s.rec.fail("ai click", "unexpected new message")
			return errors.New("unexpected new message after a click")
		}
		s.rec.ok("ai round end", time.Since(start))
		s.msg, s.msgID, s.post = board, strconv.FormatInt(originalBase+seq, 10), parseCustomID(d[0].CustomID).Post
		return nil
	case discordgo.InteractionResponseUpdateMessage:
	case discordgo.InteractionResponseDeferredMessageUpdate:
		s.deferred++
		var err error
		if board, err = s.awaitEdit(ctx); err != nil {
			return err
		}
	default:
		s.rec.fail("ai click", fmt.Sprintf("response type %d", ex.resp.Type))
		return fmt.Errorf("unexpected response type %d to a click", ex.resp.Type)
	}
	took := time.Since(start)
	switch d := drops(board); {
	case len(d) > 0:
		// The bot's disc is on the board, which plays on.
		s.rec.ok("ai move", took)
		s.msg, s.post = board, parseCustomID(d[0].CustomID).Post
	case find(board, "Rematch") != nil:
		s.rec.ok("ai match end", took)
		s.matchesDone++
		s.msg, s.match = nil, 0
	case len(discordtest.Buttons(board.Components)) == 0:
		// A round's record: the next board comes as a follow-up, with
		// the bot's opening disc when it opens.
		s.rec.ok("ai round end", took)
		return s.awaitNext(ctx)
	default:
		s.rec.fail("ai click", "unexpected board")
		return errors.New("unexpected board after a click")
	}
	return nil
}

// awaitEdit waits for the edit of @original that follows a deferred
// update: the board with the bot's disc.
func (s *aiSlot) awaitEdit(ctx context.Context) (*discordgo.Message, error) {
	timer := time.NewTimer(30 * time.Second)
	defer timer.Stop()
	select {
	case m := <-s.edits:
		return m, nil
	case <-timer.C:
		s.rec.fail("ai click", "no edit within 30s of a deferred update")
		return nil, errors.New("no edit after a deferred update")
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// awaitNext waits for the next round's board, posted as a follow-up.
func (s *aiSlot) awaitNext(ctx context.Context) error {
	f, post, err := nextBoard(ctx, s.follow, s.match, s.post, 15*time.Second)
	switch {
	case errors.Is(err, errNoNextBoard):
		s.rec.fail("ai follow-up", "next board not posted within 15s")
		return err
	case err != nil:
		return err
	}
	s.msg, s.msgID, s.post = f, f.ID, post
	return nil
}

// abandon forfeits the slot's match, if any, so that nothing stays
// active; failures are ignored.
func (s *aiSlot) abandon(ctx context.Context) {
	if s.match != 0 {
		s.c.send(ctx, s.c.click(s.channel, s.a, &discordgo.Message{ID: s.msgID}, "cn:forfeit!:"+strconv.FormatInt(s.match, 10)))
	}
	s.msg, s.match = nil, 0
}

// aiResult is what the matches against the bot of one phase measured.
type aiResult struct {
	matches, done    int
	rec              *recorder
	deferred, beyond int
}

// aiMovePhase runs the moves phase of m human matches with o.ai.matches
// matches against the bot playing beside them, from before the human
// phase starts until after it ends.
func (e *env) aiMovePhase(ctx context.Context, m int, o *options) (phaseResult, aiResult, error) {
	slots := e.newAISlots(o)
	aiCtx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for _, s := range slots {
		wg.Go(func() {
			for aiCtx.Err() == nil {
				if err := s.step(ctx); err != nil && ctx.Err() == nil {
					s.abandon(ctx)
				}
			}
		})
	}
	r, err := e.movePhase(ctx, m, o)
	stop()
	wg.Wait()
	cleanCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	res := aiResult{matches: len(slots), rec: newRecorder()}
	for _, s := range slots {
		s.abandon(cleanCtx)
		res.rec.merge(s.rec)
		res.deferred += s.deferred
		res.beyond += s.beyond
		res.done += s.matchesDone
	}
	r.kind = "moves+AI"
	return r, res, err
}

// reportAI prints the matches against the bot of a phase, and the human
// moves' latency beside them against alone, the phase before.
func reportAI(w io.Writer, alone, with phaseResult, a aiResult, boards []aiBoard) {
	names := make([]string, len(boards))
	for i, b := range boards {
		names[i] = b.String()
	}
	fmt.Fprintf(w, "   against the bot: %d matches at once (%s), %d finished\n", a.matches, strings.Join(names, ", "), a.done)
	moves := a.rec.lat["ai move"]
	n := len(moves)
	p50, _, p99, mx := percentiles(moves)
	fmt.Fprintf(w, "   AI moves   %7d  click → board with the bot's disc: p50 %s  p99 %s  max %s\n", n, ms(p50), ms(p99), ms(mx))
	fmt.Fprintf(w, "   AI clicks  %7d  deferred %d, answered later than %v: %d\n", len(a.rec.lat["ai click"]), a.deferred, responseWindow, a.beyond)
	if len(a.rec.errs) > 0 {
		fmt.Fprintf(w, "   AI errors: %s\n", formatCounts(a.rec.errs))
	}
	h50, _, h99, _ := percentiles(alone.rec.lat["move"])
	w50, _, w99, _ := percentiles(with.rec.lat["move"])
	ratio := 0.0
	if h99 > 0 {
		ratio = float64(w99) / float64(h99)
	}
	fmt.Fprintf(w, "   human moves: alone p50 %s p99 %s, server CPU %s/s; with the AI p50 %s p99 %s, server CPU %s/s; p99 ratio %.2f\n",
		ms(h50), ms(h99), cpuPerSecond(alone), ms(w50), ms(w99), cpuPerSecond(with), ratio)
}

// cpuPerSecond returns the server's CPU time per second of a phase.
func cpuPerSecond(r phaseResult) string {
	if r.cpu < 0 || r.elapsed <= 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.0fms", float64(r.cpu)/float64(time.Millisecond)/r.elapsed.Seconds())
}
