package outbox

import (
	"context"
	"errors"
	"net"
	"slices"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/internal/clock"
)

// Retry bounds the tries of one REST call after a response: the
// next round's board, a rematch invitation, a deadline's edit, a deferred
// answer.
//
// The whole of it, waits included, takes at most budget: 15 s, the time
// within which a round's next board should be seen, and half the
// sessions.DefaultPostLease (30 s), so that the scheduler never claims a
// post that is still being tried. Each try is cut off after attempt (a
// stalled connection is given up, not waited out: discordgo's client
// would wait 20 s). Between tries the wait doubles from base up to max,
// or is the Retry-After of a 429 when that is longer, as Discord asks
// (https://discord.com/developers/docs/topics/rate-limits: "wait for the
// retry_after period before retrying"); a wait (a Retry-After among them)
// after which a whole try does not fit in what is left of the budget ends
// the tries at once, so that no try is cut off by the budget.
type Retry struct {
	// Budget bounds all the tries, waits included; Attempt one try; the
	// wait between tries doubles from Base up to Max.
	Budget, Attempt, Base, Max time.Duration
}

// DefaultRetry is the policy of every handler; tests shorten it. A try
// is cut off after 2 s (Discord answers a webhook call in well under a
// second; a stall costs the board that much, not more), and the waits
// grow from 250 ms to 1 s, so that six tries or more fit in the budget.
// The figures that chose these numbers are in docs/load.md ("The tries
// after a response").
var DefaultRetry = Retry{Budget: 15 * time.Second, Attempt: 2 * time.Second, Base: 250 * time.Millisecond, Max: time.Second}

// The causes of a retry, as passed to Metrics.RESTRetry and
// Metrics.RESTGiveUp: a bounded set.
const (
	CauseRateLimit = "429"     // Discord answered 429 (per route or global)
	CauseServer    = "5xx"     // Discord answered 500 to 599
	CauseTimeout   = "timeout" // no answer within the try's time
	CauseReset     = "reset"   // the connection failed without an answer
	CauseLost      = "lost"    // a post whose answer was lost was found made
)

// errAmbiguous ends the tries of a post whose first try may have made the
// message, where the bot cannot look for it (see Boards.Post).
var errAmbiguous = errors.New("the post may have been made, and the channel cannot be read to tell")

// cause returns the retry cause of err, or "" when err will not pass by
// trying again (an API error other than 429 and 5xx, a refusal, the
// caller's context ending).
func cause(err error) string {
	var rl *discordgo.RateLimitError
	if errors.As(err, &rl) {
		return CauseRateLimit
	}
	var re *discordgo.RESTError
	if errors.As(err, &re) {
		if re.Response != nil && re.Response.StatusCode >= 500 {
			return CauseServer
		}
		return ""
	}
	if err == nil || errors.Is(err, errNoBotToken) || errors.Is(err, errUnreachable) || errors.Is(err, errAmbiguous) {
		return ""
	}
	// With discordgo's own retries off (see DiscordMessenger), a 502 comes
	// back as this plain error instead of a *RESTError.
	if strings.HasPrefix(err.Error(), "Exceeded Max retries HTTP 5") {
		return CauseServer
	}
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		return CauseTimeout
	}
	if errors.Is(err, context.Canceled) {
		return ""
	}
	return CauseReset
}

// ambiguous reports whether a try that failed with err may have been
// carried out by Discord all the same: no answer came.
func ambiguous(err error) bool {
	c := cause(err)
	return c == CauseTimeout || c == CauseReset
}

// Wait returns how long to wait after try n (0 first) failed with err.
// After a try cut off for want of an answer it is base, not more: that try
// has waited its attempt already, and another wait that grows would only
// add to the time the players wait for the board.
func (p Retry) Wait(n int, err error) time.Duration {
	if cause(err) == CauseTimeout {
		return p.Base
	}
	d := p.Base << min(n, 16)
	if d > p.Max || d <= 0 {
		d = p.Max
	}
	var rl *discordgo.RateLimitError
	if errors.As(err, &rl) && rl.TooManyRequests != nil && rl.RetryAfter > d {
		d = rl.RetryAfter
	}
	return d
}

