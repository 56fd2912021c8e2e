package discordtest

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"net/http"
	"strconv"
	"time"

	"github.com/bwmarrin/discordgo"
)

// The builders below make interactions as Discord sends them (to a gateway
// connection in INTERACTION_CREATE, or POSTed to an Interactions Endpoint
// URL), as JSON, from typed structs so that a load generator can make
// thousands a second: the shapes of
// discord.com/developers/docs/interactions/receiving-and-responding
// (interaction object), .../application-commands (command data, options,
// resolved data) and .../message-components (component data, the message
// the component is on), with the full user, member, guild and channel
// objects Discord puts in a guild interaction.

// User is a Discord user as an interaction carries it: the member who
// acts, the user of a USER option, the author of a message.
type User struct {
	ID       string
	Username string
	// GlobalName is the display name; "" is JSON null (none set).
	GlobalName string
	Bot        bool
}

// Envelope is what a guild interaction carries besides its type and data:
// its ID and token, the application it is for, the guild and the channel
// it comes from and the member who acts there.
type Envelope struct {
	ID, Token string
	AppID     string
	GuildID   string
	ChannelID string
	// ChannelName is the channel's name; "" is "general".
	ChannelName string
	From        User
	// Locale is the member's client language and GuildLocale the guild's;
	// "" is "en-US".
	Locale, GuildLocale string
	// CommandID is the ID of the command in a slash command's data; "" is
	// DefaultCommandID.
	CommandID string
}

// DefaultCommandID is the command ID of slash commands whose Envelope
// names none.
const DefaultCommandID = "1600000000000000001"

// Permission strings of the members and the application in built
// interactions: a member without special rights, and an application with
// the permissions its invite asks for (and more).
const (
	memberPermissions = "2248473465835073"
	appPermissions    = "562949953421311"
	joinedAt          = "2024-05-01T12:00:00.000000+00:00"
	// attachmentSizeLimit is the default upload limit Discord announces in
	// attachment_size_limit, in bytes (10 MiB).
	attachmentSizeLimit = 10 << 20
	// discordSystemUser is the user of the PINGs Discord sends.
	discordSystemUser = "643945264868098049"
)

// Arg is an option of a slash command as the user filled it in.
type Arg struct {
	Name  string
	Type  discordgo.ApplicationCommandOptionType
	Value any
	user  *User
}

// IntArg is an INTEGER option.
func IntArg(name string, v int) Arg {
	return Arg{Name: name, Type: discordgo.ApplicationCommandOptionInteger, Value: v}
}

// StringArg is a STRING option.
func StringArg(name, v string) Arg {
	return Arg{Name: name, Type: discordgo.ApplicationCommandOptionString, Value: v}
}

// UserArg is a USER option: its value is the user's ID, and the user
// comes resolved in data.resolved.users, with its guild member in
// data.resolved.members, as Discord sends it.
func UserArg(name string, u User) Arg {
	return Arg{Name: name, Type: discordgo.ApplicationCommandOptionUser, Value: u.ID, user: &u}
}

// Ping returns a PING interaction (type 1), as Discord sends one to check
// an Interactions Endpoint URL: from Discord's system user, with no guild.
func Ping(id, token, appID string) []byte {
	return mustJSON(&wireInteraction{ID: id, ApplicationID: appID, Type: discordgo.InteractionPing, Token: token, Version: 1,
		User:         &wireUser{ID: discordSystemUser, Username: "discord", Discriminator: "0000", PublicFlags: 1},
		Entitlements: []any{}, Owners: map[string]string{}})
}

