package main

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
)

// The JSON that Discord sends to an Interactions Endpoint URL and what it
// reads back, reduced to the fields the bot reads and a load generator
// needs. The field names and shapes are Discord's
// (discord.com/developers/docs/interactions/receiving-and-responding).

// Interaction types and response types, as Discord numbers them.
const (
	typePing      = 1
	typeCommand   = 2
	typeComponent = 3

	respPong          = 1
	respNewMessage    = 4
	respUpdateMessage = 7

	flagEphemeral = 64
)

// wireUser is a Discord user object.
type wireUser struct {
	ID            string  `json:"id"`
	Username      string  `json:"username"`
	Discriminator string  `json:"discriminator"`
	GlobalName    string  `json:"global_name"`
	Avatar        *string `json:"avatar"`
	PublicFlags   int     `json:"public_flags"`
	Bot           bool    `json:"bot,omitempty"`
}

// wireMember is a guild member object, as in an interaction's member.
type wireMember struct {
	User        *wireUser `json:"user,omitempty"`
	Nick        *string   `json:"nick"`
	Roles       []string  `json:"roles"`
	JoinedAt    string    `json:"joined_at"`
	Deaf        bool      `json:"deaf"`
	Mute        bool      `json:"mute"`
	Flags       int       `json:"flags"`
	Pending     bool      `json:"pending"`
	Permissions string    `json:"permissions"`
}

// wireChannel is the partial channel object of an interaction.
type wireChannel struct {
	ID      string `json:"id"`
	Type    int    `json:"type"`
	GuildID string `json:"guild_id"`
	Name    string `json:"name"`
}

// wireInteraction is an interaction as Discord POSTs it.
type wireInteraction struct {
	ID             string            `json:"id"`
	ApplicationID  string            `json:"application_id"`
	Type           int               `json:"type"`
	Token          string            `json:"token"`
	Version        int               `json:"version"`
	GuildID        string            `json:"guild_id,omitempty"`
	ChannelID      string            `json:"channel_id,omitempty"`
	Channel        *wireChannel      `json:"channel,omitempty"`
	Member         *wireMember       `json:"member,omitempty"`
	User           *wireUser         `json:"user,omitempty"`
	Data           any               `json:"data,omitempty"`
	Message        *wireMessage      `json:"message,omitempty"`
	Locale         string            `json:"locale,omitempty"`
	GuildLocale    string            `json:"guild_locale,omitempty"`
	AppPermissions string            `json:"app_permissions,omitempty"`
	Entitlements   []any             `json:"entitlements"`
	Owners         map[string]string `json:"authorizing_integration_owners,omitempty"`
	Context        int               `json:"context"`
}

// wireOption is an application command option with its value.
type wireOption struct {
	Name    string       `json:"name"`
	Type    int          `json:"type"`
	Value   any          `json:"value,omitempty"`
	Options []wireOption `json:"options,omitempty"`
}

// wireResolved is data.resolved of a command with a USER option.
type wireResolved struct {
	Users   map[string]*wireUser   `json:"users,omitempty"`
	Members map[string]*wireMember `json:"members,omitempty"`
}

// wireCommandData is the data of an APPLICATION_COMMAND interaction.
type wireCommandData struct {
	ID       string        `json:"id"`
	Name     string        `json:"name"`
	Type     int           `json:"type"`
	GuildID  string        `json:"guild_id,omitempty"`
	Options  []wireOption  `json:"options"`
	Resolved *wireResolved `json:"resolved,omitempty"`
}

// wireComponentData is the data of a MESSAGE_COMPONENT interaction.
type wireComponentData struct {
	ComponentType int    `json:"component_type"`
	CustomID      string `json:"custom_id"`
}

// wireMessage is the message a component was clicked on, as Discord
// includes it in the interaction: the message as the bot last set it.
type wireMessage struct {
	ID          string          `json:"id"`
	ChannelID   string          `json:"channel_id"`
	Type        int             `json:"type"`
	Author      *wireUser       `json:"author"`
	Content     string          `json:"content"`
	Embeds      json.RawMessage `json:"embeds,omitempty"`
	Components  json.RawMessage `json:"components,omitempty"`
	Timestamp   string          `json:"timestamp"`
	Flags       int             `json:"flags"`
	Attachments []any           `json:"attachments"`
	Mentions    []any           `json:"mentions"`
	Pinned      bool            `json:"pinned"`
	TTS         bool            `json:"tts"`
}

