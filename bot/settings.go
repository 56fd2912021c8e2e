package bot

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot/internal/render"

	"github.com/connectn/connectn/game/ai"
	"github.com/connectn/connectn/locale"
	"github.com/connectn/connectn/sessions"
)

// Refusals of the admins' command and of the rules a server sets.
var (
	reasonAdminInServer  = sessions.NewReason("admin_in_server")
	reasonManageServer   = sessions.NewReason("manage_server")
	reasonManageMessages = sessions.NewReason("manage_messages")
)

// permissionReason returns the refusal of a member who lacks perm.
func permissionReason(perm int64) sessions.Reason {
	if perm == discordgo.PermissionManageGuild {
		return reasonManageServer
	}
	return reasonManageMessages
}

// languages are the languages a server may set for its public messages,
// by Discord's locale code, each named in itself (a language's own name
// is the same in every language: it is data, not text to translate).
var languages = []struct{ tag, name string }{
	{"en-US", "English (US)"}, {"en-GB", "English (UK)"}, {"de", "Deutsch"}, {"fr", "Français"},
	{"es-ES", "Español (España)"}, {"es-419", "Español (Latinoamérica)"}, {"pt-BR", "Português (Brasil)"},
	{"it", "Italiano"}, {"nl", "Nederlands"}, {"pl", "Polski"}, {"ru", "Русский"}, {"uk", "Українська"},
	{"tr", "Türkçe"}, {"ja", "日本語"}, {"ko", "한국어"}, {"zh-CN", "中文（简体）"}, {"zh-TW", "中文（台灣）"},
}

// languageName returns the own name of Discord locale tag, or tag.
func languageName(tag string) string {
	for _, l := range languages {
		if strings.EqualFold(l.tag, tag) {
			return l.name
		}
	}
	return tag
}

// rules are the settings in force in a server: its own
// (sessions.GuildSettings), over the bot's defaults (the host's
// environment, and the options' own defaults).
type rules struct {
	gs      sessions.GuildSettings
	policy  sessions.Policy
	threads bool
	// guildLocale is the server's own language (Discord's guild_locale),
	// the language of its public messages unless gs sets another.
	guildLocale string
}

// defaults are the bot's own settings, beneath every server's: the
// policy's timeouts and whether a challenge opens a thread (the host's
// environment).
type defaults struct {
	policy  sessions.Policy
	threads bool
}

// settingsReader reads a server's settings (sessions.Store's
// GuildSettings).
type settingsReader interface {
	GuildSettings(ctx context.Context, guildID string) (sessions.GuildSettings, error)
}

// rulesOf reads the settings of the server c comes from, fresh from st
// (a change made in another replica applies at once); outside a server,
// the bot's defaults alone.
func (d defaults) rulesOf(ctx context.Context, st settingsReader, c *call) (rules, error) {
	if c.i.GuildID == "" {
		return d.rules(c, sessions.GuildSettings{}), nil
	}
	gs, err := st.GuildSettings(ctx, c.i.GuildID)
	return d.rules(c, gs), err
}

// rules returns the rules of gs, the settings of the server c comes from.
func (d defaults) rules(c *call, gs sessions.GuildSettings) rules {
	r := rules{gs: gs, policy: d.policy, threads: d.threads}
	if c.i.GuildLocale != nil {
		r.guildLocale = string(*c.i.GuildLocale)
	}
	return r
}

// or returns *v, or def when v is nil.
func or[T any](v *T, def T) T {
	if v != nil {
		return *v
	}
	return def
}

// place returns the Place of a session the call opens under r: the
// server's language and timeouts when it set them.
func (r rules) place(c *call) sessions.Place {
	p := c.place()
	if r.gs.Locale != nil {
		p.Locale = *r.gs.Locale
	}
	p.ChallengeTimeout = or(r.gs.ChallengeTimeout, 0)
	p.TurnTimeout = or(r.gs.TurnTimeout, 0)
	return p
}

// roles returns the roles (by ID) of member m, none outside a server.
func roles(m *discordgo.Member) []string {
	if m == nil {
		return nil
	}
	return m.Roles
}

// setting is one server setting: its key (reset's choice value, and
// setting_<key> its name in the catalog), how show writes its value and
// whether the server set it, and how reset clears it.
type setting struct {
	key   string
	value func(l *locale.Localizer, r rules) (string, bool)
	clear func(gs *sessions.GuildSettings)
}

