package bot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot/internal/customid"
	"github.com/connectn/connectn/bot/internal/outbox"
	"github.com/connectn/connectn/bot/internal/render"
	"github.com/connectn/connectn/internal/clock"
	"github.com/connectn/connectn/locale"
	"github.com/connectn/connectn/puzzle"
	"github.com/connectn/connectn/rating"
	"github.com/connectn/connectn/sessions"
)

// The daily puzzle: an admin sets a channel and a time of day
// (/connectn-admin settings daily-puzzle), and at that time each day the
// bot posts the day's puzzle there, publicly, with a Solve button that
// starts it privately (puzzles.daily). The day's puzzle is the same for
// the whole bot (puzzle.Daily over the starter set's well-rated puzzles,
// recorded once per date: sessions.PuzzleStore.PuzzleOfDay). The post
// shows how many members solved it, edited at most once a
// sessions.DailyEditEvery, and reveals the previous day's solution.
//
// Exactly once a day per server, across replicas and restarts: the
// scheduler of every process finds the servers whose post is due
// (DueDailyPuzzles) and claims the day's post (ClaimDailyPost: a row keyed
// by server and day, inserted once, so one process alone holds it for
// dailyLease) before it sends the message; the one that holds it sends it
// once and records its ID (posted), or Discord's refusal (failed); then
// the server's next post is due the next day. A process that dies between
// its claim and that record, or whose one try got no answer (the message
// may have been made), leaves the claim to lapse: the next process to find
// the day due takes it over (Retaken) and first looks among the channel's
// latest messages for one with this day's Solve button, recording it if
// it is there, and sends the message only if it is not. So a post is never
// lost (the claim lapses and is taken over) and never doubled (a try is
// never repeated blindly; the lease, dailyLease, is far longer than the
// one try, dailyTry, so a live process never loses its claim while it
// sends; and a retaken claim looks before it sends). A refused post (a deleted channel,
// a missing permission, no bot token) is recorded on the server's setting,
// shown in /connectn-admin settings show, and tried again the next day.

// Times of the daily puzzle.
const (
	// dailyLease is how long a claim of a day's post holds.
	dailyLease = 2 * time.Minute
	// dailyTry bounds the one try of a post.
	dailyTry = 10 * time.Second
	// dailyMissed is how late a post may still be made: a bot that was
	// down through the time of a server's post posts it when it comes
	// back within this, and otherwise waits for the next day's.
	dailyMissed = 6 * time.Hour
)

// Refusals of the daily puzzle's setting.
var (
	reasonDailyTime    = sessions.NewReason("daily_time")
	reasonDailyZone    = sessions.NewReason("daily_zone")
	reasonDailyChannel = sessions.NewReason("daily_channel")
	reasonDailyNoToken = sessions.NewReason("daily_no_token")
)

// dailyPuzzles is the feature of the daily puzzle: its setting (an
// admin's subcommand) and its posts (a task of the scheduler, run).
type dailyPuzzles struct {
	store  dailyStore
	boards *outbox.Boards // posts, looks and edits with the bot token
	log    *slog.Logger
	clock  clock.Clock
}

// dailyStore is what the daily puzzle reads and writes
// (sessions.PuzzleStore's methods, and the server's settings for the
// language of its posts).
type dailyStore interface {
	settingsReader
	PuzzleRatings(ctx context.Context) (map[string]rating.Rating, error)
	DailyPuzzle(ctx context.Context, guildID string) (sessions.DailyPuzzle, error)
	UpdateDailyPuzzle(ctx context.Context, guildID string, fn func(*sessions.DailyPuzzle) error) (sessions.DailyPuzzle, error)
	DueDailyPuzzles(ctx context.Context, now time.Time, limit int) ([]sessions.DailyPuzzle, error)
	PuzzleOfDay(ctx context.Context, day, id, line string) (string, string, error)
	ClaimDailyPost(ctx context.Context, p sessions.DailyPost, lease time.Duration) (sessions.DailyPost, bool, error)
	UpdateDailyPost(ctx context.Context, guildID, day string, fn func(*sessions.DailyPost) error) (sessions.DailyPost, error)
	DailyPosts(ctx context.Context, guildID string, limit int) ([]sessions.DailyPost, error)
	DueDailyEdits(ctx context.Context, now time.Time, limit int) ([]sessions.DailyPost, error)
}

func (h *dailyPuzzles) routes() []route {
	return []route{
		admin("settings daily-puzzle", discordgo.PermissionManageGuild, h.set, helpLine("help_daily_puzzle")),
	}
}

