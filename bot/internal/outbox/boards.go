package outbox

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot/internal/render"
	"github.com/connectn/connectn/internal/clock"

	"github.com/connectn/connectn/bot/internal/limits"
	"github.com/connectn/connectn/locale"
	"github.com/connectn/connectn/sessions"
)

// Boards reaches the board messages of sessions after the responses that
// made them: it edits a board when a deadline settles it or the bot moves
// late, posts the next round's board as a follow-up (or with the bot
// token), learns the ID of a message a response created, and finishes a
// deferred private answer. Its rendering of a settled session reads the
// players' record from the store. All of it runs in the runner's
// background work or the scheduler, never inside a response. The fields
// are set once, before first use.
type Boards struct {
	Store     BoardStore
	Messenger Messenger // nil: nothing is posted or edited
	Log       *slog.Logger
	Metrics   Metrics
	Clock     clock.Clock // times every wait and every timestamp
	Policy    sessions.Policy
	// Analysis reports whether a finished match of these settings gets
	// an Analysis button.
	Analysis func(*sessions.Session) bool
	// Retry bounds the tries of each REST call (deliver).
	Retry Retry
	// Finished, when set, is told of every finished match MatchOver
	// draws (the puzzles' search of the server's matches queues it): as
	// often as its result is drawn, so it must be idempotent.
	Finished func(ctx context.Context, s *sessions.Session)

	// archives are the threads to archive after their match.
	archives archives
	// unsure holds the board posts given up for now after a try that may
	// have been carried out (no answer came): the next claim of such a
	// post looks for it before posting (see Post). In memory only: after
	// a restart, or on another replica, the next claim posts without
	// looking.
	unsure unsurePosts
}

// BoardStore is what Boards read and write of the session store
// (sessions.Store's methods).
type BoardStore interface {
	Get(ctx context.Context, channelID string) (*sessions.Session, error)
	Update(ctx context.Context, channelID string, fn func(*sessions.Session) error) (*sessions.Session, error)
	Pair(ctx context.Context, guildID, userID, opponentID string) (sessions.PairRecord, error)
}

// Metrics receives what the outbox measures (the bot's Metrics, in part).
type Metrics interface {
	// DeadlineFired records one deadline that expired and was acted on;
	// kind is "challenge" or "turn".
	DeadlineFired(kind string)
	// RESTRetry records one REST call after a response tried again, for
	// cause (CauseRateLimit, ...).
	RESTRetry(cause string)
	// RESTGiveUp records one REST call given up after tries, with the
	// cause of its last failure.
	RESTGiveUp(cause string)
}

// Interaction names the interaction whose deferred response, webhook or
// new message Boards reach after the response.
type Interaction struct {
	ID, AppID, Token, ChannelID string
	// Kind names the interaction for the log (the bot's InteractionKind).
	Kind string
}

// message is what the bot shows.
type message = render.Message

// unsurePosts is a set of board posts (match, post sequence), safe for
// concurrent use.
type unsurePosts struct {
	mu sync.Mutex
	m  map[[2]int64]bool
}

// take reports whether post seq of match is in the set, and removes it.
func (u *unsurePosts) take(match int64, seq int) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	k := [2]int64{match, int64(seq)}
	in := u.m[k]
	delete(u.m, k)
	return in
}

// add puts post seq of match in the set.
func (u *unsurePosts) add(match int64, seq int) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.m == nil {
		u.m = map[[2]int64]bool{}
	}
	u.m[[2]int64{match, int64(seq)}] = true
}

// retryPostAfter is how soon the scheduler claims again a board post whose
// tries were given up for a cause that may pass, instead of the rest of
// its lease (sessions.DefaultPostLease, 30 s): the post is no longer being
// tried, and the players are waiting for the board.
const retryPostAfter = 2 * time.Second

// Expired reports a deadline that fired on s and edits its message.
func (b *Boards) Expired(ctx context.Context, s *sessions.Session, e sessions.Expiry) {
	b.Metrics.DeadlineFired(string(e))
	attrs := []any{"match", s.ID, "guild", s.GuildID, "channel", s.ChannelID, "deadline", string(e)}
	if e == sessions.ExpiryTurn {
		attrs = append(attrs, "loser", s.Member(s.Match.Winner().Other()).ID)
	}
	b.Log.Info("deadline passed", attrs...)
	b.Edit(ctx, s, b.Settled(ctx, render.Public(s), s))
}