// settings are the server settings, in the order show lists them.
var settings = []setting{
	intSetting("rows", func(gs *sessions.GuildSettings) **int { return &gs.Rows }, defaultRows),
	intSetting("columns", func(gs *sessions.GuildSettings) **int { return &gs.Columns }, defaultColumns),
	intSetting("connect", func(gs *sessions.GuildSettings) **int { return &gs.Connect }, defaultConnect),
	intSetting("wins", func(gs *sessions.GuildSettings) **int { return &gs.Wins }, defaultWins),
	{key: "theme", value: func(l *locale.Localizer, r rules) (string, bool) {
		return l.T("choice_theme_" + or(r.gs.Theme, render.Themes[0].Name)), r.gs.Theme != nil
	}, clear: func(gs *sessions.GuildSettings) { gs.Theme = nil }},
	{key: "level", value: func(l *locale.Localizer, r rules) (string, bool) {
		return l.T("level_" + or(r.gs.AILevel, ai.DefaultLevel.String())), r.gs.AILevel != nil
	}, clear: func(gs *sessions.GuildSettings) { gs.AILevel = nil }},
	{key: "challenge_timeout", value: func(l *locale.Localizer, r rules) (string, bool) {
		return render.Duration(l, or(r.gs.ChallengeTimeout, r.policy.ChallengeTimeout)), r.gs.ChallengeTimeout != nil
	}, clear: func(gs *sessions.GuildSettings) { gs.ChallengeTimeout = nil }},
	{key: "turn_timeout", value: func(l *locale.Localizer, r rules) (string, bool) {
		return render.Duration(l, or(r.gs.TurnTimeout, r.policy.TurnTimeout)), r.gs.TurnTimeout != nil
	}, clear: func(gs *sessions.GuildSettings) { gs.TurnTimeout = nil }},
	{key: "channels", value: func(l *locale.Localizer, r rules) (string, bool) {
		if len(r.gs.Channels) == 0 {
			return l.T("value_every_channel"), false
		}
		var list []string
		for _, ch := range r.gs.Channels {
			list = append(list, "<#"+ch+">")
		}
		return strings.Join(list, ", "), true
	}, clear: func(gs *sessions.GuildSettings) { gs.Channels = nil }},
	{key: "role", value: func(l *locale.Localizer, r rules) (string, bool) {
		if r.gs.Role == nil {
			return l.T("value_no_role"), false
		}
		return "<@&" + *r.gs.Role + ">", true
	}, clear: func(gs *sessions.GuildSettings) { gs.Role = nil }},
	{key: "cooldown", value: func(l *locale.Localizer, r rules) (string, bool) {
		if or(r.gs.Cooldown, 0) == 0 {
			return l.T("value_no_cooldown"), r.gs.Cooldown != nil
		}
		return render.Duration(l, *r.gs.Cooldown), true
	}, clear: func(gs *sessions.GuildSettings) { gs.Cooldown = nil }},
	{key: "language", value: func(l *locale.Localizer, r rules) (string, bool) {
		if r.gs.Locale == nil {
			return l.T("value_server_language", "Language", languageName(r.guildLocale)), false
		}
		return languageName(*r.gs.Locale), true
	}, clear: func(gs *sessions.GuildSettings) { gs.Locale = nil }},
	boolSetting("threads", func(gs *sessions.GuildSettings) **bool { return &gs.Threads }, func(r rules) bool { return r.threads }),
	boolSetting("rated", func(gs *sessions.GuildSettings) **bool { return &gs.Rated }, func(rules) bool { return true }),
}

// intSetting is the setting of an integer default of a challenge.
func intSetting(key string, field func(*sessions.GuildSettings) **int, def int) setting {
	return setting{key: key,
		value: func(l *locale.Localizer, r rules) (string, bool) {
			p := *field(&r.gs)
			return fmt.Sprint(or(p, def)), p != nil
		},
		clear: func(gs *sessions.GuildSettings) { *field(gs) = nil }}
}

// boolSetting is an on-or-off setting with the bot's default def.
func boolSetting(key string, field func(*sessions.GuildSettings) **bool, def func(rules) bool) setting {
	return setting{key: key,
		value: func(l *locale.Localizer, r rules) (string, bool) {
			p := *field(&r.gs)
			if or(p, def(r)) {
				return l.T("value_on"), p != nil
			}
			return l.T("value_off"), p != nil
		},
		clear: func(gs *sessions.GuildSettings) { *field(gs) = nil }}
}