// dailyOptions are the options of /connectn-admin settings daily-puzzle.
type dailyOptions struct {
	Channel, Time, Zone optString
	Off                 toggle
}

func (o *dailyOptions) declare(s *optionSet) {
	s.channel("channel", &o.Channel)
	s.text("time", &o.Time)
	s.text("zone", &o.Zone)
	s.boolean("off", &o.Off)
}

// parseClock reads a time of day, "08:00" or "8:00" (24-hour, H:MM or
// HH:MM), as minutes after midnight.
func parseClock(s string) (int, bool) {
	h, m, ok := strings.Cut(strings.TrimSpace(s), ":")
	if !ok || len(h) < 1 || len(h) > 2 || len(m) != 2 {
		return 0, false
	}
	hh, err1 := strconv.Atoi(h)
	mm, err2 := strconv.Atoi(m)
	if err1 != nil || err2 != nil || hh < 0 || hh > 23 || mm < 0 || mm > 59 || h[0] == '+' || m[0] == '+' || h[0] == '-' || m[0] == '-' {
		return 0, false
	}
	return hh*60 + mm, true
}

// loadZone returns the time zone named name (an IANA name; "" and "UTC"
// are UTC).
func loadZone(name string) (*time.Location, error) {
	if name == "" || name == "UTC" {
		return time.UTC, nil
	}
	if strings.ContainsAny(name, ". \\") || strings.HasPrefix(name, "/") {
		return nil, fmt.Errorf("time zone %q: not a zone name", name)
	}
	return time.LoadLocation(name)
}

// nextPost returns the first time after after that is minute minutes
// after midnight in loc (a day without that time, by a clock change,
// takes the time the clock shows then).
func nextPost(minute int, loc *time.Location, after time.Time) time.Time {
	local := after.In(loc)
	at := time.Date(local.Year(), local.Month(), local.Day(), minute/60, minute%60, 0, 0, loc)
	for !at.After(after) {
		local = local.AddDate(0, 0, 1)
		at = time.Date(local.Year(), local.Month(), local.Day(), minute/60, minute%60, 0, 0, loc)
	}
	return at.UTC()
}

// clockText writes minutes after midnight as "08:00".
func clockText(minute int) string { return fmt.Sprintf("%02d:%02d", minute/60, minute%60) }

// set handles /connectn-admin settings daily-puzzle: channel, time and
// zone (UTC unless given, an IANA name such as Europe/Berlin) turn it on
// or change it, off:true turns it off. Bad input is refused and changes
// nothing.
func (h *dailyPuzzles) set(ctx context.Context, c *call, o *dailyOptions) (*discordgo.InteractionResponse, error) {
	if h.store == nil {
		return nil, sessions.Refuse(reasonPuzzlesOff)
	}
	if o.Off.set && o.Off.on {
		if _, err := h.store.UpdateDailyPuzzle(ctx, c.i.GuildID, func(d *sessions.DailyPuzzle) error {
			d.ChannelID = ""
			return nil
		}); err != nil {
			return nil, err
		}
		h.log.Info("daily puzzle turned off", "guild", c.i.GuildID, "by", c.user)
		return render.Ephemeral(c.reader.T("daily_off")), nil
	}
	minute := -1
	if o.Time.set {
		m, ok := parseClock(o.Time.v)
		if !ok {
			return nil, sessions.Refuse(reasonDailyTime, "Time", o.Time.v)
		}
		minute = m
	}
	zone := ""
	if o.Zone.set {
		if _, err := loadZone(o.Zone.v); err != nil {
			return nil, sessions.Refuse(reasonDailyZone, "Zone", o.Zone.v)
		}
		if zone = o.Zone.v; zone == "UTC" {
			zone = ""
		}
	}
	if h.boards.Messenger == nil || !h.boards.Messenger.HasBotToken() {
		return nil, sessions.Refuse(reasonDailyNoToken)
	}
	now := h.clock.Now()
	d, err := h.store.UpdateDailyPuzzle(ctx, c.i.GuildID, func(d *sessions.DailyPuzzle) error {
		if d.ChannelID == "" && (!o.Channel.set || minute < 0) {
			return sessions.Refuse(reasonDailyChannel) // turning it on needs both
		}
		if o.Channel.set {
			d.ChannelID = o.Channel.v
		}
		if minute >= 0 {
			d.Minute = minute
		}
		if o.Zone.set {
			d.Zone = zone
		}
		loc, err := loadZone(d.Zone)
		if err != nil {
			loc = time.UTC
		}
		d.Locale, d.Next = placeLocale(c.i), nextPost(d.Minute, loc, now)
		d.LastError, d.LastErrorAt = "", time.Time{}
		return nil
	})
	if err != nil {
		return nil, err
	}
	h.log.Info("daily puzzle set", "guild", c.i.GuildID, "by", c.user, "channel", d.ChannelID, "time", clockText(d.Minute), "zone", d.Zone)
	return render.Ephemeral(c.reader.T("daily_saved", "Channel", "<#"+d.ChannelID+">", "Time", clockText(d.Minute),
		"Zone", zoneName(d.Zone), "Next", "<t:"+strconv.FormatInt(d.Next.Unix(), 10)+":F>")), nil
}