// Slash returns the APPLICATION_COMMAND interaction (type 2) of the
// CHAT_INPUT command /command sub typed by e.From with args (sub "" for a
// command without subcommands, the args then being the command's own
// options).
func Slash(e Envelope, command, sub string, args ...Arg) []byte {
	i := e.interaction(discordgo.InteractionApplicationCommand)
	d := &wireCommandData{ID: e.CommandID, Name: command, Type: discordgo.ChatApplicationCommand, GuildID: e.GuildID}
	if d.ID == "" {
		d.ID = DefaultCommandID
	}
	var opts []wireOption
	for _, a := range args {
		opts = append(opts, wireOption{Name: a.Name, Type: a.Type, Value: a.Value})
		if a.user == nil {
			continue
		}
		if d.Resolved == nil {
			d.Resolved = &wireResolved{Users: map[string]*wireUser{}, Members: map[string]*wireMember{}}
		}
		d.Resolved.Users[a.user.ID] = a.user.wire()
		d.Resolved.Members[a.user.ID] = partialMember()
	}
	if sub == "" {
		d.Options = opts
	} else {
		d.Options = []wireOption{{Name: sub, Type: discordgo.ApplicationCommandOptionSubCommand, Options: opts}}
	}
	if d.Options == nil {
		d.Options = []wireOption{}
	}
	i.Data = d
	return mustJSON(i)
}

// Click returns the MESSAGE_COMPONENT interaction (type 3) of a click by
// e.From on the button customID of msg, with msg as Discord sends it: its
// ID, channel (e's when msg has none), type, author (the bot, e.AppID,
// when msg has none),
// content, embeds, components, flags, timestamps (the creation time of its
// snowflake ID when msg has none), mentions and attachments.
func Click(e Envelope, msg *discordgo.Message, customID string) []byte {
	i := e.interaction(discordgo.InteractionMessageComponent)
	i.Data = &wireComponentData{CustomID: customID, ComponentType: discordgo.ButtonComponent}
	i.Message = messageOf(msg, &e)
	return mustJSON(i)
}

// interaction returns the fields of a guild interaction of type typ.
func (e *Envelope) interaction(typ discordgo.InteractionType) *wireInteraction {
	locale, guildLocale, name := or(e.Locale, "en-US"), or(e.GuildLocale, "en-US"), or(e.ChannelName, "general")
	m := member(e.From)
	return &wireInteraction{
		ID: e.ID, ApplicationID: e.AppID, Type: typ, Token: e.Token, Version: 1,
		Guild:   &wireGuild{ID: e.GuildID, Locale: guildLocale, Features: []string{}},
		GuildID: e.GuildID,
		Channel: &wireChannel{ID: e.ChannelID, Type: discordgo.ChannelTypeGuildText, GuildID: e.GuildID, Name: name,
			Permissions: memberPermissions},
		ChannelID: e.ChannelID,
		Member:    &m,
		Locale:    locale, GuildLocale: guildLocale, AppPermissions: appPermissions,
		Entitlements: []any{}, Owners: map[string]string{"0": e.GuildID},
		AttachmentSizeLimit: attachmentSizeLimit,
	}
}

func or(s, otherwise string) string {
	if s == "" {
		return otherwise
	}
	return s
}

// member returns u as a member of the guild who acts.
func member(u User) wireMember {
	m := partialMember()
	f := false
	m.User, m.Deaf, m.Mute = u.wire(), &f, &f
	return *m
}

// partialMember returns a member as Discord resolves one in command data:
// without user, deaf and mute.
func partialMember() *wireMember {
	return &wireMember{Roles: []string{}, JoinedAt: joinedAt, Permissions: memberPermissions}
}

func (u *User) wire() *wireUser {
	w := &wireUser{ID: u.ID, Username: u.Username, Discriminator: "0", Bot: u.Bot}
	if u.GlobalName != "" {
		w.GlobalName = &u.GlobalName
	}
	return w
}

// messageOf returns msg as an interaction of e carries it: in e's channel
// and by the bot (e.AppID) when msg names none.
func messageOf(msg *discordgo.Message, e *Envelope) *wireMessage {
	w := wireOf(msg)
	if w.ChannelID == "" {
		w.ChannelID = e.ChannelID
	}
	if w.Author == nil {
		w.Author = (&User{ID: e.AppID, Username: defaultBotName, Bot: true}).wire()
	}
	return w
}