// deliver calls fn with a context cut off after one try's time, and again
// after the policy's wait while it fails with a cause that may pass, for
// at most the policy's budget or until ctx ends. Every retry and a final
// failure that had a cause are counted in b.Metrics; what is left to log
// is the caller's. It returns fn's last error.
func (b *Boards) deliver(ctx context.Context, fn func(ctx context.Context) error) error {
	p := b.Retry
	ctx, cancel := clock.WithTimeout(ctx, b.Clock, p.Budget)
	defer cancel()
	for n := 0; ; n++ {
		try, tryCancel := clock.WithTimeout(ctx, b.Clock, p.Attempt)
		err := fn(try)
		tryCancel()
		c := cause(err)
		if err == nil || c == "" {
			return err
		}
		// The next try starts only if it can run its whole time after the
		// wait: a try cut off by the end of the budget would have no
		// answer, which makes a post one that may have been made (where
		// the bot cannot look, one given up rather than risk a copy),
		// when all Discord did was answer 500.
		wait := p.Wait(n, err)
		if dl, ok := ctx.Deadline(); ctx.Err() != nil || (ok && dl.Sub(b.Clock.Now()) < wait+p.Attempt) {
			b.Metrics.RESTGiveUp(c)
			return err
		}
		b.Metrics.RESTRetry(c)
		if !clock.Sleep(ctx, b.Clock, wait) {
			b.Metrics.RESTGiveUp(c)
			return err
		}
	}
}

// customIDs returns the custom_ids of the buttons in components, in order.
func customIDs(components []discordgo.MessageComponent) []string {
	var out []string
	for _, c := range components {
		switch c := c.(type) {
		case discordgo.ActionsRow:
			out = append(out, customIDs(c.Components)...)
		case *discordgo.ActionsRow:
			out = append(out, customIDs(c.Components)...)
		case discordgo.Button:
			out = append(out, c.CustomID)
		case *discordgo.Button:
			out = append(out, c.CustomID)
		}
	}
	return out
}

// findPosted looks among the latest messages of channelID for the one
// that posts msg, and returns its ID, or "" when there is none. A board is
// known by its column buttons' custom_ids up to the post sequence
// (cn:drop:<match>:<post>:, see customid): the players may have played on
// it since it was made, which edits its buttons' plies and columns (a lost
// post is visible in the channel, and clicked, while the bot still does
// not know of it). Any other message (a rematch invitation) is known by
// exactly the custom_ids of its buttons, which name its match and never
// change. It needs the bot token and the bot a member of the channel with
// Read Message History.
func (b *Boards) findPosted(ctx context.Context, channelID string, msg *message) (string, error) {
	ids := customIDs(msg.Components)
	want, prefix := strings.Join(ids, "\x00"), postPrefix(ids)
	msgs, err := b.Messenger.RecentChannelMessages(ctx, channelID, recentLimit)
	if err != nil {
		return "", err
	}
	for _, m := range msgs {
		got := customIDs(m.Components)
		if prefix != "" && slices.ContainsFunc(got, func(id string) bool { return strings.HasPrefix(id, prefix) }) {
			return m.ID, nil
		}
		if prefix == "" && strings.Join(got, "\x00") == want {
			return m.ID, nil
		}
	}
	return "", nil
}

// postPrefix returns the custom_id prefix that the column buttons of one
// post of a board share, cn:drop:<match>:<post>:, or "" when ids has no
// column button.
func postPrefix(ids []string) string {
	for _, id := range ids {
		rest, ok := strings.CutPrefix(id, "cn:drop:")
		if !ok {
			continue
		}
		match, rest, ok1 := strings.Cut(rest, ":")
		post, _, ok2 := strings.Cut(rest, ":")
		if ok1 && ok2 {
			return "cn:drop:" + match + ":" + post + ":"
		}
	}
	return ""
}

// recentLimit is how many of a channel's latest messages findPosted reads:
// a post lost a few seconds ago is among them unless the channel is busy.
const recentLimit = 25
