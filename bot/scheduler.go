package bot

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/sessions"
)

// Timing of the work after a response.
const (
	// postGrace is how long a board post waits for the transport to say the
	// response that announced it was delivered (Delivered posts it at once)
	// before the scheduler posts it anyway.
	postGrace = 5 * time.Second
	// postLease is how long a board post that is under way keeps others
	// (the scheduler, another process) from trying it too; a post that
	// failed is tried again once it ends.
	postLease = 30 * time.Second
	// workTimeout bounds one piece of background work.
	workTimeout = 30 * time.Second
	// afterTTL is how long work queued for Delivered waits before it is
	// dropped (a transport that never delivered the response); the
	// scheduler still does the durable part of it.
	afterTTL = time.Minute
	// dueBatch is how many due sessions RunDue settles at most per call.
	dueBatch = 100
)

// errNothingDue tells a store update that there is nothing to do after all.
var errNothingDue = errors.New("nothing due")

// afterQueue holds work to do once Discord has an interaction's response,
// by interaction ID.
type afterQueue struct {
	mu sync.Mutex
	m  map[string]*afterTask
}

type afterTask struct {
	queued time.Time
	fns    []func(context.Context)
}

// afterResponse queues fn to run once the response to i is delivered.
func (h *Handler) afterResponse(i *discordgo.Interaction, fn func(context.Context)) {
	h.after.mu.Lock()
	defer h.after.mu.Unlock()
	if h.after.m == nil {
		h.after.m = make(map[string]*afterTask)
	}
	t := h.after.m[i.ID]
	if t == nil {
		t = &afterTask{queued: time.Now()}
		h.after.m[i.ID] = t
	}
	t.fns = append(t.fns, fn)
}

// Delivered tells the handler that Discord has the response to i, so the
// work that waited for it may start: posting the next round's board as a
// follow-up, learning the ID of a new message. The work runs in the
// background; Close waits for it. Transports call Delivered after sending
// the response; calling it for an interaction with no work is harmless.
func (h *Handler) Delivered(i *discordgo.Interaction) {
	if i == nil {
		return
	}
	h.running.Add(1) // before the queue forgets the work, for WaitIdle
	defer h.running.Add(-1)
	h.after.mu.Lock()
	t := h.after.m[i.ID]
	delete(h.after.m, i.ID)
	h.after.mu.Unlock()
	if t == nil {
		return
	}
	for _, fn := range t.fns {
		h.spawn(fn)
	}
}

// Undelivered tells the handler that the response to i could not be sent:
// the work that waited for it is dropped (what must survive, the board post,
// is in the store and the scheduler does it).
func (h *Handler) Undelivered(i *discordgo.Interaction) {
	if i == nil {
		return
	}
	h.after.mu.Lock()
	delete(h.after.m, i.ID)
	h.after.mu.Unlock()
}

// sweepAfter drops work queued more than afterTTL ago.
func (h *Handler) sweepAfter() {
	h.after.mu.Lock()
	defer h.after.mu.Unlock()
	for id, t := range h.after.m {
		if time.Since(t.queued) > afterTTL {
			delete(h.after.m, id)
		}
	}
}

