package bot

import (
	"context"
	"errors"
	"log/slog"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot/internal/customid"
	"github.com/connectn/connectn/bot/internal/outbox"
	"github.com/connectn/connectn/bot/internal/render"

	"github.com/connectn/connectn/internal/clock"
	"github.com/connectn/connectn/sessions"
	"github.com/connectn/connectn/tournament"
)

// tournaments is the feature of tournaments: /connectn-admin tournament
// create|start|pause|resume|end|remove, /connectn tournament
// leave|standings, the sign-up message's Join and Leave buttons, and the
// work the scheduler does for them (tournament_run.go: pairing rounds,
// opening the games' threads, posting the pairings, standings and
// podium). The rules are the tournament package's, the lifecycle
// sessions.Tournament's; this type only reads and writes them through the
// store and shows them.
type tournaments struct {
	store    tournamentStore // nil: the store keeps no tournaments
	boards   *outbox.Boards
	log      *slog.Logger
	clock    clock.Clock
	policy   sessions.Policy
	defaults defaults
	// messenger opens the games' threads (nil: no thread, nothing posted).
	messenger Messenger
	rand      *lockedRand
}

// tournamentStore is what tournaments read and write: the tournaments,
// and the sessions of their games.
type tournamentStore interface {
	sessions.TournamentStore
	getter
	updater
	settingsReader
	Create(ctx context.Context, s *sessions.Session) (*sessions.Session, error)
	Rating(ctx context.Context, guildID, userID string) (sessions.MemberRating, error)
}

func (h *tournaments) routes() []route {
	return []route{
		admin("tournament create", discordgo.PermissionManageGuild, h.create, helpLine("help_tournament_create")),
		admin("tournament start", discordgo.PermissionManageGuild, h.start, helpLine("help_tournament_manage")),
		admin("tournament pause", discordgo.PermissionManageGuild, h.pause, helpLine("help_tournament_manage")),
		admin("tournament resume", discordgo.PermissionManageGuild, h.resume, helpLine("help_tournament_manage")),
		admin("tournament end", discordgo.PermissionManageGuild, h.end, helpLine("help_tournament_manage")),
		admin("tournament remove", discordgo.PermissionManageGuild, h.remove, helpLine("help_tournament_manage")),
		command("tournament leave", h.leave, helpLine("help_tournament_leave")),
		command("tournament standings", h.standings, helpLine("help_tournament_standings")),
		button("tjoin", tournamentParts, h.join),
		button("tleave", tournamentParts, h.leaveButton),
	}
}

// tournamentParts are the custom_id parts of a sign-up's buttons:
// cn:tjoin:<tournament> and cn:tleave:<tournament>.
var tournamentParts = []customid.Part{{Name: "tournament", Min: 1, Max: 1<<53 - 1}}

// Refusals of the tournaments' Discord side.
var (
	// reasonTournamentNeedsBot: a tournament where the bot cannot post
	// (no bot token, or not a member of the server).
	reasonTournamentNeedsBot = sessions.NewReason("tournament_needs_bot")
	// reasonTournamentButton: a Join or Leave that names no open
	// tournament's sign-up (stale or crafted).
	reasonTournamentButton = sessions.NewReason("tournament_button")
	// reasonTournamentStartFormat: a start time that cannot be read.
	reasonTournamentStartFormat = sessions.NewReason("tournament_start_format")
)

// The choices of the format option.
const (
	formatSwiss      = "swiss"
	formatRoundRobin = "round-robin"
	formatDouble     = "double-round-robin"
	formatArena      = "arena"
)

// maxStartAhead is how far ahead a tournament may be set to start.
const maxStartAhead = 30 * 24 * time.Hour

// createOptions are the options of /connectn-admin tournament create.
type createOptions struct {
	Name                         optString
	Format                       string
	Rows, Columns, Connect, Wins optInt
	Theme                        optString
	Rounds                       optInt
	Duration, Start, TurnTimeout optString
	Rated, Threads               toggle
	Channel, Role                optString
	Players                      optInt
}