// wireOf returns m as Discord sends a message object (the fields the fake
// knows), its timestamp the creation time of its snowflake ID when m has
// none.
func wireOf(m *discordgo.Message) *wireMessage {
	w := &wireMessage{ID: m.ID, ChannelID: m.ChannelID, GuildID: m.GuildID, Type: m.Type, Content: m.Content, Embeds: m.Embeds,
		Components: m.Components, Flags: m.Flags, TTS: m.TTS, MentionEveryone: m.MentionEveryone, Pinned: m.Pinned,
		Mentions: m.Mentions, MentionRoles: m.MentionRoles, Attachments: m.Attachments, WebhookID: m.WebhookID}
	if m.WebhookID != "" {
		w.ApplicationID = m.WebhookID // an interaction's webhook is its application's
	}
	if m.Author != nil {
		w.Author = (&User{ID: m.Author.ID, Username: m.Author.Username, GlobalName: m.Author.GlobalName, Bot: m.Author.Bot}).wire()
	}
	at := m.Timestamp
	if at.IsZero() {
		n, _ := strconv.ParseInt(m.ID, 10, 64)
		at = time.UnixMilli(n>>22 + discordEpoch)
	}
	w.Timestamp = at.UTC().Format(timestampLayout)
	if m.EditedTimestamp != nil {
		s := m.EditedTimestamp.UTC().Format(timestampLayout)
		w.EditedTimestamp = &s
	}
	if w.Embeds == nil {
		w.Embeds = []*discordgo.MessageEmbed{}
	}
	if rows := toPlain(m.Components); rows != nil {
		w.Components = rows // rows of buttons, marshaled at a fraction of the cost
	} else if m.Components == nil {
		w.Components = []discordgo.MessageComponent{}
	}
	if w.Mentions == nil {
		w.Mentions = []*discordgo.User{}
	}
	if w.MentionRoles == nil {
		w.MentionRoles = []string{}
	}
	if w.Attachments == nil {
		w.Attachments = []*discordgo.MessageAttachment{}
	}
	return w
}

// timestampLayout is how Discord writes a message's timestamps.
const timestampLayout = "2006-01-02T15:04:05.000000+00:00"

// Sign returns the X-Signature-Ed25519 header Discord sends with an
// interaction: the hex Ed25519 signature by key of timestamp (the
// X-Signature-Timestamp header) followed by body. key must be an Ed25519
// private key (ed25519.Sign panics otherwise).
func Sign(key ed25519.PrivateKey, timestamp string, body []byte) string {
	msg := make([]byte, 0, len(timestamp)+len(body))
	msg = append(append(msg, timestamp...), body...)
	return hex.EncodeToString(ed25519.Sign(key, msg))
}

// SignedRequest returns the POST of body to an Interactions Endpoint URL
// as Discord makes it: Content-Type application/json, Discord's
// User-Agent, X-Signature-Timestamp at (Unix seconds) and
// X-Signature-Ed25519 by key (see Sign). It returns the error of
// http.NewRequestWithContext.
func SignedRequest(ctx context.Context, endpoint string, key ed25519.PrivateKey, at time.Time, body []byte) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	ts := strconv.FormatInt(at.Unix(), 10)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Discord-Interactions/1.0 (+https://discord.com)")
	req.Header.Set("X-Signature-Ed25519", Sign(key, ts, body))
	req.Header.Set("X-Signature-Timestamp", ts)
	return req, nil
}