// zoneName is the name a zone is shown by: "UTC" for "".
func zoneName(z string) string {
	if z == "" {
		return "UTC"
	}
	return z
}

// dailyStatus is the daily puzzle's line of /connectn-admin settings
// show: where and when it is posted, and the last refusal when the last
// post was refused.
func dailyStatus(l *locale.Localizer, d sessions.DailyPuzzle) string {
	value := l.T("value_off")
	if d.ChannelID != "" {
		value = l.T("daily_value", "Channel", "<#"+d.ChannelID+">", "Time", clockText(d.Minute), "Zone", zoneName(d.Zone),
			"Next", render.Timestamp(d.Next))
	}
	line := l.T("settings_line", "Setting", l.T("setting_daily_puzzle"), "Value", value, "Source", l.T("source_server"))
	if d.ChannelID == "" {
		line = l.T("settings_line", "Setting", l.T("setting_daily_puzzle"), "Value", value, "Source", l.T("source_default"))
	}
	if d.LastError != "" {
		line += "\n" + l.T("daily_refused", "When", render.Timestamp(d.LastErrorAt), "Reason", l.T("daily_error_"+d.LastError))
	}
	return line
}

// The causes of a refused post, as stored (DailyPuzzle.LastError) and
// worded by the catalog (daily_error_<cause>).
const (
	dailyErrorToken      = "token"      // no bot token: the bot cannot post
	dailyErrorChannel    = "channel"    // the channel is gone
	dailyErrorPermission = "permission" // the bot may not see or post in it
	dailyErrorOther      = "other"      // any other refusal
)

// refusalCause names why Discord refused a post, or "" when the failure
// may pass (a 5xx, a timeout): then the claim lapses and the post is
// tried again after dailyLease.
func refusalCause(err error) string {
	var re *discordgo.RESTError
	switch {
	case errors.Is(err, errDailyNoToken):
		return dailyErrorToken
	case errors.As(err, &re) && re.Message != nil && re.Message.Code == discordgo.ErrCodeUnknownChannel:
		return dailyErrorChannel
	case errors.As(err, &re) && re.Message != nil && (re.Message.Code == discordgo.ErrCodeMissingAccess ||
		re.Message.Code == discordgo.ErrCodeMissingPermissions):
		return dailyErrorPermission
	case errors.As(err, &re) && re.Response != nil && re.Response.StatusCode == http.StatusNotFound:
		return dailyErrorChannel
	case errors.As(err, &re) && re.Response != nil && re.Response.StatusCode == http.StatusForbidden:
		return dailyErrorPermission
	case outbox.Gone(err):
		return dailyErrorToken // no bot token, or a 401
	case errors.As(err, &re) && re.Response != nil && re.Response.StatusCode >= 400 && re.Response.StatusCode < 500 &&
		re.Response.StatusCode != http.StatusTooManyRequests:
		return dailyErrorOther
	}
	return ""
}

// runDue is the scheduler's task of the daily puzzle: the posts due at
// the clock, then the edits of posts whose count of solvers moved.
// Failures are logged and tried again at a later tick.
func (h *dailyPuzzles) runDue(ctx context.Context) {
	now := h.clock.Now()
	due, err := h.store.DueDailyPuzzles(ctx, now, dueBatchDaily)
	if err != nil {
		h.log.Warn("listing the daily puzzles due", "err", err)
	}
	for _, d := range due {
		if ctx.Err() != nil {
			return
		}
		if err := h.post(ctx, d, now); err != nil {
			h.log.Warn("posting the daily puzzle", "guild", d.GuildID, "err", err)
		}
	}
	edits, err := h.store.DueDailyEdits(ctx, now, dueBatchDaily)
	if err != nil {
		h.log.Warn("listing the daily posts to edit", "err", err)
	}
	for _, p := range edits {
		if ctx.Err() != nil {
			return
		}
		if err := h.edit(ctx, p, now); err != nil {
			h.log.Warn("editing the daily post", "guild", p.GuildID, "day", p.Day, "err", err)
		}
	}
}