func (o *createOptions) declare(s *optionSet) {
	s.text("name", &o.Name)
	s.oneOf("format", &o.Format, formatSwiss, []choice{
		{value: formatSwiss, label: "choice_format_swiss"}, {value: formatRoundRobin, label: "choice_format_round_robin"},
		{value: formatDouble, label: "choice_format_double_round_robin"}, {value: formatArena, label: "choice_format_arena"},
	})
	s.optInteger("rows", &o.Rows, minRows, maxRows, defaultRows)
	s.optInteger("columns", &o.Columns, minColumns, maxColumns, defaultColumns)
	s.optInteger("connect", &o.Connect, minConnect, maxConnect, defaultConnect)
	s.optInteger("wins", &o.Wins, minWins, maxWins, 1)
	s.optChoice("theme", &o.Theme, themeChoices())
	s.number("rounds", &o.Rounds, 1, tournament.MaxRounds)
	s.text("duration", &o.Duration)
	s.text("starts-at", &o.Start)
	s.text("turn-timeout", &o.TurnTimeout)
	s.boolean("rated", &o.Rated)
	s.channel("channel", &o.Channel)
	s.number("players", &o.Players, 2, tournament.MaxPlayers)
	s.role("role", &o.Role)
	s.boolean("threads", &o.Threads)
}

// create handles /connectn-admin tournament create: it checks the
// options, stores the tournament open for sign-up and answers privately;
// its sign-up message is posted in its channel once Discord has the
// answer (and by the scheduler, should that fail).
func (h *tournaments) create(ctx context.Context, c *call, o *createOptions) (*discordgo.InteractionResponse, error) {
	if h.store == nil || h.messenger == nil || !h.messenger.HasBotToken() || webhookOnly(c.i) {
		return nil, sessions.Refuse(reasonTournamentNeedsBot)
	}
	rules, err := h.defaults.rulesOf(ctx, h.store, c)
	if err != nil {
		return nil, err
	}
	rows, columns := o.Rows.or(nil, defaultRows), o.Columns.or(nil, defaultColumns)
	connect := o.Connect.or(nil, defaultConnect)
	if err := sessions.CheckBoard(rows, columns, connect); err != nil {
		return nil, err
	}
	cfg := tournament.Config{
		Name:   strings.TrimSpace(o.Name.or(nil, c.public(nil).T("tournament_default_name"))),
		Rounds: o.Rounds.v, PlayerLimit: o.Players.v,
		Rows: rows, Columns: columns, Connect: connect, Wins: o.Wins.or(nil, 1),
		Rated: o.Rated.or(or(rules.gs.Rated, true)),
	}
	switch o.Format {
	case formatSwiss:
		cfg.Format = tournament.Swiss
	case formatRoundRobin, formatDouble:
		cfg.Format, cfg.Double = tournament.RoundRobin, o.Format == formatDouble
	case formatArena:
		cfg.Format = tournament.Arena
	}
	if o.Duration.set {
		if cfg.Duration, err = sessions.ParseDuration("duration", o.Duration.v, tournament.MinArenaDuration, tournament.MaxArenaDuration); err != nil {
			return nil, err
		}
	}
	settings := sessions.TournamentSettings{
		Theme:   o.Theme.or(rules.gs.Theme, render.Themes[0].Name),
		Role:    o.Role.v,
		Threads: o.Threads.or(true),
		Locale:  rules.place(c).Locale,
	}
	if o.TurnTimeout.set {
		if settings.TurnTimeout, err = sessions.ParseDuration("turn-timeout", o.TurnTimeout.v, sessions.MinTimeout, sessions.MaxTimeout); err != nil {
			return nil, err
		}
	} else {
		settings.TurnTimeout = or(rules.gs.TurnTimeout, 0)
	}
	if o.Start.set {
		if settings.StartAt, err = parseStart(o.Start.v, c.now); err != nil {
			return nil, err
		}
	}
	t, err := sessions.NewTournament(sessions.TournamentRequest{
		GuildID: c.i.GuildID, ChannelID: o.Channel.or(nil, c.i.ChannelID), Config: cfg, Settings: settings,
		Seed: int64(h.rand.intn(math.MaxInt)), CreatedBy: c.user,
	}, c.now)
	if err != nil {
		return nil, err
	}
	if t, err = h.store.CreateTournament(ctx, t); err != nil {
		return nil, err
	}
	h.log.Info("tournament created", "tournament", t.ID, "guild", t.GuildID, "channel", t.ChannelID, "format", string(cfg.Format), "admin", c.user)
	c.afterResponse(func(ctx context.Context) { h.settle(ctx, t.ID) })
	return render.Ephemeral(render.TournamentCreated(c.reader, t)), nil
}

// discordTimestamp is a Discord timestamp as members paste it: <t:UNIX>
// or <t:UNIX:STYLE>.
var discordTimestamp = regexp.MustCompile(`^<t:(-?\d+)(:[tTdDfFR])?>$`)

