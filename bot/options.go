package bot

import (
	"fmt"
	"slices"
	"strings"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot/internal/render"

	"github.com/connectn/connectn/locale"
	"github.com/connectn/connectn/sessions"
)

// optionSet is the options of one subcommand, as its options struct
// declares them (the declare method): once to register them with Discord
// (Commands), once per call to decode them into the struct. Discord
// enforces the bounds and choices it is told; decoding checks them again,
// since a request can be crafted.
type optionSet struct {
	specs []*optionSpec
}

// optionSpec is one declared option.
type optionSpec struct {
	name     string
	typ      discordgo.ApplicationCommandOptionType
	min, max int      // an integer's bounds, and
	def      int      // its default, shown in its description
	choices  []choice // a string's choices, the first the default
	// plain leaves an integer's bounds and default out of its
	// description (a number such as a match's, whose bounds say nothing).
	plain bool
	// decode reads the option's value, or returns why it cannot.
	decode func(o *discordgo.ApplicationCommandInteractionDataOption, data *discordgo.ApplicationCommandInteractionData) error
}

// choice is one choice of a string option: its value, and the catalog
// message of its name (label), or, for a name that is the same in every
// language (a language's own name), the name itself.
type choice struct {
	value, label, name string
}

// Refusals of option values that Discord would not have sent.
var (
	reasonMalformed    = sessions.NewReason("malformed")
	reasonOptionRange  = sessions.NewReason("option_range")
	reasonOptionChoice = sessions.NewReason("option_choice")
)

// malformed refuses a request that does not make sense (a crafted or
// broken one), with why for the log.
func malformed(format string, args ...any) error {
	return fmt.Errorf(format+": %w", append(args, sessions.Refuse(reasonMalformed))...)
}

// member is the member (or user) a USER option names, as the interaction
// resolved it.
type member struct {
	ID, Name string
	Bot      bool
	// Roles are the member's roles in the server, as resolved.
	Roles []string
	set   bool
}

// user declares a USER option: the member it names, read from
// data.resolved (no REST call), with their server nickname when they have
// one.
func (s *optionSet) user(name string, dst *member) {
	s.specs = append(s.specs, &optionSpec{name: name, typ: discordgo.ApplicationCommandOptionUser,
		decode: func(o *discordgo.ApplicationCommandInteractionDataOption, data *discordgo.ApplicationCommandInteractionData) error {
			id, ok := o.Value.(string)
			if o.Type != discordgo.ApplicationCommandOptionUser || !ok || id == "" {
				return malformed("option %s", o.Name)
			}
			if data.Resolved == nil || data.Resolved.Users[id] == nil {
				return malformed("option %s: user %s not in resolved users", o.Name, id)
			}
			u := data.Resolved.Users[id]
			*dst = member{ID: id, Name: u.DisplayName(), Bot: u.Bot, set: true}
			if m := data.Resolved.Members[id]; m != nil {
				if m.Nick != "" {
					dst.Name = m.Nick
				}
				dst.Roles = m.Roles
			}
			return nil
		}})
}

// integer declares an INTEGER option from lo to hi, def when left out.
func (s *optionSet) integer(name string, dst *int, lo, hi, def int) {
	*dst = def
	s.specs = append(s.specs, &optionSpec{name: name, typ: discordgo.ApplicationCommandOptionInteger, min: lo, max: hi, def: def,
		decode: func(o *discordgo.ApplicationCommandInteractionDataOption, _ *discordgo.ApplicationCommandInteractionData) error {
			f, ok := o.Value.(float64)
			if o.Type != discordgo.ApplicationCommandOptionInteger || !ok || f != float64(int64(f)) {
				return malformed("option %s", o.Name)
			}
			if f < float64(lo) || f > float64(hi) {
				return sessions.Refuse(reasonOptionRange, "Option", sessions.OptionName(name), "Min", lo, "Max", hi)
			}
			*dst = int(f)
			return nil
		}})
}

// optInt is an INTEGER option as a member set it, or left out (set
// unset): then a server's setting or the bot's default applies.
type optInt struct {
	v   int
	set bool
}

// or returns the option's value, else *setting when the server set it,
// else def.
func (o optInt) or(setting *int, def int) int {
	if o.set {
		return o.v
	}
	return or(setting, def)
}

// optString is a STRING (or CHANNEL or ROLE) option as a member set it,
// or left out.
type optString struct {
	v   string
	set bool
}

