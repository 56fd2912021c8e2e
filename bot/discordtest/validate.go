package discordtest

import (
	"fmt"
	"regexp"
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
// (their length is in limitTable).
var commandName = regexp.MustCompile(`^[-_\p{L}\p{N}\p{Devanagari}\p{Thai}]+$`)

// validateCommands checks the rules Discord applies to a bulk overwrite of
// CHAT_INPUT commands: sizes (limitTable), lower-case names of allowed
// characters, unique names, required options before optional ones, and
// subcommands nested at most two deep. Context-menu commands are refused
// as a type the fake does not know.
func validateCommands(cmds []*discordgo.ApplicationCommand) []fieldError {
	s := &sizes{}
	s.check("commands", "", len(cmds))
	seen := map[string]bool{}
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
		validateOptions(s, p+"options", c.Options, 0)
	}
	return s.errs
}

// named checks the name and description of a command or an option at p.
func named(s *sizes, p, name, description string) {
	s.text("command.name", p+"name", name)
	if !commandName.MatchString(name) || name != strings.ToLower(name) {
		s.add(p+"name", "APPLICATION_COMMAND_INVALID_NAME", "Command name is invalid")
	}
	s.text("command.description", p+"description", description)
}

// validateOptions checks command options, recursing into subcommands.
func validateOptions(s *sizes, path string, opts []*discordgo.ApplicationCommandOption, depth int) {
	s.check("options", path, len(opts))
	names := map[string]bool{}
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
		s.check("option.choices", p+"choices", len(o.Choices))
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
}