// wireResponse is an interaction response as the bot returns it, or (Data
// alone) a follow-up message as the bot posts it through the webhook.
type wireResponse struct {
	Type int          `json:"type"`
	Data *messageData `json:"data"`
}

// messageData is the message part of a response or follow-up: kept raw
// where a click sends it back unchanged, decoded where the load generator
// reads it.
type messageData struct {
	Content         string          `json:"content"`
	Flags           int             `json:"flags"`
	Embeds          json.RawMessage `json:"embeds"`
	Components      json.RawMessage `json:"components"`
	AllowedMentions *struct {
		Users []string `json:"users"`
	} `json:"allowed_mentions"`

	parsed  bool // buttons below are read from Components
	btns    []button
	btnsErr error
}

// button is one button of a message, as a player sees it.
type button struct {
	Label    string
	CustomID string
	Disabled bool
}

// buttons returns the buttons of d's action rows, in order. It reads them
// once; d's Components must not change afterwards.
func (d *messageData) buttons() ([]button, error) {
	if d == nil || len(d.Components) == 0 {
		return nil, nil
	}
	if !d.parsed {
		d.btns, d.btnsErr = parseButtons(d.Components)
		d.parsed = true
	}
	return d.btns, d.btnsErr
}

// parseButtons reads the buttons of a message's components.
func parseButtons(components json.RawMessage) ([]button, error) {
	var rows []struct {
		Type       int `json:"type"`
		Components []struct {
			Type     int    `json:"type"`
			Label    string `json:"label"`
			CustomID string `json:"custom_id"`
			Disabled bool   `json:"disabled"`
		} `json:"components"`
	}
	if err := json.Unmarshal(components, &rows); err != nil {
		return nil, err
	}
	var out []button
	for _, r := range rows {
		for _, c := range r.Components {
			if c.Type == 2 {
				out = append(out, button{Label: c.Label, CustomID: c.CustomID, Disabled: c.Disabled})
			}
		}
	}
	return out, nil
}

// title returns the title of d's first embed, "" when it has none.
func (d *messageData) title() string {
	if d == nil || len(d.Embeds) == 0 {
		return ""
	}
	var embeds []struct {
		Title string `json:"title"`
	}
	if json.Unmarshal(d.Embeds, &embeds) != nil || len(embeds) == 0 {
		return ""
	}
	return embeds[0].Title
}

// toMove returns the ID of the one user a board message mentions (the
// player to move), "" when it mentions none or several.
func (d *messageData) toMove() string {
	if d == nil || d.AllowedMentions == nil || len(d.AllowedMentions.Users) != 1 {
		return ""
	}
	return d.AllowedMentions.Users[0]
}

// dropRoute is a parsed column button custom_id,
// cn:drop:<match>:<post>:<ply>:<column>.
type dropRoute struct {
	Match       int64
	Post, Ply   int
	Column      int // 1-based
	OK          bool
	Action      string
	MatchString string
}

// parseCustomID reads a custom_id of the bot's form cn:<action>:<match>[:...].
// It is the load generator's own reading of what the buttons say, not the
// bot's parser.
func parseCustomID(id string) dropRoute {
	parts := strings.Split(id, ":")
	if len(parts) < 3 || parts[0] != "cn" {
		return dropRoute{}
	}
	r := dropRoute{Action: parts[1], MatchString: parts[2]}
	var err error
	if r.Match, err = strconv.ParseInt(parts[2], 10, 64); err != nil {
		return dropRoute{}
	}
	if r.Action == "drop" {
		if len(parts) != 6 {
			return dropRoute{}
		}
		var e1, e2, e3 error
		r.Post, e1 = strconv.Atoi(parts[3])
		r.Ply, e2 = strconv.Atoi(parts[4])
		r.Column, e3 = strconv.Atoi(parts[5])
		if errors.Join(e1, e2, e3) != nil {
			return dropRoute{}
		}
	}
	r.OK = true
	return r
}