// spawn runs fn in the background with a bounded context, logging a panic
// instead of crashing.
func (h *Handler) spawn(fn func(context.Context)) {
	h.work.Add(1)
	h.running.Add(1)
	go func() {
		defer h.work.Done()
		defer h.running.Add(-1)
		defer func() {
			if p := recover(); p != nil {
				h.log.Error("panic in background work", "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			}
		}()
		ctx, cancel := context.WithTimeout(h.workCtx, workTimeout)
		defer cancel()
		fn(ctx)
	}()
}

// Close waits for the background work under way (follow-ups, edits) to
// finish, or for ctx to end, whichever comes first; then it cancels what is
// left. It returns ctx's error if the work did not finish in time. The
// handler must not be used after Close.
func (h *Handler) Close(ctx context.Context) error {
	done := make(chan struct{})
	go func() {
		h.work.Wait()
		close(done)
	}()
	var err error
	select {
	case <-done:
	case <-ctx.Done():
		err = fmt.Errorf("close handler: background work still running: %w", ctx.Err())
	}
	h.closeOnce.Do(h.stopWork)
	return err
}

// RunScheduler settles due sessions (RunDue) at once, then every interval,
// until ctx ends. A deadline that passed while the bot was down is thus
// settled within interval of start-up. Failures are logged and retried on
// the next tick.
func (h *Handler) RunScheduler(ctx context.Context, interval time.Duration) {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		if _, err := h.RunDue(ctx); err != nil && ctx.Err() == nil {
			h.log.Warn("settling due sessions", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// RunDue settles every session that has work due at the handler's clock:
// a challenge nobody answered in time is cancelled and a match whose turn
// ran out is forfeited by the player to move (their message edited to say
// so, through the messenger), and a board that still has to be posted is
// posted. It returns how many sessions it settled, and the store's error
// if it could not list them; a failure on one session is logged and does
// not stop the others.
func (h *Handler) RunDue(ctx context.Context) (int, error) {
	h.sweepAfter()
	channels, err := h.store.Due(ctx, h.now(), dueBatch)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, ch := range channels {
		if ctx.Err() != nil {
			return n, ctx.Err()
		}
		settled, err := h.settle(ctx, ch)
		if err != nil {
			h.log.Warn("settling a due session", "channel", ch, "err", err)
		}
		if settled {
			n++
		}
	}
	return n, nil
}

// settle does what is due in the channel's session: an expired deadline
// first, else a board post.
func (h *Handler) settle(ctx context.Context, channelID string) (bool, error) {
	now := h.now()
	var (
		kind       string
		post, bots bool
		botMatch   int64
	)
	s, err := h.store.Update(ctx, channelID, func(s *sessions.Session) error {
		kind, post, bots = h.expire(s, now), false, false
		if kind != "" {
			return nil
		}
		if aiToMove(s) && !now.Before(h.deadline(s)) {
			bots, botMatch = true, s.ID // played below, by aiSettle, in an update of its own
			return errNothingDue
		}
		if s.Phase.Active() && !s.PostDue.IsZero() && !now.Before(s.PostDue) {
			s.PostDue, post = now.Add(postLease), true
			return nil
		}
		return errNothingDue
	})
	switch {
	case bots:
		h.aiSettle(ctx, channelID, botMatch)
		return true, nil
	case errors.Is(err, errNothingDue), errors.Is(err, sessions.ErrNotFound):
		return false, nil
	case errors.Is(err, sessions.ErrCorrupt):
		id, aerr := h.store.Abandon(ctx, channelID)
		if aerr != nil {
			return false, aerr
		}
		h.log.Warn("abandoned an unreadable session", "match", id, "channel", channelID, "err", err)
		return true, nil
	case err != nil:
		return false, err
	}
	if kind != "" {
		h.expired(ctx, s, kind)
	}
	if post {
		h.sendBoard(ctx, s)
	}
	return true, nil
}

// deadline returns when s expires: its Deadline, or for a session stored
// before deadlines existed, its last change plus the timeout of its phase.
func (h *Handler) deadline(s *sessions.Session) time.Time {
	if !s.Deadline.IsZero() {
		return s.Deadline
	}
	if s.Phase == sessions.PhaseChallenge {
		return s.UpdatedAt.Add(h.challengeTimeout)
	}
	return s.UpdatedAt.Add(h.turnTimeout)
}

// expire ends s if its deadline has passed at now: a challenge is cancelled
// as expired, a match is forfeited by the player to move, as a timeout. It
// returns "challenge" or "turn" for the deadline that fired, "" when none
// did.
func (h *Handler) expire(s *sessions.Session, now time.Time) string {
	if !s.Phase.Active() || now.Before(h.deadline(s)) || aiToMove(s) {
		return "" // the bot's turn never runs out: the scheduler plays it
	}
	if s.Phase == sessions.PhaseChallenge {
		s.Phase, s.End = sessions.PhaseCancelled, sessions.EndExpired
		return "challenge"
	}
	loser := s.Match.ToMove()
	if err := s.Match.Forfeit(loser); err != nil {
		// Only a match already over refuses; the store settles it.
		return ""
	}
	s.Phase, s.End = sessions.PhaseFinished, sessions.EndTimeout
	return "turn"
}

// expired reports a deadline that fired on s and edits its message.
func (h *Handler) expired(ctx context.Context, s *sessions.Session, kind string) {
	h.metrics.DeadlineFired(kind)
	attrs := []any{"match", s.ID, "guild", s.GuildID, "channel", s.ChannelID, "deadline", kind}
	if kind == "turn" {
		attrs = append(attrs, "loser", s.Member(s.Match.Winner().Other()).ID)
	}
	h.log.Info("deadline passed", attrs...)
	h.editBoard(ctx, s, h.renderSettled(ctx, s))
}

// renderSettled draws a session that is no longer active as its message
// should read, with the players' record against each other for a finished
// match between members.
func (h *Handler) renderSettled(ctx context.Context, s *sessions.Session) *message {
	if s.Phase != sessions.PhaseFinished {
		return renderSession(s)
	}
	return h.renderMatchOver(ctx, s, false)
}

// pair returns the record of s's first player against the second in this
// server, or nil (and a log line) when the store cannot say.
func (h *Handler) pair(ctx context.Context, s *sessions.Session) *sessions.PairRecord {
	if s.AI != "" {
		return nil
	}
	rec, err := h.store.Pair(ctx, s.GuildID, s.Players[0].ID, s.Players[1].ID)
	if err != nil {
		h.log.Warn("reading the record between two players", "match", s.ID, "err", err)
		return nil
	}
	return &rec
}

// editBoard replaces s's board message with msg: through the latest
// interaction webhook while its token lives, else with the bot token when
// there is one. When neither can reach the message, it stays as it is and
// the next click on it shows msg instead (the click finds the session
// settled). Failures are logged at warn level.
func (h *Handler) editBoard(ctx context.Context, s *sessions.Session, msg *message) {
	if h.messenger == nil {
		return
	}
	now := h.now()
	var err error
	switch {
	case s.Webhook.Valid(now) && s.Webhook.Message != "":
		err = h.messenger.EditWebhookMessage(ctx, s.Webhook.AppID, s.Webhook.Token, s.Webhook.Message, msg)
	case h.messenger.HasBotToken() && s.MessageID != "":
		err = h.messenger.EditChannelMessage(ctx, s.ChannelID, s.MessageID, msg)
	default:
		h.log.Info("the board message cannot be reached now; the next click on it will show the result",
			"match", s.ID, "channel", s.ChannelID)
		return
	}
	if err != nil {
		h.log.Warn("editing the board message", "match", s.ID, "channel", s.ChannelID, "gone", gone(err), "err", restErrorText(err))
	}
}

// postPending posts the board that the session of match in channelID still
// has to post, unless someone else is posting it already. Delivered runs
// it as soon as the response that ended the round is delivered.
func (h *Handler) postPending(ctx context.Context, channelID string, match int64) {
	now := h.now()
	s, err := h.store.Update(ctx, channelID, func(s *sessions.Session) error {
		if s.ID != match || !s.Phase.Active() || s.PostDue.IsZero() || s.PostDue.After(now.Add(postGrace)) {
			return errNothingDue // posted, or being posted, already
		}
		s.PostDue = now.Add(postLease)
		return nil
	})
	if err != nil {
		if !errors.Is(err, errNothingDue) {
			h.log.Warn("claiming a board post", "match", match, "channel", channelID, "err", err)
		}
		return
	}
	h.sendBoard(ctx, s)
}

// errUnreachable means neither a live webhook nor a bot token can reach the
// channel.
var errUnreachable = errors.New("no live interaction token and no bot token")

// sendBoard posts s's live board as a new message: a follow-up through the
// latest interaction webhook while its token lives, else a channel message
// with the bot token. On success the session learns the new message; on a
// failure that may pass the lease runs out and the scheduler tries again;
// on one that will not (the channel gone, no access, no way in) the post is
// given up, logged, and /connectn board posts the board when asked.
func (h *Handler) sendBoard(ctx context.Context, s *sessions.Session) {
	now := h.now()
	msg := renderBoard(s)
	var (
		id   string
		hook sessions.Webhook
		err  = errUnreachable
	)
	switch {
	case h.messenger == nil:
	case s.Webhook.Valid(now):
		err = h.early(ctx, func() error {
			var err error
			id, err = h.messenger.FollowUp(ctx, s.Webhook.AppID, s.Webhook.Token, msg)
			return err
		}, discordgo.ErrCodeUnknownWebhook)
		hook = s.Webhook
		hook.Message = id
	case h.messenger.HasBotToken():
		id, err = h.messenger.SendChannelMessage(ctx, s.ChannelID, msg)
	}
	seq := s.PostSeq
	if err != nil {
		final := gone(err) || errors.Is(err, errUnreachable)
		h.log.Warn("posting the board", "match", s.ID, "channel", s.ChannelID, "round", s.Match.Round().Number(),
			"retry", !final, "err", restErrorText(err))
		if final {
			h.recordPost(ctx, s, seq, func(s *sessions.Session) { s.PostDue = time.Time{} })
		}
		return
	}
	h.recordPost(ctx, s, seq, func(s *sessions.Session) {
		s.MessageID, s.Webhook, s.PostDue = id, hook, time.Time{}
	})
}

// recordPost applies set to the session of posted if it is still the same
// match at the same board post.
func (h *Handler) recordPost(ctx context.Context, posted *sessions.Session, seq int, set func(*sessions.Session)) {
	_, err := h.store.Update(ctx, posted.ChannelID, func(s *sessions.Session) error {
		if s.ID != posted.ID || s.PostSeq != seq {
			return errNothingDue
		}
		set(s)
		return nil
	})
	if err != nil && !errors.Is(err, errNothingDue) {
		h.log.Warn("recording a board post", "match", posted.ID, "channel", posted.ChannelID, "err", err)
	}
}

// learnMessageID records the ID of the message the response to i created,
// as the board message of match, unless another was recorded since.
func (h *Handler) learnMessageID(ctx context.Context, i *discordgo.Interaction, match int64, seq int) {
	if h.messenger == nil {
		return
	}
	var id string
	err := h.early(ctx, func() error {
		var err error
		id, err = h.messenger.OriginalMessageID(ctx, i.AppID, i.Token)
		return err
	}, discordgo.ErrCodeUnknownWebhook, discordgo.ErrCodeUnknownMessage)
	if err != nil {
		h.log.Warn("reading the ID of a new message", "match", match, "channel", i.ChannelID, "err", restErrorText(err))
		return
	}
	_, err = h.store.Update(ctx, i.ChannelID, func(s *sessions.Session) error {
		if s.ID != match || s.PostSeq != seq || s.MessageID != "" {
			return errNothingDue
		}
		s.MessageID = id
		return nil
	})
	if err != nil && !errors.Is(err, errNothingDue) {
		h.log.Warn("recording the ID of a new message", "match", match, "channel", i.ChannelID, "err", err)
	}
}

// WaitIdle waits until no work waits for a delivery and none runs in the
// background, or until ctx ends (returning its error). Tests and tools use
// it to know that every follow-up and edit is done.
func (h *Handler) WaitIdle(ctx context.Context) error {
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for {
		h.after.mu.Lock()
		queued := len(h.after.m)
		h.after.mu.Unlock()
		if queued == 0 && h.running.Load() == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for the handler's work: %w", ctx.Err())
		case <-tick.C:
		}
	}
}

// earlyRetries are the waits between tries of a webhook call that Discord
// may not accept yet: over HTTP, the response that acknowledges the
// interaction and a follow-up sent at once can cross, and Discord then
// answers the follow-up as if the webhook did not exist.
var earlyRetries = []time.Duration{50 * time.Millisecond, 100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond}

// early calls fn, and again after each of earlyRetries while it fails with
// one of the Discord error codes given, or until ctx ends.
func (h *Handler) early(ctx context.Context, fn func() error, codes ...int) error {
	err := fn()
	for _, wait := range earlyRetries {
		if err == nil || !hasCode(err, codes...) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(wait):
		}
		err = fn()
	}
	return err
}

// hasCode reports whether err is a Discord API error with one of codes.
func hasCode(err error, codes ...int) bool {
	var re *discordgo.RESTError
	if !errors.As(err, &re) || re.Message == nil {
		return false
	}
	return slices.Contains(codes, re.Message.Code)
}
