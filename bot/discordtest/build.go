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
// objects Discord puts in a guild interaction, and the user and DM channel
// objects of an interaction outside a server.

// User is a Discord user as an interaction carries it: the member who
// acts, the user of a USER option, the author of a message.
type User struct {
	ID       string
	Username string
	// GlobalName is the display name; "" is JSON null (none set).
	GlobalName string
	Bot        bool
}

// Envelope is what an interaction carries besides its type and data: its
// ID and token, the application it is for, where it happens (a server's
// channel, the bot's DM, a group DM or a DM between users), the user who
// acts there and the installation that authorised it.
//
// The zero values of Context, UserInstall, AppPermissions, ChannelType and
// ParentID give an interaction in a text channel of a server that
// installed the app, as before these fields existed, byte for byte.
type Envelope struct {
	ID, Token string
	AppID     string
	// GuildID is the server; it is ignored outside a server (Context 1 and
	// 2), where an interaction has no guild.
	GuildID   string
	ChannelID string
	// ChannelName is the channel's name; "" is "general" in a server, and
	// no name (null) for a group DM.
	ChannelName string
	From        User
	// Locale is the member's client language and GuildLocale the guild's;
	// "" is "en-US". Outside a server there is no guild_locale.
	Locale, GuildLocale string
	// CommandID is the ID of the command in a slash command's data; "" is
	// DefaultCommandID.
	CommandID string

	// Context is where the interaction happens, as Discord's interaction
	// context types say
	// (https://discord.com/developers/docs/interactions/receiving-and-responding#interaction-object-interaction-context-types):
	// discordgo.InteractionContextGuild (0, the default), a channel of the
	// server GuildID; discordgo.InteractionContextBotDM (1), the DM between
	// From and the bot; discordgo.InteractionContextPrivateChannel (2), a
	// group DM, or a DM between From and another user. Outside a server the
	// interaction has no guild, guild_id, guild_locale or member: it
	// carries From as user (a full user object), a channel object of type
	// 1 (DM) for context 1 and 3 (GROUP_DM) for context 2 (ChannelType
	// overrides it, such as 1 for a DM between two users in context 2)
	// without guild_id, the context, locale, and
	// authorizing_integration_owners {"1": From.ID}. A Server that
	// registers an interaction of context 2 (DispatchInteractionJSON,
	// DeliverJSON and the others) keeps the bot out of its channel, as
	// KeepBotOut does: the bot is never a member of a group DM or of a DM
	// between two users.
	Context discordgo.InteractionContextType
	// UserInstall makes the interaction one authorised by From's own
	// install of the app (integration type 1,
	// https://discord.com/developers/docs/interactions/receiving-and-responding#interaction-object-authorizing-integration-owners-object):
	// authorizing_integration_owners is {"1": From.ID} instead of {"0":
	// GuildID}. In a server (Context 0) that means the app is not
	// installed there and the bot is not a member; app_permissions then
	// defaults to what Discord grants such an app (embeds, files,
	// @everyone, external emojis and polls, "562949953863680"). Outside a
	// server the owners are {"1": From.ID} whatever UserInstall says.
	UserInstall bool
	// AppPermissions is the app_permissions string, the permissions of
	// the app where the interaction happens. "" is Discord's value for the
	// place: "562949953421311" (every permission up to bit 48) in a server
	// that installed the app, "562949953863680" in a server through a user
	// install and in the bot's DM, "562949953601536" in group DMs and DMs
	// between users (embeds, files, @everyone and polls), as Discord sends
	// them (see the footnote of app_permissions on the interaction object
	// page).
	AppPermissions string
	// ChannelType is the type of the channel object
	// (https://discord.com/developers/docs/resources/channel#channel-object-channel-types)
	// and ParentID its parent_id: a category for a server channel, the
	// text channel of a thread (types 10, 11 and 12, sent with the
	// thread_metadata of an open thread owned by the bot, as a thread the
	// bot opened). Zero keeps the default: a server text channel (0)
	// without a parent, or the DM type of Context.
	ChannelType discordgo.ChannelType
	ParentID    string
	// MemberPermissions overrides the acting member's permissions in the
	// channel (member.permissions, a decimal string; "" keeps a member
	// without special rights), and Roles are their role IDs (none by
	// default). Only in a server.
	MemberPermissions string
	Roles             []string
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
	// userInstallPermissions is the app_permissions Discord sends for an
	// app used through a user install in a server without the bot, and in
	// the bot's DM: ATTACH_FILES, EMBED_LINKS, MENTION_EVERYONE,
	// USE_EXTERNAL_EMOJIS and SEND_POLLS.
	userInstallPermissions = "562949953863680"
	// privateChannelPermissions is the app_permissions Discord sends in
	// group DMs and DMs between users: those of userInstallPermissions but
	// USE_EXTERNAL_EMOJIS.
	privateChannelPermissions = "562949953601536"
	joinedAt                  = "2024-05-01T12:00:00.000000+00:00"
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
	roles []string
}