// dueBatchDaily is how many servers' posts (and edits) one tick makes at
// most.
const dueBatchDaily = 50

// dayPuzzle returns the bot's puzzle of day, with its current rating:
// the one recorded for the day, or puzzle.Daily's choice, recorded now.
func (h *dailyPuzzles) dayPuzzle(ctx context.Context, day string) (puzzle.Puzzle, error) {
	ratings, err := h.store.PuzzleRatings(ctx)
	if err != nil {
		return puzzle.Puzzle{}, err
	}
	date, err := time.Parse(time.DateOnly, day)
	if err != nil {
		return puzzle.Puzzle{}, err
	}
	pool := puzzle.Starter() // a copy of its own
	for k := range pool {
		if r, ok := ratings[pool[k].ID]; ok {
			pool[k].Rating = r
		}
	}
	choice, ok := puzzle.Daily(pool, date)
	if !ok {
		return puzzle.Puzzle{}, errors.New("no puzzle to choose from")
	}
	_, line, err := h.store.PuzzleOfDay(ctx, day, choice.ID, choice.Format())
	if err != nil {
		return puzzle.Puzzle{}, err
	}
	p, err := puzzle.Parse(line)
	if err != nil {
		return puzzle.Puzzle{}, fmt.Errorf("the puzzle of %s: %w", day, err)
	}
	if r, ok := ratings[p.ID]; ok {
		p.Rating = r
	}
	return p, nil
}

// post makes server d's post that is due, unless another process holds or
// has made it (see the top of this file), and moves its next post to the
// next day once this day's is settled.
func (h *dailyPuzzles) post(ctx context.Context, d sessions.DailyPuzzle, now time.Time) error {
	loc, err := loadZone(d.Zone)
	if err != nil {
		loc = time.UTC
	}
	if now.Sub(d.Next) > dailyMissed {
		h.log.Warn("a daily puzzle's post missed its time; the next one is tomorrow's", "guild", d.GuildID, "due", d.Next)
		return h.advance(ctx, d, now, "")
	}
	day := d.Next.In(loc).Format(time.DateOnly)
	p, err := h.dayPuzzle(ctx, day)
	if err != nil {
		return err
	}
	post, claimed, err := h.store.ClaimDailyPost(ctx, sessions.DailyPost{GuildID: d.GuildID, Day: day, ChannelID: d.ChannelID,
		PuzzleID: p.ID, Puzzle: p.Format()}, dailyLease)
	if err != nil {
		return err
	}
	if !claimed {
		if post.State == sessions.DailyClaimed {
			return nil // another process holds it, and moves the next post on
		}
		return h.advance(ctx, d, now, post.Error) // made (or refused) already: only the next post was left to set
	}
	id, err := h.send(ctx, d, post)
	cause := ""
	if err != nil {
		if cause = refusalCause(err); cause == "" {
			h.log.Warn("the daily puzzle's post failed; tried again when its claim lapses", "guild", d.GuildID, "day", day,
				"err", outbox.RESTErrorText(err))
			return nil
		}
		h.log.Warn("Discord refused the daily puzzle's post; tried again tomorrow", "guild", d.GuildID, "day", day,
			"cause", cause, "err", outbox.RESTErrorText(err))
	}
	if _, err := h.store.UpdateDailyPost(ctx, d.GuildID, day, func(x *sessions.DailyPost) error {
		x.LeaseUntil = time.Time{}
		if cause != "" {
			x.State, x.Error = sessions.DailyFailed, cause
			return nil
		}
		x.State, x.MessageID, x.Error = sessions.DailyPosted, id, ""
		return nil
	}); err != nil {
		return err
	}
	if cause == "" {
		h.log.Info("daily puzzle posted", "guild", d.GuildID, "day", day, "puzzle", p.ID, "message", id, "retaken", post.Retaken)
	}
	return h.advance(ctx, d, now, cause)
}

// send posts the message of post (claimed), or, for a claim taken over
// from a process that may have sent it, finds it first; it returns the
// message's ID. It sends once: a try that failed without Discord's
// refusal (no answer, a 5xx, a 429) may have posted, and is not tried
// again blindly; the claim lapses, and the process that takes it over
// looks for the message before it sends.
func (h *dailyPuzzles) send(ctx context.Context, d sessions.DailyPuzzle, post sessions.DailyPost) (string, error) {
	if h.boards.Messenger == nil || !h.boards.Messenger.HasBotToken() {
		return "", fmt.Errorf("daily puzzle without a bot token: %w", errDailyNoToken)
	}
	msg, err := h.message(ctx, post, d.Locale)
	if err != nil {
		return "", err
	}
	if post.Retaken {
		id, err := h.boards.FindInChannel(ctx, post.ChannelID, customid.New("pzday", render.DayNumber(post.Day)).String())
		if err != nil || id != "" {
			return id, err
		}
	}
	tctx, cancel := clock.WithTimeout(ctx, h.clock, dailyTry)
	defer cancel()
	return h.boards.Messenger.SendChannelMessage(tctx, post.ChannelID, "", msg) // one try; a retaken post looks first
}