// renderSettings draws the server's settings as show lists them: each
// with its value and where it comes from, privately, after saved (a line
// saying what was just changed; "" for none).
func renderSettings(l *locale.Localizer, r rules, saved string) *discordgo.InteractionResponse {
	var lines []string
	for _, st := range settings {
		v, here := st.value(l, r)
		source := l.T("source_default")
		if here {
			source = l.T("source_server")
		}
		lines = append(lines, l.T("settings_line", "Setting", l.T("setting_"+st.key), "Value", v, "Source", source))
	}
	resp := render.Ephemeral(saved)
	resp.Data.Embeds = []*discordgo.MessageEmbed{{
		Title: l.T("settings_title"),
		// The commands to change them are code, which a footer would show
		// as plain text with its backticks: the last paragraph says them.
		Description: strings.Join(lines, "\n") + "\n\n" + l.T("settings_footer"),
		Color:       render.Themes[0].ColorOf(0),
	}}
	return resp
}

// serverSettings is the feature of /connectn-admin settings: show, set
// and reset, for members with Manage Server.
type serverSettings struct {
	store settingsStore
	log   *slog.Logger
	defaults
	// daily reads the daily puzzle's setting, shown with the others; nil:
	// no puzzles.
	daily dailyReader
}

// settingsStore is what serverSettings reads and writes.
type settingsStore interface {
	settingsReader
	UpdateGuildSettings(ctx context.Context, guildID, userID string, fn func(*sessions.GuildSettings) error) (sessions.GuildSettings, error)
}

func (h *serverSettings) routes() []route {
	return []route{
		admin("settings show", discordgo.PermissionManageGuild, h.show, helpLine("help_admin")),
		admin("settings set", discordgo.PermissionManageGuild, h.set, helpLine("help_admin")),
		admin("settings reset", discordgo.PermissionManageGuild, h.reset, helpLine("help_admin")),
	}
}

// show handles /connectn-admin settings show.
func (h *serverSettings) show(ctx context.Context, c *call, _ *noOptions) (*discordgo.InteractionResponse, error) {
	r, err := h.rulesOf(ctx, h.store, c)
	if err != nil {
		return nil, err
	}
	resp := renderSettings(c.reader, r, "")
	if h.daily != nil {
		d, err := h.daily.DailyPuzzle(ctx, c.i.GuildID)
		if err != nil {
			return nil, err
		}
		// The line goes with the others, above the last paragraph.
		e := resp.Data.Embeds[0]
		if k := strings.LastIndex(e.Description, "\n\n"); k >= 0 {
			e.Description = e.Description[:k] + "\n" + dailyStatus(c.reader, d) + e.Description[k:]
		}
	}
	return resp, nil
}

// setOptions are the options of /connectn-admin settings set: each one
// given is saved.
type setOptions struct {
	Rows, Columns, Connect, Wins            optInt
	Theme, Level, Language                  optString
	ChallengeTimeout, TurnTimeout, Cooldown optString
	AllowChannel, DisallowChannel, Role     optString
	Threads, Rated                          toggle
}

func (o *setOptions) declare(s *optionSet) {
	s.optInteger("rows", &o.Rows, minRows, maxRows, defaultRows)
	s.optInteger("columns", &o.Columns, minColumns, maxColumns, defaultColumns)
	s.optInteger("connect", &o.Connect, minConnect, maxConnect, defaultConnect)
	s.optInteger("wins", &o.Wins, minWins, maxWins, defaultWins)
	s.optChoice("theme", &o.Theme, themeChoices())
	s.optChoice("level", &o.Level, levelChoices())
	s.text("challenge-timeout", &o.ChallengeTimeout)
	s.text("turn-timeout", &o.TurnTimeout)
	s.channel("allow-channel", &o.AllowChannel)
	s.channel("disallow-channel", &o.DisallowChannel)
	s.role("role", &o.Role)
	s.text("cooldown", &o.Cooldown)
	s.optChoice("language", &o.Language, languageChoices())
	s.boolean("threads", &o.Threads)
	s.boolean("rated", &o.Rated)
}

// languageChoices are the choices of the language setting: the server's
// own (Discord's setting), then each language by its own name.
func languageChoices() []choice {
	out := []choice{{value: "server", label: "choice_language_server"}}
	for _, l := range languages {
		out = append(out, choice{value: l.tag, name: l.name})
	}
	return out
}