// parseStart reads a start time given at now: a delay ("2h", "in 90m"), a
// date and time in UTC ("2026-05-01 20:00"), one with its offset (RFC
// 3339), a Unix time or a Discord timestamp. It refuses
// reasonTournamentStartFormat for anything else, or a time more than
// maxStartAhead ahead; a time in the past is NewTournament's to refuse.
func parseStart(v string, now time.Time) (time.Time, error) {
	v = strings.TrimSpace(v)
	var at time.Time
	if m := discordTimestamp.FindStringSubmatch(v); m != nil {
		v = m[1]
	}
	if d, err := time.ParseDuration(strings.TrimSpace(strings.TrimPrefix(v, "in "))); err == nil {
		at = now.Add(d)
	} else if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		at = time.Unix(n, 0)
	} else {
		for _, layout := range []string{time.RFC3339, "2006-01-02T15:04", "2006-01-02 15:04", "2006-01-02 15:04:05"} {
			if t, err := time.ParseInLocation(layout, v, time.UTC); err == nil {
				at = t
				break
			}
		}
	}
	if at.IsZero() || at.After(now.Add(maxStartAhead)) {
		return time.Time{}, sessions.Refuse(reasonTournamentStartFormat)
	}
	return at.UTC(), nil
}

// current returns the tournament a command in c's channel is about: the
// one whose game the channel plays (a game's thread), else the newest
// under way (not finished) whose channel it is, else the only one under
// way in the server; with player set, only those where that member is a
// player who has not withdrawn; with ended, the newest tournament of the
// channel, or of the server, when none is under way. It refuses
// ReasonTournamentWhich when several are under way and none is the
// channel's, and ReasonTournamentNotFound when there is none.
func (h *tournaments) current(ctx context.Context, c *call, player string, ended bool) (*sessions.Tournament, error) {
	if h.store == nil {
		return nil, sessions.Refuse(sessions.ReasonTournamentNotFound)
	}
	fits := func(t *sessions.Tournament) bool {
		if player == "" {
			return true
		}
		p, ok := t.Entry(player)
		return ok && !p.Withdrawn
	}
	if s, err := h.store.Get(ctx, c.i.ChannelID); err == nil && s.Tournament.Set() {
		if t, err := h.store.Tournament(ctx, s.Tournament.ID); err == nil && t.GuildID == c.i.GuildID &&
			(t.Status != sessions.TournamentFinished || ended) && fits(t) {
			return t, nil
		}
	}
	list, err := h.store.Tournaments(ctx, c.i.GuildID, 25)
	if err != nil {
		return nil, err
	}
	var live []*sessions.Tournament
	for _, t := range list {
		if t.Status != sessions.TournamentFinished && fits(t) {
			if t.ChannelID == c.i.ChannelID {
				return t, nil
			}
			live = append(live, t)
		}
	}
	switch {
	case len(live) == 1:
		return live[0], nil
	case len(live) > 1:
		return nil, sessions.Refuse(sessions.ReasonTournamentWhich)
	case ended && len(list) > 0:
		for _, t := range list {
			if t.ChannelID == c.i.ChannelID {
				return t, nil
			}
		}
		return list[0], nil
	}
	return nil, sessions.Refuse(sessions.ReasonTournamentNotFound)
}