// or returns the option's value, else *setting when the server set it,
// else def.
func (o optString) or(setting *string, def string) string {
	if o.set {
		return o.v
	}
	return or(setting, def)
}

// optInteger declares an INTEGER option from lo to hi that may be left
// out; def is the bot's default, shown in its description.
func (s *optionSet) optInteger(name string, dst *optInt, lo, hi, def int) {
	var v int
	s.integer(name, &v, lo, hi, def)
	sp := s.specs[len(s.specs)-1]
	decode := sp.decode
	sp.decode = func(o *discordgo.ApplicationCommandInteractionDataOption, d *discordgo.ApplicationCommandInteractionData) error {
		if err := decode(o, d); err != nil {
			return err
		}
		*dst = optInt{v: v, set: true}
		return nil
	}
}

// number declares an INTEGER option from lo to hi that may be left out,
// whose description does not state its bounds.
func (s *optionSet) number(name string, dst *optInt, lo, hi int) {
	s.optInteger(name, dst, lo, hi, 0)
	s.specs[len(s.specs)-1].plain = true
}

// optChoice declares a STRING option whose value is one of choices, that
// may be left out.
func (s *optionSet) optChoice(name string, dst *optString, choices []choice) {
	var v string
	s.oneOf(name, &v, "", choices)
	sp := s.specs[len(s.specs)-1]
	decode := sp.decode
	sp.decode = func(o *discordgo.ApplicationCommandInteractionDataOption, d *discordgo.ApplicationCommandInteractionData) error {
		if err := decode(o, d); err != nil {
			return err
		}
		*dst = optString{v: v, set: true}
		return nil
	}
}

// text declares a STRING option of free text (at most 100 characters).
func (s *optionSet) text(name string, dst *optString) {
	s.specs = append(s.specs, &optionSpec{name: name, typ: discordgo.ApplicationCommandOptionString,
		decode: func(o *discordgo.ApplicationCommandInteractionDataOption, _ *discordgo.ApplicationCommandInteractionData) error {
			v, ok := o.Value.(string)
			if o.Type != discordgo.ApplicationCommandOptionString || !ok || len(v) > 100 {
				return malformed("option %s", o.Name)
			}
			*dst = optString{v: v, set: true}
			return nil
		}})
}

// snowflakeOption declares an option of type typ whose value is an ID
// (a CHANNEL or a ROLE).
func (s *optionSet) snowflakeOption(name string, typ discordgo.ApplicationCommandOptionType, dst *optString) {
	s.specs = append(s.specs, &optionSpec{name: name, typ: typ,
		decode: func(o *discordgo.ApplicationCommandInteractionDataOption, _ *discordgo.ApplicationCommandInteractionData) error {
			v, ok := o.Value.(string)
			if o.Type != typ || !ok || !snowflake(v) {
				return malformed("option %s", o.Name)
			}
			*dst = optString{v: v, set: true}
			return nil
		}})
}

// channel declares a CHANNEL option: the channel's ID.
func (s *optionSet) channel(name string, dst *optString) {
	s.snowflakeOption(name, discordgo.ApplicationCommandOptionChannel, dst)
}

// role declares a ROLE option: the role's ID.
func (s *optionSet) role(name string, dst *optString) {
	s.snowflakeOption(name, discordgo.ApplicationCommandOptionRole, dst)
}