// Settled draws a session that is no longer active as its message
// should read, with the players' record against each other for a finished
// match between members.
func (b *Boards) Settled(ctx context.Context, l *locale.Localizer, s *sessions.Session) *message {
	msg := render.Session(l, s)
	if s.Phase == sessions.PhaseFinished {
		msg = b.MatchOver(ctx, l, s, "")
	}
	if settledLate(s) && len(msg.Embeds) > 0 {
		e := msg.Embeds[0]
		e.Description += "\n" + l.T("board_settled_late", "When", render.Timestamp(s.UpdatedAt))
	}
	return msg
}

// settledLate reports whether a deadline ended s when nothing could update
// its board: only interaction webhooks reach its channel, and the latest
// one's token had run out when the deadline was settled (s.UpdatedAt).
// Then the next click on the board shows the result, and says so.
func settledLate(s *sessions.Session) bool {
	return s.Place.WebhookOnly && (s.End == sessions.EndTimeout || s.End == sessions.EndExpired) &&
		!live(s.Webhook, s.UpdatedAt)
}

// MatchOver draws the finished match s with its players' record and the
// buttons this bot offers, or with rematch, the line that says a rematch
// was asked for, and no button.
func (b *Boards) MatchOver(ctx context.Context, l *locale.Localizer, s *sessions.Session, rematch string) *message {
	msg := render.MatchOver(l, s, b.pair(ctx, s), rematch, b.Analysis(s))
	if b.Finished != nil && s.Phase == sessions.PhaseFinished {
		b.Finished(ctx, s)
	}
	if s.Place.Thread && rematch == "" && len(msg.Embeds) > 0 {
		at := b.archives.plan(s)
		msg.Embeds[0].Description += "\n" + l.T("thread_archives", "When", render.Timestamp(at))
	}
	return msg
}

// pair returns the record of s's first player against the second in this
// server, or nil (and a log line) when the store cannot say.
func (b *Boards) pair(ctx context.Context, s *sessions.Session) *sessions.PairRecord {
	if s.AI != "" {
		return nil
	}
	rec, err := b.Store.Pair(ctx, s.GuildID, s.Players[0].ID, s.Players[1].ID)
	if err != nil {
		b.Log.Warn("reading the record between two players", "match", s.ID, "err", err)
		return nil
	}
	return &rec
}

// Edit replaces s's board message with msg: through the latest
// interaction webhook while its token lives, else with the bot token when
// there is one and the bot is a member there (not s.Place.WebhookOnly). When neither can reach the message, it stays as it is and
// the next click on it shows msg instead (the click finds the session
// settled). Failures are logged at warn level.
func (b *Boards) Edit(ctx context.Context, s *sessions.Session, msg *message) {
	if b.Messenger == nil {
		return
	}
	now := b.Clock.Now()
	member := b.Messenger.HasBotToken() && s.MessageID != "" && !s.Place.WebhookOnly
	byBot := func() error {
		return b.deliver(ctx, func(ctx context.Context) error {
			return b.Messenger.EditChannelMessage(ctx, s.ChannelID, s.MessageID, msg)
		})
	}
	var err error
	switch {
	case live(s.Webhook, now) && s.Webhook.Message != "":
		err = b.deliver(ctx, func(ctx context.Context) error {
			return b.Messenger.EditWebhookMessage(ctx, s.Webhook.AppID, s.Webhook.Token, s.Webhook.Message, msg)
		})
		if err != nil && deadToken(err) && member {
			// The token died before its 15 minutes (the answer that
			// carried it was lost, or Discord forgot it): the bot token
			// reaches the message too.
			b.Log.Info("the interaction token is dead; editing the board with the bot token",
				"match", s.ID, "channel", s.ChannelID, "err", RESTErrorText(err))
			err = byBot()
		}
	case member:
		err = byBot()
	default:
		b.Log.Info("the board message cannot be reached now; the next click on it will show the result",
			"match", s.ID, "channel", s.ChannelID)
		return
	}
	if err != nil {
		b.Log.Warn("editing the board message", "match", s.ID, "channel", s.ChannelID, "gone", gone(err), "err", RESTErrorText(err))
	}
}

// deadToken reports whether err is a webhook's answer that its interaction
// token no longer works: Unknown Webhook (10015), Invalid Webhook Token
// (50027), or a bare 401.
func deadToken(err error) bool {
	if HasCode(err, discordgo.ErrCodeUnknownWebhook, discordgo.ErrCodeInvalidWebhookTokenProvided) {
		return true
	}
	var re *discordgo.RESTError
	return errors.As(err, &re) && re.Response != nil && re.Response.StatusCode == http.StatusUnauthorized
}