// start handles /connectn-admin tournament start: the tournament of the
// channel starts now, its first round paired; its games and pairings
// follow once Discord has the answer.
func (h *tournaments) start(ctx context.Context, c *call, _ *noOptions) (*discordgo.InteractionResponse, error) {
	t, err := h.current(ctx, c, "", false)
	if err != nil {
		return nil, err
	}
	var step sessions.TournamentStep
	t, err = h.store.UpdateTournament(ctx, t.ID, func(t *sessions.Tournament) error {
		if err := t.Start(c.now); err != nil {
			return err
		}
		var err error
		if step, err = t.Step(c.now, h.policy); errors.Is(err, sessions.ErrNothingDue) {
			err = nil
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	h.log.Info("tournament started", "tournament", t.ID, "players", t.Active(), "admin", c.user)
	c.afterResponse(func(ctx context.Context) { h.carryOut(ctx, t, step) })
	return render.Ephemeral(c.reader.T("tournament_started_done", "Name", render.TournamentName(t))), nil
}

// pause handles /connectn-admin tournament pause.
func (h *tournaments) pause(ctx context.Context, c *call, _ *noOptions) (*discordgo.InteractionResponse, error) {
	return h.change(ctx, c, "tournament_paused_done", func(t *sessions.Tournament) error { return t.Pause(c.now) })
}

// resume handles /connectn-admin tournament resume.
func (h *tournaments) resume(ctx context.Context, c *call, _ *noOptions) (*discordgo.InteractionResponse, error) {
	return h.change(ctx, c, "tournament_resumed_done", func(t *sessions.Tournament) error { return t.Resume(c.now) })
}

// change applies fn to the tournament of c's channel, answers privately
// with message done, and lets the scheduler's work catch up with the
// change once Discord has the answer.
func (h *tournaments) change(ctx context.Context, c *call, done string, fn func(*sessions.Tournament) error) (*discordgo.InteractionResponse, error) {
	t, err := h.current(ctx, c, "", false)
	if err != nil {
		return nil, err
	}
	if t, err = h.store.UpdateTournament(ctx, t.ID, fn); err != nil {
		return nil, err
	}
	h.log.Info("tournament changed", "tournament", t.ID, "status", string(t.Status), "admin", c.user)
	c.afterResponse(func(ctx context.Context) { h.settle(ctx, t.ID) })
	return render.Ephemeral(c.reader.T(done, "Name", render.TournamentName(t))), nil
}

// end handles /connectn-admin tournament end: the tournament ends now;
// each game under way ends too, counted as it stands, and the final
// standings and podium follow once every result is in.
func (h *tournaments) end(ctx context.Context, c *call, _ *noOptions) (*discordgo.InteractionResponse, error) {
	t, err := h.current(ctx, c, "", false)
	if err != nil {
		return nil, err
	}
	var playing []sessions.TournamentGame
	t, err = h.store.UpdateTournament(ctx, t.ID, func(t *sessions.Tournament) error {
		var err error
		playing, err = t.End(c.user, c.now)
		return err
	})
	if err != nil {
		return nil, err
	}
	h.log.Info("tournament ended by an admin", "tournament", t.ID, "games", len(playing), "admin", c.user)
	c.afterResponse(func(ctx context.Context) {
		for _, g := range playing {
			h.settleGame(ctx, g, func(s *sessions.Session) error { return s.EndBy(c.user) })
		}
		h.settle(ctx, t.ID)
	})
	return render.Ephemeral(c.reader.T("tournament_ended_done", "Name", render.TournamentName(t))), nil
}

// removeOptions are the options of /connectn-admin tournament remove.
type removeOptions struct {
	Player member
}

func (o *removeOptions) declare(s *optionSet) { s.user("player", &o.Player) }

// remove handles /connectn-admin tournament remove player:@x: the player
// is out (withdrawn, results kept), their game under way lost by forfeit.
func (h *tournaments) remove(ctx context.Context, c *call, o *removeOptions) (*discordgo.InteractionResponse, error) {
	if !o.Player.set {
		return nil, malformed("remove without a player")
	}
	t, err := h.current(ctx, c, "", false)
	if err != nil {
		return nil, err
	}
	t, err = h.withdraw(ctx, c, t.ID, o.Player.ID)
	if err != nil {
		return nil, err
	}
	return render.Ephemeral(c.reader.T("tournament_removed_done", "Name", render.TournamentName(t),
		"Player", "**"+render.EscapeName(c.reader, o.Player.Name)+"**")), nil
}

// leave handles /connectn tournament leave: the member withdraws from
// their tournament (the channel's, else their only one under way).
func (h *tournaments) leave(ctx context.Context, c *call, _ *noOptions) (*discordgo.InteractionResponse, error) {
	t, err := h.current(ctx, c, c.user, false)
	if err != nil {
		return nil, err
	}
	if t, err = h.withdraw(ctx, c, t.ID, c.user); err != nil {
		return nil, err
	}
	return render.Ephemeral(c.reader.T("tournament_left_done", "Name", render.TournamentName(t))), nil
}

// withdraw takes userID out of tournament id, and once Discord has the
// answer, ends their game under way as their forfeit (recorded as any
// result) and lets the messages catch up.
func (h *tournaments) withdraw(ctx context.Context, c *call, id int64, userID string) (*sessions.Tournament, error) {
	var game sessions.TournamentGame
	t, err := h.store.UpdateTournament(ctx, id, func(t *sessions.Tournament) error {
		var err error
		_, game, err = t.Leave(userID, c.now)
		return err
	})
	if err != nil {
		return nil, err
	}
	h.log.Info("tournament player withdrawn", "tournament", t.ID, "by", c.user)
	c.afterResponse(func(ctx context.Context) {
		if game.SessionID != 0 {
			h.settleGame(ctx, game, func(s *sessions.Session) error { return s.Forfeit(userID) })
		}
		h.settle(ctx, t.ID)
	})
	return t, nil
}

// settleGame applies fn (a forfeit, or an admin's end) to the session of
// game g, unless the channel moved on to another session, and edits its
// board to show how it ended.
func (h *tournaments) settleGame(ctx context.Context, g sessions.TournamentGame, fn func(*sessions.Session) error) {
	s, err := h.store.Update(ctx, g.ChannelID, func(s *sessions.Session) error {
		if s.ID != g.SessionID {
			return sessions.ErrNothingDue
		}
		return fn(s)
	})
	var refused *sessions.Refusal
	switch {
	case errors.Is(err, sessions.ErrNothingDue), errors.Is(err, sessions.ErrNotFound), errors.As(err, &refused):
		return // it ended meanwhile
	case err != nil:
		h.log.Warn("ending a tournament game", "match", g.SessionID, "channel", g.ChannelID, "err", err)
		return
	}
	h.boards.Edit(ctx, s, h.boards.Settled(ctx, render.Public(s), s))
}

// standings handles /connectn tournament standings: the standings of the
// channel's tournament (or the server's newest), privately.
func (h *tournaments) standings(ctx context.Context, c *call, _ *noOptions) (*discordgo.InteractionResponse, error) {
	t, err := h.current(ctx, c, "", true)
	if err != nil {
		return nil, err
	}
	msg := render.Standings(c.reader, t)
	msg.Flags = discordgo.MessageFlagsEphemeral
	return &discordgo.InteractionResponse{Type: discordgo.InteractionResponseChannelMessageWithSource, Data: msg}, nil
}

// join answers Join on a sign-up message: the member who clicks enters
// the tournament (their rating in the server noted), and the message
// shows them. A click that names no open tournament's sign-up here, or
// that the tournament refuses (full, closed, the role missing), is
// answered privately and changes nothing.
func (h *tournaments) join(ctx context.Context, c *call) (*discordgo.InteractionResponse, error) {
	if h.store == nil {
		return nil, sessions.Refuse(reasonTournamentButton)
	}
	r, err := h.store.Rating(ctx, c.i.GuildID, c.user)
	if err != nil {
		return nil, err
	}
	rating := 0.0
	if r.Games > 0 {
		rating = r.R
	}
	return h.signUp(ctx, c, func(t *sessions.Tournament) error {
		role := t.Settings.Role != "" && slices.Contains(roles(c.i.Member), t.Settings.Role)
		return t.Join(sessions.Member{ID: c.user, Name: c.name}, rating, role, c.now)
	})
}

// leaveButton answers Leave on a sign-up message: the member who clicks
// leaves (before the start, no longer entered; in an arena under way,
// withdrawn, their game under way lost).
func (h *tournaments) leaveButton(ctx context.Context, c *call) (*discordgo.InteractionResponse, error) {
	if h.store == nil {
		return nil, sessions.Refuse(reasonTournamentButton)
	}
	var game sessions.TournamentGame
	resp, err := h.signUp(ctx, c, func(t *sessions.Tournament) error {
		if _, ok := t.Entry(c.user); !ok {
			return sessions.Refuse(sessions.ReasonTournamentNotJoined)
		}
		var err error
		_, game, err = t.Leave(c.user, c.now)
		return err
	})
	if err == nil && game.SessionID != 0 {
		c.afterResponse(func(ctx context.Context) {
			h.settleGame(ctx, game, func(s *sessions.Session) error { return s.Forfeit(c.user) })
		})
	}
	return resp, err
}

// signUp applies fn to the tournament whose sign-up c clicked, and
// answers with the sign-up message as it now reads. The click must name
// a tournament of this server whose sign-up is this message (or, while
// its ID is not known yet, in this channel).
func (h *tournaments) signUp(ctx context.Context, c *call, fn func(*sessions.Tournament) error) (*discordgo.InteractionResponse, error) {
	t, err := h.store.UpdateTournament(ctx, c.id.Part(0), func(t *sessions.Tournament) error {
		switch {
		case t.GuildID != c.i.GuildID, t.ChannelID != c.i.ChannelID,
			t.Posts.SignUp != "" && t.Posts.SignUp != c.messageID():
			return sessions.Refuse(reasonTournamentButton)
		}
		if err := fn(t); err != nil {
			return err
		}
		t.SignUpShown(c.now) // this answer updates the message
		return nil
	})
	if errors.Is(err, sessions.ErrTournamentNotFound) {
		return nil, sessions.Refuse(reasonTournamentButton)
	}
	if err != nil {
		return nil, err
	}
	return updateMessage(render.SignUp(render.TournamentPublic(t), t, h.turn(t), c.now)), nil
}

// turn returns the time a turn lasts in t's games.
func (h *tournaments) turn(t *sessions.Tournament) time.Duration {
	if t.Settings.TurnTimeout > 0 {
		return t.Settings.TurnTimeout
	}
	return h.policy.TurnTimeout
}
