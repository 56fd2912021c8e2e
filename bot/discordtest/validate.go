package discordtest

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot/internal/limits"
)

// limit is one of Discord's size rules: what is measured (a kind, named
// like the field), its bounds, and the error Discord gives when it is
// broken (BASE_TYPE_MAX_LENGTH, or BASE_TYPE_BAD_LENGTH when there is a
// minimum, unless code says otherwise).
type limit struct {
	min, max  int
	code, msg string
}

// limitTable is the one table of the sizes Discord checks in what a bot
// sends, by kind of field. Every size check of the fake goes through it.
var limitTable = map[string]limit{
	"content":             {max: limits.Content},
	"embeds":              {max: limits.Embeds},
	"embed.title":         {max: limits.EmbedTitle},
	"embed.description":   {max: limits.EmbedDescription},
	"embed.footer.text":   {max: limits.EmbedFooter},
	"embeds.characters":   {max: limits.EmbedsTotal, code: "MAX_EMBED_SIZE_EXCEEDED", msg: fmt.Sprintf("Embed size exceeds maximum size of %d", limits.EmbedsTotal)},
	"components":          {max: limits.ActionRows},
	"row.components":      {min: 1, max: limits.ButtonsPerRow},
	"button.custom_id":    {min: 1, max: limits.CustomID},
	"button.label":        {max: limits.ButtonLabel},
	"commands":            {max: limits.Commands},
	"command.name":        {min: limits.NameMin, max: limits.NameMax},
	"command.description": {min: limits.DescriptionMin, max: limits.DescriptionMax},
	"options":             {max: limits.Options},
	"option.choices":      {max: limits.Choices},
	// A choice's name and its localizations: 1 to 100 characters
	// (https://discord.com/developers/docs/interactions/application-commands#application-command-object-application-command-option-choice-structure).
	"choice.name": {min: 1, max: 100},
	// A thread's name, as every channel's: 1 to 100 characters
	// (https://discord.com/developers/docs/resources/channel#start-thread-without-message).
	"thread.name": {min: 1, max: 100},
}

// sizes collects the field errors of values measured against limitTable.
type sizes struct {
	prefix string
	errs   []fieldError
}

// check measures n, the size of the field at path, against the limit of
// kind.
func (s *sizes) check(kind, path string, n int) {
	l, ok := limitTable[kind]
	if !ok {
		panic("discordtest: no limit for " + kind)
	}
	switch {
	case n >= l.min && n <= l.max:
	case l.code != "":
		s.add(path, l.code, l.msg)
	case l.min > 0:
		s.add(path, "BASE_TYPE_BAD_LENGTH", fmt.Sprintf("Must be between %d and %d in length.", l.min, l.max))
	default:
		s.add(path, "BASE_TYPE_MAX_LENGTH", fmt.Sprintf("Must be %d or fewer in length.", l.max))
	}
}

// text checks the characters of a string field.
func (s *sizes) text(kind, path, v string) { s.check(kind, path, utf8.RuneCountInString(v)) }

func (s *sizes) add(path, code, msg string) {
	s.errs = append(s.errs, fieldError{s.prefix + path, code, msg})
}

// validateMessage checks a message as it would be after a write, with the
// rules Discord enforces on what the bot sends: its sizes (limitTable),
// rows of buttons with unique custom_ids, and that it is not empty. prefix
// is prepended to field paths ("data." for interaction responses).
// Components V2 layouts are not checked.
func validateMessage(prefix string, m *discordgo.Message) *APIError {
	s := &sizes{prefix: prefix}
	s.text("content", "content", m.Content)
	s.check("embeds", "embeds", len(m.Embeds))
	total := 0
	for i, e := range m.Embeds {
		if e == nil {
			continue
		}
		p := fmt.Sprintf("embeds.%d.", i)
		s.text("embed.title", p+"title", e.Title)
		s.text("embed.description", p+"description", e.Description)
		total += utf8.RuneCountInString(e.Title) + utf8.RuneCountInString(e.Description)
		if e.Footer != nil {
			s.text("embed.footer.text", p+"footer.text", e.Footer.Text)
			total += utf8.RuneCountInString(e.Footer.Text)
		}
		if e.Author != nil {
			total += utf8.RuneCountInString(e.Author.Name)
		}
		for _, f := range e.Fields {
			if f != nil {
				total += utf8.RuneCountInString(f.Name) + utf8.RuneCountInString(f.Value)
			}
		}
	}
	s.check("embeds.characters", "embeds", total)
	if m.Flags&discordgo.MessageFlagsIsComponentsV2 == 0 {
		validateComponents(s, m.Components)
	}
	if len(s.errs) > 0 {
		return formError(s.errs)
	}
	if strings.TrimSpace(m.Content) == "" && len(m.Embeds) == 0 && len(m.Components) == 0 && len(m.Attachments) == 0 {
		return errEmptyMessage
	}
	return nil
}