// EditOriginal replaces the (deferred) response to interaction in with msg, through
// the interaction's webhook, tried as deliver does. It logs a failure and
// returns it (nil without a messenger).
func (b *Boards) EditOriginal(ctx context.Context, in Interaction, msg *message) error {
	if b.Messenger == nil {
		return nil
	}
	files := msg.Files
	err := b.deliver(ctx, func(ctx context.Context) error {
		return b.early(ctx, func() error {
			// A fresh reader each try: a failed upload consumed the last one.
			msg.Files = freshFiles(files)
			return b.Messenger.EditWebhookMessage(ctx, in.AppID, in.Token, "@original", msg)
		}, discordgo.ErrCodeUnknownWebhook, discordgo.ErrCodeUnknownMessage)
	})
	if err != nil {
		b.Log.Warn("sending a deferred answer", "interaction", in.ID, "channel", in.ChannelID, "kind", in.Kind, "err", RESTErrorText(err))
	}
	return err
}

// Privately replaces the (deferred, public) response to in with a private
// reply of text to its sender: the response is deleted and the text
// follows up, seen by the sender only ("": nothing follows).
func (b *Boards) Privately(ctx context.Context, in Interaction, text string) {
	if b.Messenger == nil {
		return
	}
	if err := b.early(ctx, func() error {
		return b.Messenger.DeleteWebhookMessage(ctx, in.AppID, in.Token, "@original")
	}, discordgo.ErrCodeUnknownWebhook, discordgo.ErrCodeUnknownMessage); err != nil {
		b.Log.Warn("deleting a deferred answer", "interaction", in.ID, "channel", in.ChannelID, "err", RESTErrorText(err))
	}
	if text == "" {
		return
	}
	msg := render.Ephemeral(text).Data
	if _, err := b.Messenger.FollowUp(ctx, in.AppID, in.Token, msg); err != nil {
		b.Log.Warn("sending a private answer", "interaction", in.ID, "channel", in.ChannelID, "err", RESTErrorText(err))
	}
}

// PostPending posts the board that the session of match in channelID still
// has to post, unless someone else is posting it already. Delivered runs
// it as soon as the response that ended the round is delivered.
func (b *Boards) PostPending(ctx context.Context, channelID string, match int64) {
	now := b.Clock.Now()
	s, err := b.Store.Update(ctx, channelID, func(s *sessions.Session) error {
		return s.ClaimPost(match, now, b.Policy)
	})
	if err != nil {
		if !errors.Is(err, sessions.ErrNothingDue) {
			b.Log.Warn("claiming a board post", "match", match, "channel", channelID, "err", err)
		}
		return
	}
	b.Post(ctx, s)
}

// live reports whether w holds an interaction token that is still usable
// at now, with a minute to spare before Discord's limits.TokenLifetime.
// Editing the board through it also needs w.Message.
func live(w sessions.Webhook, now time.Time) bool {
	return w.AppID != "" && w.Token != "" && now.Before(w.At.Add(limits.TokenLifetime-time.Minute))
}

// errUnreachable means neither a live webhook nor a bot token can reach the
// channel.
var errUnreachable = errors.New("no live interaction token and no bot token")