// snowflake reports whether v is a Discord ID: 1 to 20 digits.
func snowflake(v string) bool {
	if v == "" || len(v) > 20 {
		return false
	}
	for _, c := range v {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// toggle is a BOOLEAN option as a member set it, or left out (set
// unset): then the caller's default applies.
type toggle struct {
	on, set bool
}

// or returns the toggle's value, def when it was left out.
func (t toggle) or(def bool) bool {
	if t.set {
		return t.on
	}
	return def
}

// boolean declares a BOOLEAN option.
func (s *optionSet) boolean(name string, dst *toggle) {
	s.specs = append(s.specs, &optionSpec{name: name, typ: discordgo.ApplicationCommandOptionBoolean,
		decode: func(o *discordgo.ApplicationCommandInteractionDataOption, _ *discordgo.ApplicationCommandInteractionData) error {
			v, ok := o.Value.(bool)
			if o.Type != discordgo.ApplicationCommandOptionBoolean || !ok {
				return malformed("option %s", o.Name)
			}
			*dst = toggle{on: v, set: true}
			return nil
		}})
}

// oneOf declares a STRING option whose value is one of choices, def when
// left out.
func (s *optionSet) oneOf(name string, dst *string, def string, choices []choice) {
	*dst = def
	s.specs = append(s.specs, &optionSpec{name: name, typ: discordgo.ApplicationCommandOptionString, choices: choices,
		decode: func(o *discordgo.ApplicationCommandInteractionDataOption, _ *discordgo.ApplicationCommandInteractionData) error {
			v, ok := o.Value.(string)
			if o.Type != discordgo.ApplicationCommandOptionString || !ok ||
				!slices.ContainsFunc(choices, func(c choice) bool { return c.value == v }) {
				return sessions.Refuse(reasonOptionChoice, "Option", sessions.OptionName(name))
			}
			*dst = v
			return nil
		}})
}

// decode reads the options of the subcommand interaction i was sent for,
// in the order they came: a nil or unknown option, or a value of the
// wrong type, is malformed; an integer out of its bounds or a string that
// is not one of its choices is refused.
func (s *optionSet) decode(i *discordgo.Interaction) error {
	data, ok := i.Data.(discordgo.ApplicationCommandInteractionData)
	_, opts, ok := subcommand(data, ok)
	if !ok {
		return malformed("no subcommand")
	}
	for _, o := range opts {
		if o == nil {
			return malformed("nil option")
		}
		k := slices.IndexFunc(s.specs, func(sp *optionSpec) bool { return sp.name == o.Name })
		if k < 0 {
			return malformed("unknown option %q", o.Name)
		}
		if err := s.specs[k].decode(o, &data); err != nil {
			return err
		}
	}
	return nil
}

// register returns the options as Discord registers them, with their
// descriptions (catalog message option_<sub>_<name>; an integer's bounds
// and default added) and choices in l's language.
func (s *optionSet) register(l *locale.Localizer, sub string) []*discordgo.ApplicationCommandOption {
	var out []*discordgo.ApplicationCommandOption
	for _, sp := range s.specs {
		key := "option_" + sub + "_" + strings.ReplaceAll(sp.name, "-", "_")
		var desc string
		switch {
		case l.Has(key):
			desc = l.T(key)
		case sub == "set": // a setting that is the default of a challenge's option
			desc = l.T("option_default", "Description", l.T("option_challenge_"+sp.name))
		default: // an option of /connectn open, described as the challenge's
			desc = l.T("option_challenge_" + sp.name)
		}
		o := &discordgo.ApplicationCommandOption{Type: sp.typ, Name: sp.name, Description: desc}
		switch sp.typ {
		case discordgo.ApplicationCommandOptionInteger:
			lo := float64(sp.min)
			o.MinValue, o.MaxValue = &lo, float64(sp.max)
			if !sp.plain {
				o.Description = l.T("option_bounds", "Description", o.Description, "Min", sp.min, "Max", sp.max, "Default", sp.def)
			}
		case discordgo.ApplicationCommandOptionString:
			for _, c := range sp.choices {
				name := c.name
				if c.label != "" {
					name = l.T(c.label)
				}
				o.Choices = append(o.Choices, &discordgo.ApplicationCommandOptionChoice{Name: name, Value: c.value})
			}
		}
		out = append(out, o)
	}
	return out
}

// Commands returns the bot's application commands, registered with one bulk
// overwrite (globally, or in one guild while testing): /connectn, whose
// subcommands are the member commands of the route table, and
// /connectn-admin, the admins' (default_member_permissions Manage
// Messages, in servers only; subcommand groups such as settings hold
// their subcommands), each in the route table's order, with their
// options; in English, with the names (catalog messages name_<subcommand>,
// name_option_<option>), descriptions and choices of every other language
// of the catalog as name_localizations and description_localizations,
// keyed by Discord's locale codes (the catalog's files are named by them).
// /connectn can be installed in servers and by members for themselves
// (integration_types 0 and 1) and used in servers, the bot's DM and group
// DMs (contexts 0, 1 and 2). Each call returns a fresh slice.
func Commands() []*discordgo.ApplicationCommand {
	cmds := commands(locale.English())
	for _, lang := range locale.Default().Languages() {
		if lang == locale.Base {
			continue
		}
		l := locale.Default().Localizer(lang)
		for k, loc := range commands(l) {
			localize(cmds[k], loc, l, discordgo.Locale(lang))
		}
	}
	return cmds
}

// localize adds to cmd, a command in the base language, the names and
// descriptions of loc, the same command in l's language, for lang.
func localize(cmd, loc *discordgo.ApplicationCommand, l *locale.Localizer, lang discordgo.Locale) {
	if cmd.NameLocalizations == nil {
		cmd.NameLocalizations, cmd.DescriptionLocalizations = &map[discordgo.Locale]string{}, &map[discordgo.Locale]string{}
	}
	(*cmd.NameLocalizations)[lang] = cmd.Name // the commands' names are not translated
	(*cmd.DescriptionLocalizations)[lang] = loc.Description
	set := func(m *map[discordgo.Locale]string, v string) {
		if *m == nil {
			*m = map[discordgo.Locale]string{}
		}
		(*m)[lang] = v
	}
	var walk func(opts, locs []*discordgo.ApplicationCommandOption)
	walk = func(opts, locs []*discordgo.ApplicationCommandOption) {
		for i, o := range opts {
			lo := locs[i]
			switch o.Type {
			case discordgo.ApplicationCommandOptionSubCommand, discordgo.ApplicationCommandOptionSubCommandGroup:
				set(&o.NameLocalizations, l.T("name_"+strings.ReplaceAll(o.Name, "-", "_")))
			default:
				set(&o.NameLocalizations, l.T("name_option_"+strings.ReplaceAll(o.Name, "-", "_")))
			}
			set(&o.DescriptionLocalizations, lo.Description)
			for k, ch := range o.Choices {
				set(&ch.NameLocalizations, lo.Choices[k].Name)
			}
			walk(o.Options, lo.Options)
		}
	}
	walk(cmd.Options, loc.Options)
}

// commands is Commands in l's language, without localizations:
// /connectn, then /connectn-admin.
func commands(l *locale.Localizer) []*discordgo.ApplicationCommand {
	member := &discordgo.ApplicationCommand{
		Name:        commandName,
		Description: l.T("command_" + commandName),
		IntegrationTypes: &[]discordgo.ApplicationIntegrationType{
			discordgo.ApplicationIntegrationGuildInstall, discordgo.ApplicationIntegrationUserInstall,
		},
		Contexts: &[]discordgo.InteractionContextType{
			discordgo.InteractionContextGuild, discordgo.InteractionContextBotDM, discordgo.InteractionContextPrivateChannel,
		},
	}
	manageMessages := int64(discordgo.PermissionManageMessages)
	admin := &discordgo.ApplicationCommand{
		Name:                     adminCommandName,
		Description:              l.T("command_connectn_admin"),
		DefaultMemberPermissions: &manageMessages,
		IntegrationTypes:         &[]discordgo.ApplicationIntegrationType{discordgo.ApplicationIntegrationGuildInstall},
		Contexts:                 &[]discordgo.InteractionContextType{discordgo.InteractionContextGuild},
	}
	for _, r := range table(features{}) {
		if !r.command {
			continue
		}
		cmd := member
		if r.parent == adminCommandName {
			cmd = admin
		}
		s := &optionSet{}
		r.options(s)
		group, leaf, grouped := strings.Cut(r.name, " ")
		if !grouped {
			leaf = group
		}
		opt := &discordgo.ApplicationCommandOption{
			Type: discordgo.ApplicationCommandOptionSubCommand, Name: leaf,
			Description: l.T("command_" + strings.ReplaceAll(strings.ReplaceAll(r.name, " ", "_"), "-", "_")),
			Options:     s.register(l, strings.ReplaceAll(leaf, "-", "_")),
		}
		if !grouped {
			cmd.Options = append(cmd.Options, opt)
			continue
		}
		k := slices.IndexFunc(cmd.Options, func(o *discordgo.ApplicationCommandOption) bool { return o.Name == group })
		if k < 0 {
			cmd.Options = append(cmd.Options, &discordgo.ApplicationCommandOption{
				Type: discordgo.ApplicationCommandOptionSubCommandGroup, Name: group, Description: l.T("command_" + group),
			})
			k = len(cmd.Options) - 1
		}
		cmd.Options[k].Options = append(cmd.Options[k].Options, opt)
	}
	return []*discordgo.ApplicationCommand{member, admin}
}

// themeChoices returns the choices of the theme option.
func themeChoices() []choice {
	var out []choice
	for _, t := range render.Themes {
		out = append(out, choice{value: t.Name, label: "choice_theme_" + t.Name})
	}
	return out
}