// validateComponents checks action rows of buttons, the only components
// the fake knows in a message: a button needs a custom_id unique within
// the message (link and premium buttons, select menus and the rest are
// refused as an unknown type) and a label or an emoji.
func validateComponents(s *sizes, comps []discordgo.MessageComponent) {
	s.check("components", "components", len(comps))
	seen := map[string]bool{}
	for i, c := range comps {
		p := fmt.Sprintf("components.%d", i)
		row, ok := c.(*discordgo.ActionsRow)
		if !ok {
			s.add(p+".type", "UNION_TYPE_CHOICES", `Value of field "type" must be one of (1,).`)
			continue
		}
		s.check("row.components", p+".components", len(row.Components))
		for j, cc := range row.Components {
			q := fmt.Sprintf("%s.components.%d", p, j)
			b, ok := cc.(*discordgo.Button)
			if !ok || b.Style == discordgo.LinkButton || b.Style == discordgo.PremiumButton {
				s.add(q+".type", "UNION_TYPE_CHOICES", fmt.Sprintf("Component type %d (style %d) is not a button the fake knows", cc.Type(), buttonStyle(cc)))
				continue
			}
			s.text("button.custom_id", q+".custom_id", b.CustomID)
			if b.CustomID != "" && seen[b.CustomID] {
				s.add(q+".custom_id", "COMPONENT_CUSTOM_ID_DUPLICATED", "Component custom id cannot be duplicated")
			}
			seen[b.CustomID] = true
			if b.Label == "" && b.Emoji == nil {
				s.add(q, "BUTTON_COMPONENT_LABEL_OR_EMOJI_REQUIRED", "A button must have a label or an emoji")
			}
			s.text("button.label", q+".label", b.Label)
		}
	}
}

func buttonStyle(c discordgo.MessageComponent) discordgo.ButtonStyle {
	if b, ok := c.(*discordgo.Button); ok {
		return b.Style
	}
	return 0
}

// commandName is Discord's rule for CHAT_INPUT command and option names
// and their localizations (their length is in limitTable), with the rule
// that a letter with a lower-case form be in lower case (named). The docs
// write it ^[-_'\p{L}\p{N}\p{sc=Deva}\p{sc=Thai}]{1,32}$
// (https://discord.com/developers/docs/interactions/application-commands#application-command-object-application-command-naming),
// but the API refuses the ASCII apostrophe U+0027 (STRING_TYPE_REGEX,
// https://github.com/discord/discord-api-docs/issues/7371): the apostrophe
// it accepts is U+02BC, a letter (\p{Lm}), and the docs were corrected to
// say so (https://github.com/discord/discord-api-docs/pull/8567). The fake
// follows the API.
var commandName = regexp.MustCompile(`^[-_\p{L}\p{N}\p{Devanagari}\p{Thai}]+$`)

// discordLocales are the locales Discord knows, the only keys a
// name_localizations or description_localizations dictionary may have
// (https://discord.com/developers/docs/reference#locales).
var discordLocales = map[discordgo.Locale]bool{
	"id": true, "da": true, "de": true, "en-GB": true, "en-US": true, "es-ES": true, "es-419": true, "fr": true,
	"hr": true, "it": true, "lt": true, "hu": true, "nl": true, "no": true, "pl": true, "pt-BR": true, "ro": true,
	"fi": true, "sv-SE": true, "vi": true, "tr": true, "cs": true, "el": true, "bg": true, "ru": true, "uk": true,
	"hi": true, "th": true, "zh-CN": true, "ja": true, "zh-TW": true, "ko": true,
}

// Values of the enums of a command, as Discord defines them: application
// integration types
// (https://discord.com/developers/docs/resources/application#application-object-application-integration-types)
// and interaction context types
// (https://discord.com/developers/docs/interactions/receiving-and-responding#interaction-object-interaction-context-types).
var (
	integrationTypes = []discordgo.ApplicationIntegrationType{discordgo.ApplicationIntegrationGuildInstall, discordgo.ApplicationIntegrationUserInstall}
	contextTypes     = []discordgo.InteractionContextType{discordgo.InteractionContextGuild, discordgo.InteractionContextBotDM, discordgo.InteractionContextPrivateChannel}
)