// errDailyNoToken is the failure of a post on a bot without its token.
var errDailyNoToken = errors.New("no bot token")

// message draws post: its puzzle, its solvers, and the previous post's
// solution, in the server's language (its setting, else locale, the
// language the admin's server had when they set the daily puzzle).
func (h *dailyPuzzles) message(ctx context.Context, post sessions.DailyPost, fallback string) (*message, error) {
	p, err := puzzle.Parse(post.Puzzle)
	if err != nil {
		return nil, fmt.Errorf("the puzzle of %s: %w", post.Day, err)
	}
	if ratings, err := h.store.PuzzleRatings(ctx); err == nil {
		if r, ok := ratings[p.ID]; ok {
			p.Rating = r
		}
	}
	lang := fallback
	if gs, err := h.store.GuildSettings(ctx, post.GuildID); err == nil && gs.Locale != nil {
		lang = *gs.Locale
	}
	v := render.DailyView{Puzzle: p, Rating: p.Rating.R, Day: post.Day, At: post.CreatedAt, Solvers: post.Solvers}
	posts, err := h.store.DailyPosts(ctx, post.GuildID, 8)
	if err != nil {
		return nil, err
	}
	for _, prev := range posts {
		if prev.Day < post.Day && prev.State == sessions.DailyPosted {
			if q, err := puzzle.Parse(prev.Puzzle); err == nil {
				v.Previous = &q
			}
			break
		}
	}
	return render.DailyPost(locale.Default().Localizer(lang), v), nil
}

// advance moves server d's next post to the first time of day after now,
// unless another process or an admin moved it since d was read, and
// records the cause of a refused post ("" for none).
func (h *dailyPuzzles) advance(ctx context.Context, d sessions.DailyPuzzle, now time.Time, cause string) error {
	_, err := h.store.UpdateDailyPuzzle(ctx, d.GuildID, func(x *sessions.DailyPuzzle) error {
		if x.ChannelID == "" || !x.Next.Equal(d.Next) {
			return sessions.ErrNothingDue
		}
		loc, err := loadZone(x.Zone)
		if err != nil {
			loc = time.UTC
		}
		x.Next = nextPost(x.Minute, loc, now)
		x.LastError, x.LastErrorAt = cause, time.Time{}
		if cause != "" {
			x.LastErrorAt = now
		}
		return nil
	})
	if errors.Is(err, sessions.ErrNothingDue) {
		return nil
	}
	return err
}

// edit shows post's count of solvers on its message. It takes the edit
// first (a compare-and-swap that clears EditDue and marks the count
// shown), so that of the processes that find it due one edits; solves
// that come meanwhile make the next edit due a sessions.DailyEditEvery
// later (the store's rule), and an edit that failed for a cause that may
// pass is due again then.
func (h *dailyPuzzles) edit(ctx context.Context, post sessions.DailyPost, now time.Time) error {
	taken, err := h.store.UpdateDailyPost(ctx, post.GuildID, post.Day, func(x *sessions.DailyPost) error {
		if x.EditDue.IsZero() || !x.EditDue.Equal(post.EditDue) {
			return sessions.ErrNothingDue // another process took it
		}
		x.Shown, x.EditDue = x.Solvers, time.Time{}
		return nil
	})
	if errors.Is(err, sessions.ErrNothingDue) {
		return nil
	}
	if err != nil {
		return err
	}
	d, err := h.store.DailyPuzzle(ctx, post.GuildID)
	if err != nil {
		return err
	}
	msg, err := h.message(ctx, taken, d.Locale)
	if err != nil {
		return err
	}
	if err := h.boards.EditChannel(ctx, taken.ChannelID, taken.MessageID, msg); err != nil && !outbox.Gone(err) {
		_, uerr := h.store.UpdateDailyPost(ctx, post.GuildID, post.Day, func(x *sessions.DailyPost) error {
			if x.EditDue.IsZero() {
				x.EditDue = now.Add(sessions.DailyEditEvery)
			}
			return nil
		})
		return errors.Join(err, uerr)
	}
	return nil
}