// MemberArg is a USER option naming u, whose resolved member has roles
// (their role IDs in the server).
func MemberArg(name string, u User, roles ...string) Arg {
	a := UserArg(name, u)
	a.roles = roles
	return a
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
// options), where e says (see Envelope). Outside a server, USER options
// are resolved in data.resolved.users only, without members, and data has
// no guild_id, as Discord sends them.
func Slash(e Envelope, command, sub string, args ...Arg) []byte {
	return slash(e, command, "", sub, args...)
}

// SlashGroup returns the APPLICATION_COMMAND interaction of
// /command group sub, a subcommand in a subcommand group, with args: as
// Discord sends it, data.options holds the group (type 2), which holds
// the subcommand (type 1) and its options.
func SlashGroup(e Envelope, command, group, sub string, args ...Arg) []byte {
	return slash(e, command, group, sub, args...)
}

func slash(e Envelope, command, group, sub string, args ...Arg) []byte {
	i := e.interaction(discordgo.InteractionApplicationCommand)
	d := &wireCommandData{ID: e.CommandID, Name: command, Type: discordgo.ChatApplicationCommand, GuildID: i.GuildID}
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
			d.Resolved = &wireResolved{Users: map[string]*wireUser{}}
			if e.Context == discordgo.InteractionContextGuild {
				d.Resolved.Members = map[string]*wireMember{}
			}
		}
		d.Resolved.Users[a.user.ID] = a.user.wire()
		if d.Resolved.Members != nil {
			pm := partialMember()
			if a.roles != nil {
				pm.Roles = a.roles
			}
			d.Resolved.Members[a.user.ID] = pm
		}
	}
	if sub == "" {
		d.Options = opts
	} else {
		d.Options = []wireOption{{Name: sub, Type: discordgo.ApplicationCommandOptionSubCommand, Options: opts}}
		if group != "" {
			d.Options = []wireOption{{Name: group, Type: discordgo.ApplicationCommandOptionSubCommandGroup, Options: d.Options}}
		}
	}
	if d.Options == nil {
		d.Options = []wireOption{}
	}
	i.Data = d
	return mustJSON(i)
}

// Click returns the MESSAGE_COMPONENT interaction (type 3) of a click by
// e.From on the button customID of msg, where e says (see Envelope), with
// msg as Discord sends it: its ID, channel (e's when msg has none), type,
// author (the bot, e.AppID, when msg has none), content, embeds,
// components, flags, timestamps (the creation time of its snowflake ID when
// msg has none), mentions and attachments.
func Click(e Envelope, msg *discordgo.Message, customID string) []byte {
	i := e.interaction(discordgo.InteractionMessageComponent)
	i.Data = &wireComponentData{CustomID: customID, ComponentType: discordgo.ButtonComponent}
	i.Message = messageOf(msg, &e)
	return mustJSON(i)
}

// interaction returns the fields of an interaction of type typ where e
// says: in a server's channel (Context 0) or outside a server.
func (e *Envelope) interaction(typ discordgo.InteractionType) *wireInteraction {
	i := &wireInteraction{
		ID: e.ID, ApplicationID: e.AppID, Type: typ, Token: e.Token, Version: 1,
		ChannelID: e.ChannelID, Locale: or(e.Locale, "en-US"), Context: int(e.Context),
		Entitlements: []any{}, AttachmentSizeLimit: attachmentSizeLimit,
	}
	if e.Context != discordgo.InteractionContextGuild {
		u := e.From.wire()
		i.User = u
		i.Channel = e.privateChannel(u)
		i.Owners = map[string]string{"1": e.From.ID}
		i.AppPermissions = userInstallPermissions
		if e.Context == discordgo.InteractionContextPrivateChannel {
			i.AppPermissions = privateChannelPermissions
		}
		if e.AppPermissions != "" {
			i.AppPermissions = e.AppPermissions
		}
		return i
	}
	guildLocale := or(e.GuildLocale, "en-US")
	m := member(e.From)
	if e.MemberPermissions != "" {
		m.Permissions = e.MemberPermissions
	}
	if e.Roles != nil {
		m.Roles = e.Roles
	}
	i.Guild = &wireGuild{ID: e.GuildID, Locale: guildLocale, Features: []string{}}
	i.GuildID, i.GuildLocale, i.Member = e.GuildID, guildLocale, &m
	i.Channel = e.guildChannel()
	i.Owners, i.AppPermissions = map[string]string{"0": e.GuildID}, appPermissions
	if e.UserInstall {
		i.Owners, i.AppPermissions = map[string]string{"1": e.From.ID}, userInstallPermissions
	}
	if e.AppPermissions != "" {
		i.AppPermissions = e.AppPermissions
	}
	return i
}