// Post posts s's live board (or a rematch invitation) as a new message: a follow-up through the
// latest interaction webhook while its token lives, else a channel message
// with the bot token where the bot is a member (not s.Place.WebhookOnly).
//
// Where the bot is not a member, Discord's limits for an app installed by
// a user hold: an interaction's token lives 15 minutes, and such an
// interaction takes at most 5 follow-up messages
// (https://discord.com/developers/docs/interactions/receiving-and-responding#followup-messages).
// The bot posts at most one follow-up per interaction (the board of the
// round a click ended, or a rematch invitation), each through the token
// of the click that made it due. On success the session learns the new message; on a
// failure that may pass the lease runs out and the scheduler tries again;
// on one that will not (the channel gone, no access, no way in) the post is
// given up, logged, and /connectn board posts the board when asked.
func (b *Boards) Post(ctx context.Context, s *sessions.Session) {
	now := b.Clock.Now()
	seq := s.PostSeq
	if b.Messenger != nil && s.Webhook.Message == "@original" && live(s.Webhook, now) {
		// The board is the response to the click that ended the round
		// (sessions.Session.PostInResponse), or a click has been made on
		// it since: either way the message is the @original of the
		// session's interaction, which its webhook reads without a bot
		// token. Only when Discord knows no response to that interaction
		// (it never had ours) is the board posted.
		id, err := b.original(ctx, s.Webhook)
		switch {
		case err == nil:
			b.record(ctx, s.ChannelID, s.ID, "recording a board post", func(x *sessions.Session) error { return x.PostDone(s.ID, seq, id, x.Webhook) })
			return
		case !gone(err):
			b.Log.Warn("looking for the board posted as a response", "match", s.ID, "channel", s.ChannelID, "err", RESTErrorText(err))
			at := b.Clock.Now().Add(retryPostAfter)
			b.record(ctx, s.ChannelID, s.ID, "recording a board post", func(x *sessions.Session) error { return x.PostLater(s.ID, seq, at) })
			return
		}
		b.Log.Info("the response that carried the board did not reach Discord; posting it", "match", s.ID, "channel", s.ChannelID, "err", RESTErrorText(err))
	}
	msg := render.Session(render.Public(s), s) // a board, or a rematch invitation
	var (
		id   string
		hook sessions.Webhook
		err  = errUnreachable
	)
	// A try that got no answer (a stall, a reset) may have posted all
	// the same, and Discord offers no idempotent post through a webhook
	// (no nonce; its follow-ups cannot be listed). So before posting
	// again, the bot looks for the first one: where it is a member, its
	// token reads the channel's latest messages, and a message with this
	// post's buttons (their custom_ids name the match and the post) is
	// the one posted. Where it is not (a DM, a user install, no bot
	// token), it cannot tell, so it does not post again: the post is
	// given up, and /connectn board shows the board. A second visible
	// copy is never made.
	//
	// Before that look, and where the bot cannot look, it reads the
	// session again: if the players have played on since the post was
	// due (a click on the board that was lost, which they see), the
	// board was posted, and is not posted again.
	canLook := b.Messenger != nil && b.Messenger.HasBotToken() && !s.Place.WebhookOnly
	unsure, seen := b.unsure.take(s.ID, s.PostSeq), false
	send := func(ctx context.Context, post func(ctx context.Context) error) error {
		if unsure {
			if b.playedOn(ctx, s) {
				b.Metrics.RESTRetry(CauseLost)
				seen = true
				return nil
			}
			if !canLook {
				return errAmbiguous
			}
			// The look has half the try: a look that stalls leaves the
			// post the other half, or ends the try sooner.
			lookCtx, cancel := clock.WithTimeout(ctx, b.Clock, b.Retry.Attempt/2)
			found, err := b.findPosted(lookCtx, s.ChannelID, msg)
			cancel()
			if err != nil {
				return err
			}
			if found != "" {
				b.Metrics.RESTRetry(CauseLost)
				id = found
				return nil
			}
		}
		err := post(ctx)
		unsure = unsure || ambiguous(err)
		return err
	}
	switch {
	case b.Messenger == nil:
	case live(s.Webhook, now):
		err = b.deliver(ctx, func(ctx context.Context) error {
			return send(ctx, func(ctx context.Context) error {
				return b.early(ctx, func() error {
					var err error
					id, err = b.Messenger.FollowUp(ctx, s.Webhook.AppID, s.Webhook.Token, msg)
					return err
				}, discordgo.ErrCodeUnknownWebhook)
			})
		})
		hook = s.Webhook
		hook.Message = id
	case canLook:
		err = b.deliver(ctx, func(ctx context.Context) error {
			return send(ctx, func(ctx context.Context) error {
				var err error
				id, err = b.Messenger.SendChannelMessage(ctx, s.ChannelID, "", msg) // the look above guards its retries
				return err
			})
		})
	}
	if err != nil {
		final := gone(err) || errors.Is(err, errUnreachable) || errors.Is(err, errAmbiguous)
		b.Log.Warn("posting the board", "match", s.ID, "channel", s.ChannelID, "round", s.Match.Round().Number(),
			"retry", !final, "err", RESTErrorText(err))
		if final {
			b.record(ctx, s.ChannelID, s.ID, "recording a board post", func(x *sessions.Session) error { return x.PostGivenUp(s.ID, seq) })
			return
		}
		if unsure {
			b.unsure.add(s.ID, seq)
		}
		at := b.Clock.Now().Add(retryPostAfter)
		b.record(ctx, s.ChannelID, s.ID, "recording a board post", func(x *sessions.Session) error { return x.PostLater(s.ID, seq, at) })
		return
	}
	if seen {
		b.record(ctx, s.ChannelID, s.ID, "recording a board post", func(x *sessions.Session) error { return x.PostSeen(s.ID, seq) })
		return
	}
	b.record(ctx, s.ChannelID, s.ID, "recording a board post", func(x *sessions.Session) error { return x.PostDone(s.ID, seq, id, hook) })
}