// validateCommands checks the rules Discord applies to a bulk overwrite of
// CHAT_INPUT commands
// (https://discord.com/developers/docs/interactions/application-commands#application-command-object):
// sizes (limitTable), lower-case names of allowed characters, unique names,
// required options before optional ones, subcommands nested at most two
// deep, choice names of 1 to 100 characters, the localizations of names,
// descriptions and choice names (keys among discordLocales, values under
// the rules of what they localize), names unique among siblings in every
// locale, and integration_types and contexts among the values Discord
// defines. Context-menu commands are refused as a type the fake does not
// know.
//
// The errors are Discord's 50035 field errors. An invalid localized name
// of a command is reported on its name_localizations, as Discord does
// (https://github.com/discord/discord-api-docs/issues/7712); the other
// errors of a localization on name_localizations.{locale} or
// description_localizations.{locale}. A locale Discord does not know gives
// ENUM_TYPE_COERCE on the dictionary, as does a value of integration_types
// or contexts Discord does not define, on that value.
func validateCommands(cmds []*discordgo.ApplicationCommand) []fieldError {
	s := &sizes{}
	s.check("commands", "", len(cmds))
	seen := map[string]bool{}
	var siblings []sibling
	for i, c := range cmds {
		p := fmt.Sprintf("%d.", i)
		if c == nil {
			s.add(p[:len(p)-1], "BASE_TYPE_REQUIRED", "This field is required")
			continue
		}
		if c.Type != 0 && c.Type != discordgo.ChatApplicationCommand {
			s.add(p+"type", "BASE_TYPE_CHOICES", "Value must be one of {1}.")
			continue
		}
		named(s, p, c.Name, c.Description)
		if seen[c.Name] {
			s.add(p+"name", "APPLICATION_COMMANDS_DUPLICATE_NAME", "Application command names must be unique")
		}
		seen[c.Name] = true
		var names, descriptions map[discordgo.Locale]string
		if c.NameLocalizations != nil {
			names = *c.NameLocalizations
		}
		if c.DescriptionLocalizations != nil {
			descriptions = *c.DescriptionLocalizations
		}
		localized(s, p, names, descriptions, false)
		siblings = append(siblings, sibling{p, c.Name, names})
		if c.IntegrationTypes != nil {
			enums(s, p+"integration_types", *c.IntegrationTypes, integrationTypes)
		}
		if c.Contexts != nil {
			enums(s, p+"contexts", *c.Contexts, contextTypes)
		}
		validateOptions(s, p+"options", c.Options, 0)
	}
	uniqueInLocales(s, siblings, "APPLICATION_COMMANDS_DUPLICATE_NAME", "Application command names must be unique")
	return s.errs
}

// named checks the name and description of a command or an option at p.
func named(s *sizes, p, name, description string) {
	s.text("command.name", p+"name", name)
	if !validName(name) {
		s.add(p+"name", "APPLICATION_COMMAND_INVALID_NAME", "Command name is invalid")
	}
	s.text("command.description", p+"description", description)
}

// validName reports whether name has only the characters commandName
// allows, in lower case where they have a lower-case form.
func validName(name string) bool {
	return commandName.MatchString(name) && name == strings.ToLower(name)
}

// localized checks the name and description localizations of a command
// (option false) or an option at p: their locales, the rules of names and
// the sizes of names and descriptions.
func localized(s *sizes, p string, names, descriptions map[discordgo.Locale]string, option bool) {
	for _, l := range sortedLocales(names) {
		q := p + "name_localizations"
		if !discordLocales[l] {
			s.add(q, "ENUM_TYPE_COERCE", fmt.Sprintf("Value %q is not a valid enum value.", l))
			continue
		}
		s.text("command.name", q+"."+string(l), names[l])
		if validName(names[l]) {
			continue
		}
		if option {
			q += "." + string(l)
		}
		s.add(q, "APPLICATION_COMMAND_INVALID_NAME", "Command name is invalid")
	}
	for _, l := range sortedLocales(descriptions) {
		q := p + "description_localizations"
		if !discordLocales[l] {
			s.add(q, "ENUM_TYPE_COERCE", fmt.Sprintf("Value %q is not a valid enum value.", l))
			continue
		}
		s.text("command.description", q+"."+string(l), descriptions[l])
	}
}

