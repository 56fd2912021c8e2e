package discordtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/bwmarrin/discordgo"
)

// commandName is Discord's rule for CHAT_INPUT command and option names.
var commandName = regexp.MustCompile(`^[-_\p{L}\p{N}\p{Devanagari}\p{Thai}]{1,32}$`)

func (s *Server) getCommands(w http.ResponseWriter, r *http.Request) {
	if r.PathValue("app") != s.cfg.appID {
		writeAPIError(w, errMissingAccess)
		return
	}
	s.mu.Lock()
	raw := s.commands[r.PathValue("guild")]
	s.mu.Unlock()
	if raw == nil {
		raw = []byte("[]")
	}
	writeRaw(w, raw)
}

// putCommands handles the bulk overwrite of global or guild commands.
func (s *Server) putCommands(w http.ResponseWriter, r *http.Request) {
	app, guild := r.PathValue("app"), r.PathValue("guild")
	if app != s.cfg.appID {
		writeAPIError(w, errMissingAccess)
		return
	}
	var cmds []*discordgo.ApplicationCommand
	if err := json.NewDecoder(r.Body).Decode(&cmds); err != nil {
		writeAPIError(w, errInvalidJSON)
		return
	}
	if errs := validateCommands(cmds); len(errs) > 0 {
		writeAPIError(w, formError(errs))
		return
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	// Like Discord, keep the id of a command with the same type and name.
	var previous []*discordgo.ApplicationCommand
	if raw := s.commands[guild]; raw != nil {
		_ = json.Unmarshal(raw, &previous)
	}
	ids := map[string]string{}
	for _, c := range previous {
		ids[fmt.Sprint(c.Type, "/", c.Name)] = c.ID
	}
	for _, c := range cmds {
		if c.Type == 0 {
			c.Type = discordgo.ChatApplicationCommand
		}
		c.ID = ids[fmt.Sprint(c.Type, "/", c.Name)]
		if c.ID == "" {
			c.ID = s.newID()
		}
		c.ApplicationID, c.GuildID, c.Version = app, guild, s.newID()
	}
	if cmds == nil {
		cmds = []*discordgo.ApplicationCommand{}
	}
	raw := mustJSON(cmds)
	s.commands[guild] = raw
	s.notifyLocked()
	writeRaw(w, raw)
}

// Commands returns a copy of the commands stored by the last bulk overwrite
// for guildID ("" for global commands), with the ids the fake assigned, or
// nil if there was none.
func (s *Server) Commands(guildID string) []*discordgo.ApplicationCommand {
	s.mu.Lock()
	raw := s.commands[guildID]
	s.mu.Unlock()
	if raw == nil {
		return nil
	}
	var cmds []*discordgo.ApplicationCommand
	if err := json.Unmarshal(raw, &cmds); err != nil {
		panic("discordtest: decode stored commands: " + err.Error())
	}
	return cmds
}

// validateCommands checks the rules Discord applies to a bulk overwrite.
func validateCommands(cmds []*discordgo.ApplicationCommand) []fieldError {
	var errs []fieldError
	add := func(path, code, msg string) { errs = append(errs, fieldError{path, code, msg}) }
	if len(cmds) > 100 {
		add("", "BASE_TYPE_MAX_LENGTH", "Must be 100 or fewer in length.")
	}
	seen := map[string]bool{}
	for i, c := range cmds {
		p := fmt.Sprintf("%d.", i)
		if c == nil {
			add(p[:len(p)-1], "BASE_TYPE_REQUIRED", "This field is required")
			continue
		}
		switch c.Type {
		case 0, discordgo.ChatApplicationCommand:
			if !commandName.MatchString(c.Name) || c.Name != strings.ToLower(c.Name) {
				add(p+"name", "APPLICATION_COMMAND_INVALID_NAME", "Command name is invalid")
			}
			if n := utf8.RuneCountInString(c.Description); n < 1 || n > 100 {
				add(p+"description", "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 100 in length.")
			}
			errs = append(errs, validateOptions(p+"options", c.Options, 0)...)
		case discordgo.UserApplicationCommand, discordgo.MessageApplicationCommand:
			if n := utf8.RuneCountInString(c.Name); n < 1 || n > 32 {
				add(p+"name", "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 32 in length.")
			}
			if c.Description != "" || len(c.Options) > 0 {
				add(p+"description", "APPLICATION_COMMAND_CONTEXT_MENU_INVALID", "Context menu commands cannot have description or options")
			}
		default:
			add(p+"type", "BASE_TYPE_CHOICES", "Value must be one of {1, 2, 3}.")
		}
		t := c.Type
		if t == 0 {
			t = discordgo.ChatApplicationCommand
		}
		key := fmt.Sprint(t, "/", c.Name)
		if seen[key] {
			add(p+"name", "APPLICATION_COMMANDS_DUPLICATE_NAME", "Application command names must be unique")
		}
		seen[key] = true
	}
	return errs
}

// validateOptions checks command options, recursing into sub-commands.
func validateOptions(path string, opts []*discordgo.ApplicationCommandOption, depth int) []fieldError {
	var errs []fieldError
	add := func(path, code, msg string) { errs = append(errs, fieldError{path, code, msg}) }
	if len(opts) > 25 {
		add(path, "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length.")
	}
	names := map[string]bool{}
	optional := false
	for i, o := range opts {
		p := fmt.Sprintf("%s.%d.", path, i)
		if o == nil {
			add(p[:len(p)-1], "BASE_TYPE_REQUIRED", "This field is required")
			continue
		}
		if !commandName.MatchString(o.Name) || o.Name != strings.ToLower(o.Name) {
			add(p+"name", "APPLICATION_COMMAND_INVALID_NAME", "Command name is invalid")
		}
		if names[o.Name] {
			add(p+"name", "APPLICATION_COMMAND_OPTION_NAME_ALREADY_EXISTS", "Option names must be unique")
		}
		names[o.Name] = true
		if n := utf8.RuneCountInString(o.Description); n < 1 || n > 100 {
			add(p+"description", "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 100 in length.")
		}
		if len(o.Choices) > 25 {
			add(p+"choices", "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length.")
		}
		switch o.Type {
		case discordgo.ApplicationCommandOptionSubCommand, discordgo.ApplicationCommandOptionSubCommandGroup:
			if depth >= 2 || (depth == 1 && o.Type == discordgo.ApplicationCommandOptionSubCommandGroup) {
				add(p+"type", "APPLICATION_COMMAND_OPTION_TYPE_INVALID", "Sub-command groups and sub-commands cannot be nested this way")
			}
			errs = append(errs, validateOptions(p+"options", o.Options, depth+1)...)
		default:
			if o.Required && optional {
				add(p+"required", "APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID", "Required options must be placed before non-required options")
			}
			if !o.Required {
				optional = true
			}
		}
	}
	return errs
}