// set handles /connectn-admin settings set: it checks every
// option given, saves them together (another replica's change to other
// settings at the same moment is kept: the store reads and writes the
// server's settings in one step) and shows the settings.
func (h *serverSettings) set(ctx context.Context, c *call, o *setOptions) (*discordgo.InteractionResponse, error) {
	var changed []string
	durations := map[string]*time.Duration{}
	for _, d := range []struct {
		key, name string
		v         optString
		lo, hi    time.Duration
	}{
		{"challenge_timeout", "challenge-timeout", o.ChallengeTimeout, sessions.MinTimeout, sessions.MaxTimeout},
		{"turn_timeout", "turn-timeout", o.TurnTimeout, sessions.MinTimeout, sessions.MaxTimeout},
		{"cooldown", "cooldown", o.Cooldown, 0, sessions.MaxCooldown},
	} {
		if !d.v.set {
			continue
		}
		v, err := sessions.ParseDuration(sessions.OptionName(d.name), d.v.v, d.lo, d.hi)
		if err != nil {
			return nil, err
		}
		durations[d.key] = &v
	}
	gs, err := h.store.UpdateGuildSettings(ctx, c.i.GuildID, c.user, func(gs *sessions.GuildSettings) error {
		changed = changed[:0]
		note := func(key string) { changed = append(changed, key) }
		for _, f := range []struct {
			key string
			v   optInt
			dst **int
		}{{"rows", o.Rows, &gs.Rows}, {"columns", o.Columns, &gs.Columns}, {"connect", o.Connect, &gs.Connect}, {"wins", o.Wins, &gs.Wins}} {
			if f.v.set {
				v := f.v.v
				*f.dst = &v
				note(f.key)
			}
		}
		rows, columns, connect := or(gs.Rows, defaultRows), or(gs.Columns, defaultColumns), or(gs.Connect, defaultConnect)
		if err := sessions.CheckBoardSettings(rows, columns, connect); err != nil {
			return err
		}
		if o.Theme.set {
			gs.Theme = &o.Theme.v
			note("theme")
		}
		if o.Level.set {
			gs.AILevel = &o.Level.v
			note("level")
		}
		if d := durations["challenge_timeout"]; d != nil {
			gs.ChallengeTimeout = d
			note("challenge_timeout")
		}
		if d := durations["turn_timeout"]; d != nil {
			gs.TurnTimeout = d
			note("turn_timeout")
		}
		if d := durations["cooldown"]; d != nil {
			gs.Cooldown = d
			note("cooldown")
		}
		if o.AllowChannel.set && !slices.Contains(gs.Channels, o.AllowChannel.v) {
			gs.Channels = append(gs.Channels, o.AllowChannel.v)
		}
		if o.DisallowChannel.set {
			gs.Channels = slices.DeleteFunc(gs.Channels, func(ch string) bool { return ch == o.DisallowChannel.v })
		}
		if o.AllowChannel.set || o.DisallowChannel.set {
			note("channels")
		}
		if o.Role.set {
			gs.Role = &o.Role.v
			note("role")
		}
		if o.Language.set {
			gs.Locale = nil
			if o.Language.v != "server" {
				gs.Locale = &o.Language.v
			}
			note("language")
		}
		if o.Threads.set {
			gs.Threads = &o.Threads.on
			note("threads")
		}
		if o.Rated.set {
			gs.Rated = &o.Rated.on
			note("rated")
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	h.log.Info("server settings changed", "guild", c.i.GuildID, "by", c.user, "settings", strings.Join(changed, ","))
	r := h.rules(c, gs)
	saved := ""
	if len(changed) > 0 {
		saved = c.reader.T("settings_saved", "Settings", settingNames(c.reader, changed))
	}
	return renderSettings(c.reader, r, saved), nil
}

// settingNames lists the settings of keys by their names in l's language.
func settingNames(l *locale.Localizer, keys []string) string {
	var names []string
	for _, k := range keys {
		names = append(names, l.T("setting_"+k))
	}
	return strings.Join(names, ", ")
}

// resetOptions are the options of /connectn-admin settings reset.
type resetOptions struct {
	Setting optString
}

func (o *resetOptions) declare(s *optionSet) {
	out := []choice{{value: "all", label: "setting_all"}}
	for _, st := range settings {
		out = append(out, choice{value: st.key, label: "setting_" + st.key})
	}
	s.optChoice("setting", &o.Setting, out)
}

// reset handles /connectn-admin settings reset: the setting given
// (or all) goes back to the bot's default.
func (h *serverSettings) reset(ctx context.Context, c *call, o *resetOptions) (*discordgo.InteractionResponse, error) {
	if !o.Setting.set {
		return nil, malformed("reset without a setting")
	}
	var keys []string
	gs, err := h.store.UpdateGuildSettings(ctx, c.i.GuildID, c.user, func(gs *sessions.GuildSettings) error {
		keys = keys[:0]
		for _, st := range settings {
			if o.Setting.v == "all" || o.Setting.v == st.key {
				st.clear(gs)
				keys = append(keys, st.key)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	h.log.Info("server settings reset", "guild", c.i.GuildID, "by", c.user, "settings", strings.Join(keys, ","))
	return renderSettings(c.reader, h.rules(c, gs), c.reader.T("settings_reset_done", "Settings", settingNames(c.reader, keys))), nil
}