// original returns the ID of the message of w's interaction response
// (@original), tried as deliver does (and early, as the response and the
// read may cross); an error for which gone holds means Discord knows no
// response to that interaction.
func (b *Boards) original(ctx context.Context, w sessions.Webhook) (string, error) {
	var id string
	err := b.deliver(ctx, func(ctx context.Context) error {
		return b.early(ctx, func() error {
			var err error
			id, err = b.Messenger.OriginalMessageID(ctx, w.AppID, w.Token)
			return err
		}, discordgo.ErrCodeUnknownWebhook, discordgo.ErrCodeUnknownMessage)
	})
	return id, err
}

// playedOn reports whether the session of s's channel has moved on from s
// (another match, another post, more plies, or another phase: a rematch
// invitation accepted or declined): the players have played on the board
// s was posting. false when the store cannot say.
func (b *Boards) playedOn(ctx context.Context, s *sessions.Session) bool {
	cur, err := b.Store.Get(ctx, s.ChannelID)
	if err != nil || cur == nil {
		return false
	}
	return cur.ID != s.ID || cur.PostSeq != s.PostSeq || cur.Match.Plies() != s.Match.Plies() || cur.Phase != s.Phase
}

// record applies fn to the session of match in channelID, logging a
// failure as doing; fn's ErrNothingDue (the session moved on) is no
// failure.
func (b *Boards) record(ctx context.Context, channelID string, match int64, doing string, fn func(*sessions.Session) error) {
	_, err := b.Store.Update(ctx, channelID, fn)
	if err != nil && !errors.Is(err, sessions.ErrNothingDue) {
		b.Log.Warn(doing, "match", match, "channel", channelID, "err", err)
	}
}

// LearnMessageID records the ID of the message the response to in created,
// as the board message of post seq of match, unless another was recorded
// since, and returns it ("" when Discord could not say).
func (b *Boards) LearnMessageID(ctx context.Context, in Interaction, match int64, seq int) string {
	if b.Messenger == nil {
		return ""
	}
	var id string
	err := b.deliver(ctx, func(ctx context.Context) error {
		return b.early(ctx, func() error {
			var err error
			id, err = b.Messenger.OriginalMessageID(ctx, in.AppID, in.Token)
			return err
		}, discordgo.ErrCodeUnknownWebhook, discordgo.ErrCodeUnknownMessage)
	})
	if err != nil {
		b.Log.Warn("reading the ID of a new message", "match", match, "channel", in.ChannelID, "err", RESTErrorText(err))
		return ""
	}
	b.record(ctx, in.ChannelID, match, "recording the ID of a new message",
		func(s *sessions.Session) error { return s.LearnMessage(match, seq, id) })
	return id
}

// earlyRetries are the waits between tries of a webhook call that Discord
// may not accept yet: over HTTP, the response that acknowledges the
// interaction and a follow-up sent at once can cross, and Discord then
// answers the follow-up as if the webhook did not exist.
var earlyRetries = []time.Duration{50 * time.Millisecond, 100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond}

// early calls fn, and again after each of earlyRetries while it fails with
// one of the Discord error codes given, or until ctx ends.
func (b *Boards) early(ctx context.Context, fn func() error, codes ...int) error {
	err := fn()
	for _, wait := range earlyRetries {
		if err == nil || !HasCode(err, codes...) {
			return err
		}
		if !clock.Sleep(ctx, b.Clock, wait) {
			return err
		}
		err = fn()
	}
	return err
}

// HasCode reports whether err is a Discord API error with one of codes.
func HasCode(err error, codes ...int) bool {
	var re *discordgo.RESTError
	if !errors.As(err, &re) || re.Message == nil {
		return false
	}
	return slices.Contains(codes, re.Message.Code)
}

// freshFiles rewinds the readers of files that can be rewound (the bot
// attaches bytes.Readers), so that a retried upload sends them whole.
func freshFiles(files []*discordgo.File) []*discordgo.File {
	for _, f := range files {
		if s, ok := f.Reader.(io.Seeker); ok {
			s.Seek(0, io.SeekStart)
		}
	}
	return files
}