// The JSON of the builders, field for field as Discord sends it.
type (
	wireInteraction struct {
		ID                  string                    `json:"id"`
		ApplicationID       string                    `json:"application_id"`
		Type                discordgo.InteractionType `json:"type"`
		Data                any                       `json:"data,omitempty"`
		Guild               *wireGuild                `json:"guild,omitempty"`
		GuildID             string                    `json:"guild_id,omitempty"`
		Channel             *wireChannel              `json:"channel,omitempty"`
		ChannelID           string                    `json:"channel_id,omitempty"`
		Member              *wireMember               `json:"member,omitempty"`
		User                *wireUser                 `json:"user,omitempty"`
		Token               string                    `json:"token"`
		Version             int                       `json:"version"`
		Message             *wireMessage              `json:"message,omitempty"`
		AppPermissions      string                    `json:"app_permissions,omitempty"`
		Locale              string                    `json:"locale,omitempty"`
		GuildLocale         string                    `json:"guild_locale,omitempty"`
		Entitlements        []any                     `json:"entitlements"`
		Owners              map[string]string         `json:"authorizing_integration_owners"`
		Context             int                       `json:"context"`
		AttachmentSizeLimit int                       `json:"attachment_size_limit,omitempty"`
	}
	wireUser struct {
		ID                   string  `json:"id"`
		Username             string  `json:"username"`
		Discriminator        string  `json:"discriminator"`
		GlobalName           *string `json:"global_name"`
		Avatar               *string `json:"avatar"`
		AvatarDecorationData *string `json:"avatar_decoration_data"`
		PublicFlags          int     `json:"public_flags"`
		Bot                  bool    `json:"bot,omitempty"`
	}
	wireMember struct {
		User                       *wireUser `json:"user,omitempty"`
		Nick                       *string   `json:"nick"`
		Avatar                     *string   `json:"avatar"`
		Roles                      []string  `json:"roles"`
		JoinedAt                   string    `json:"joined_at"`
		PremiumSince               *string   `json:"premium_since"`
		Deaf                       *bool     `json:"deaf,omitempty"`
		Mute                       *bool     `json:"mute,omitempty"`
		Flags                      int       `json:"flags"`
		Pending                    bool      `json:"pending"`
		Permissions                string    `json:"permissions"`
		CommunicationDisabledUntil *string   `json:"communication_disabled_until"`
	}
	wireGuild struct {
		ID       string   `json:"id"`
		Locale   string   `json:"locale"`
		Features []string `json:"features"`
	}
	wireChannel struct {
		ID               string                `json:"id"`
		Type             discordgo.ChannelType `json:"type"`
		GuildID          string                `json:"guild_id"`
		Name             string                `json:"name"`
		Permissions      string                `json:"permissions"`
		Flags            int                   `json:"flags"`
		Position         int                   `json:"position"`
		ParentID         *string               `json:"parent_id"`
		Topic            *string               `json:"topic"`
		NSFW             bool                  `json:"nsfw"`
		LastMessageID    *string               `json:"last_message_id"`
		RateLimitPerUser int                   `json:"rate_limit_per_user"`
	}
	wireCommandData struct {
		ID       string                           `json:"id"`
		Name     string                           `json:"name"`
		Type     discordgo.ApplicationCommandType `json:"type"`
		GuildID  string                           `json:"guild_id,omitempty"`
		Options  []wireOption                     `json:"options"`
		Resolved *wireResolved                    `json:"resolved,omitempty"`
	}
	wireOption struct {
		Name    string                                 `json:"name"`
		Type    discordgo.ApplicationCommandOptionType `json:"type"`
		Value   any                                    `json:"value,omitempty"`
		Options []wireOption                           `json:"options,omitempty"`
	}
	wireResolved struct {
		Users   map[string]*wireUser   `json:"users"`
		Members map[string]*wireMember `json:"members"`
	}
	wireComponentData struct {
		CustomID      string                  `json:"custom_id"`
		ComponentType discordgo.ComponentType `json:"component_type"`
	}
	wireMessage struct {
		ID              string                         `json:"id"`
		ChannelID       string                         `json:"channel_id"`
		GuildID         string                         `json:"guild_id,omitempty"`
		Type            discordgo.MessageType          `json:"type"`
		Author          *wireUser                      `json:"author"`
		Content         string                         `json:"content"`
		Embeds          []*discordgo.MessageEmbed      `json:"embeds"`
		Components      any                            `json:"components"`
		Attachments     []*discordgo.MessageAttachment `json:"attachments"`
		Mentions        []*discordgo.User              `json:"mentions"`
		MentionRoles    []string                       `json:"mention_roles"`
		MentionEveryone bool                           `json:"mention_everyone"`
		Timestamp       string                         `json:"timestamp"`
		EditedTimestamp *string                        `json:"edited_timestamp"`
		Flags           discordgo.MessageFlags         `json:"flags"`
		TTS             bool                           `json:"tts"`
		Pinned          bool                           `json:"pinned"`
		WebhookID       string                         `json:"webhook_id,omitempty"`
		ApplicationID   string                         `json:"application_id,omitempty"`
	}
)