// sortedLocales returns the keys of m in order, for errors in a stable
// order.
func sortedLocales[V any](m map[discordgo.Locale]V) []discordgo.Locale {
	keys := make([]discordgo.Locale, 0, len(m))
	for l := range m {
		keys = append(keys, l)
	}
	slices.Sort(keys)
	return keys
}

// enums checks that every value of a list at path is one of allowed.
func enums[T comparable](s *sizes, path string, values, allowed []T) {
	for k, v := range values {
		if !slices.Contains(allowed, v) {
			s.add(fmt.Sprintf("%s.%d", path, k), "ENUM_TYPE_COERCE", fmt.Sprintf("Value \"%v\" is not a valid enum value.", v))
		}
	}
}

// sibling is a command or an option among its siblings, for the
// uniqueness of names in every locale.
type sibling struct {
	path  string // of the command or option, ending in "."
	name  string
	names map[discordgo.Locale]string
}

// uniqueInLocales reports the siblings whose name, as a user of a locale
// sees it (its localization for the locale, or its name when it has none),
// is the name of an earlier sibling in that locale, for every known locale
// some sibling localizes. Clashes of two unlocalized names are left to the
// check of names; a clash is reported on the localization that makes it.
func uniqueInLocales(s *sizes, siblings []sibling, code, msg string) {
	locales := map[discordgo.Locale]bool{}
	for _, sb := range siblings {
		for l := range sb.names {
			if discordLocales[l] {
				locales[l] = true
			}
		}
	}
	for _, l := range sortedLocales(locales) {
		first := map[string]sibling{}
		for _, sb := range siblings {
			name, mine := sb.names[l]
			if !mine {
				name = sb.name
			}
			prev, clash := first[name]
			if !clash {
				first[name] = sb
				continue
			}
			_, theirs := prev.names[l]
			switch {
			case mine:
				s.add(sb.path+"name_localizations."+string(l), code, msg)
			case theirs:
				s.add(prev.path+"name_localizations."+string(l), code, msg)
			}
		}
	}
}

// validateOptions checks command options, recursing into subcommands.
func validateOptions(s *sizes, path string, opts []*discordgo.ApplicationCommandOption, depth int) {
	s.check("options", path, len(opts))
	names := map[string]bool{}
	var siblings []sibling
	optional := false
	for i, o := range opts {
		p := fmt.Sprintf("%s.%d.", path, i)
		if o == nil {
			s.add(p[:len(p)-1], "BASE_TYPE_REQUIRED", "This field is required")
			continue
		}
		named(s, p, o.Name, o.Description)
		if names[o.Name] {
			s.add(p+"name", "APPLICATION_COMMAND_OPTION_NAME_ALREADY_EXISTS", "Option names must be unique")
		}
		names[o.Name] = true
		localized(s, p, o.NameLocalizations, o.DescriptionLocalizations, true)
		siblings = append(siblings, sibling{p, o.Name, o.NameLocalizations})
		s.check("option.choices", p+"choices", len(o.Choices))
		for k, c := range o.Choices {
			if c == nil {
				continue
			}
			q := fmt.Sprintf("%schoices.%d.", p, k)
			s.text("choice.name", q+"name", c.Name)
			for _, l := range sortedLocales(c.NameLocalizations) {
				if !discordLocales[l] {
					s.add(q+"name_localizations", "ENUM_TYPE_COERCE", fmt.Sprintf("Value %q is not a valid enum value.", l))
					continue
				}
				s.text("choice.name", q+"name_localizations."+string(l), c.NameLocalizations[l])
			}
		}
		switch o.Type {
		case discordgo.ApplicationCommandOptionSubCommand, discordgo.ApplicationCommandOptionSubCommandGroup:
			if depth >= 2 || (depth == 1 && o.Type == discordgo.ApplicationCommandOptionSubCommandGroup) {
				s.add(p+"type", "APPLICATION_COMMAND_OPTION_TYPE_INVALID", "Sub-command groups and sub-commands cannot be nested this way")
			}
			validateOptions(s, p+"options", o.Options, depth+1)
		default:
			if o.Required && optional {
				s.add(p+"required", "APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID", "Required options must be placed before non-required options")
			}
			optional = optional || !o.Required
		}
	}
	uniqueInLocales(s, siblings, "APPLICATION_COMMAND_OPTION_NAME_ALREADY_EXISTS", "Option names must be unique")
}