// guildChannel returns the partial channel object of a server interaction:
// a text channel (or e.ChannelType) with e.ParentID, or a thread.
func (e *Envelope) guildChannel() any {
	name := or(e.ChannelName, "general")
	if isThread(e.ChannelType) {
		at := snowflakeTime(e.ChannelID).UTC().Format(timestampLayout)
		return &wireThread{ID: e.ChannelID, Type: e.ChannelType, GuildID: e.GuildID, ParentID: e.ParentID, OwnerID: e.AppID,
			Name: name, Permissions: memberPermissions, MemberCount: 1,
			Metadata: wireThreadMetadata{AutoArchiveDuration: defaultAutoArchive, ArchiveTimestamp: at, CreateTimestamp: &at}}
	}
	c := &wireChannel{ID: e.ChannelID, Type: e.ChannelType, GuildID: e.GuildID, Name: name, Permissions: memberPermissions}
	if e.ParentID != "" {
		c.ParentID = &e.ParentID
	}
	return c
}

// privateChannel returns the channel object of an interaction outside a
// server, whose recipient is u: a DM (type 1) in the bot's DM, a group DM
// (type 3, owned by u) in context 2, unless e.ChannelType says otherwise.
func (e *Envelope) privateChannel(u *wireUser) *wireDMChannel {
	t := e.ChannelType
	if t == 0 {
		t = discordgo.ChannelTypeDM
		if e.Context == discordgo.InteractionContextPrivateChannel {
			t = discordgo.ChannelTypeGroupDM
		}
	}
	c := &wireDMChannel{ID: e.ChannelID, Type: t, Recipients: []*wireUser{u}}
	if t == discordgo.ChannelTypeGroupDM {
		c.wireGroupDM = &wireGroupDM{OwnerID: e.From.ID}
		if e.ChannelName != "" {
			c.wireGroupDM.Name = &e.ChannelName
		}
	}
	return c
}

// isThread reports whether t is a thread's channel type (10, 11 or 12).
func isThread(t discordgo.ChannelType) bool {
	return t == discordgo.ChannelTypeGuildNewsThread || t == discordgo.ChannelTypeGuildPublicThread || t == discordgo.ChannelTypeGuildPrivateThread
}

// snowflakeTime returns the creation time of the snowflake id, or the
// Discord epoch when id is not a number.
func snowflakeTime(id string) time.Time {
	n, _ := strconv.ParseInt(id, 10, 64)
	return time.UnixMilli(n>>22 + discordEpoch)
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
		at = snowflakeTime(m.ID)
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
		Channel             any                       `json:"channel,omitempty"` // *wireChannel, *wireThread or *wireDMChannel
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
	// wireDMChannel is the channel object of an interaction outside a
	// server: a DM or a group DM
	// (https://discord.com/developers/docs/resources/channel#channel-object-example-dm-channel).
	wireDMChannel struct {
		ID             string                `json:"id"`
		Type           discordgo.ChannelType `json:"type"`
		Flags          int                   `json:"flags"`
		LastMessageID  *string               `json:"last_message_id"`
		RecipientFlags int                   `json:"recipient_flags"`
		Recipients     []*wireUser           `json:"recipients"`
		*wireGroupDM
	}
	// wireGroupDM holds the fields only a group DM has.
	wireGroupDM struct {
		Name    *string `json:"name"`
		Icon    *string `json:"icon"`
		OwnerID string  `json:"owner_id"`
	}
	// wireThread is a thread channel, as Discord returns one from the
	// thread routes and puts one in an interaction (with permissions)
	// (https://discord.com/developers/docs/resources/channel#channel-object-example-thread-channel).
	wireThread struct {
		ID               string                `json:"id"`
		Type             discordgo.ChannelType `json:"type"`
		GuildID          string                `json:"guild_id,omitempty"`
		ParentID         string                `json:"parent_id"`
		OwnerID          string                `json:"owner_id"`
		Name             string                `json:"name"`
		LastMessageID    *string               `json:"last_message_id"`
		RateLimitPerUser int                   `json:"rate_limit_per_user"`
		Flags            int                   `json:"flags"`
		MessageCount     int                   `json:"message_count"`
		MemberCount      int                   `json:"member_count"`
		TotalMessageSent int                   `json:"total_message_sent"`
		Permissions      string                `json:"permissions,omitempty"`
		Metadata         wireThreadMetadata    `json:"thread_metadata"`
		Member           *wireThreadMember     `json:"member,omitempty"`
	}
	wireThreadMetadata struct {
		Archived            bool    `json:"archived"`
		AutoArchiveDuration int     `json:"auto_archive_duration"`
		ArchiveTimestamp    string  `json:"archive_timestamp"`
		Locked              bool    `json:"locked"`
		Invitable           *bool   `json:"invitable,omitempty"` // private threads only
		CreateTimestamp     *string `json:"create_timestamp"`
	}
	// wireThreadMember is the bot's membership of a thread.
	wireThreadMember struct {
		ID            string `json:"id"`
		UserID        string `json:"user_id"`
		JoinTimestamp string `json:"join_timestamp"`
		Flags         int    `json:"flags"`
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
		Members map[string]*wireMember `json:"members,omitempty"` // none outside a server
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
