package discordtest

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/bwmarrin/discordgo"
)

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
