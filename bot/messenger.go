package bot

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"

	"github.com/bwmarrin/discordgo"
)

// Messenger reaches Discord beside or after an interaction response: the
// next round's board as a follow-up, a board edited when a deadline passes.
// It has two ways in: an interaction's webhook (valid 15 minutes after the
// interaction, no bot token needed, so it works in `serve` mode) and, when
// the bot has a token, the channel's messages. *DiscordMessenger is the real
// one; tests use it against bot/discordtest.
type Messenger interface {
	// FollowUp posts msg as a new message through the webhook of the
	// interaction with token, and returns the new message's ID.
	FollowUp(ctx context.Context, appID, token string, msg *message) (messageID string, err error)
	// EditWebhookMessage replaces the content, embeds and components of
	// messageID ("@original", or a follow-up's ID) through the webhook, and
	// attaches msg.Files.
	EditWebhookMessage(ctx context.Context, appID, token, messageID string, msg *message) error
	// OriginalMessageID returns the ID of the message the interaction's
	// response created ("@original").
	OriginalMessageID(ctx context.Context, appID, token string) (string, error)
	// HasBotToken reports whether SendChannelMessage and
	// EditChannelMessage can work.
	HasBotToken() bool
	// SendChannelMessage posts msg in channelID with the bot token, and
	// returns the new message's ID.
	SendChannelMessage(ctx context.Context, channelID string, msg *message) (string, error)
	// EditChannelMessage replaces the content, embeds and components of a
	// channel message with the bot token.
	EditChannelMessage(ctx context.Context, channelID, messageID string, msg *message) error
	// DeleteWebhookMessage deletes messageID ("@original", or a
	// follow-up's ID) through the webhook of the interaction with token.
	DeleteWebhookMessage(ctx context.Context, appID, token, messageID string) error
	// StartThread opens a public thread named name (at most 100
	// characters) in channelID with the bot token, not attached to a
	// message, and returns its channel ID.
	StartThread(ctx context.Context, channelID, name string) (threadID string, err error)
	// ArchiveThread archives the thread threadID with the bot token.
	ArchiveThread(ctx context.Context, threadID string) error
}

// threadAutoArchive is the auto_archive_duration of the threads the bot
// opens, in minutes (one of Discord's 60, 1440, 4320, 10080): should the
// bot not archive a thread after its match (a restart forgets the plan),
// Discord archives it after an hour without activity.
const threadAutoArchive = 60

// errNoBotToken is returned by the channel-message methods of a messenger
// without a bot token.
var errNoBotToken = errors.New("no bot token configured")

// DiscordMessenger is the Messenger that calls Discord's REST API through a
// discordgo session. The session's HTTP client decides where requests go
// (Discord itself, a REST proxy, or a fake in tests); its token, when set,
// is used for channel messages and sent along with webhook calls, which do
// not need it. Every call honours its context and returns discordgo's
// errors (a *discordgo.RESTError for an API error). discordgo itself waits
// out a 429 rate limit for its retry_after and tries again.
type DiscordMessenger struct {
	Session *discordgo.Session
}

// NewDiscordMessenger returns a messenger on s.
func NewDiscordMessenger(s *discordgo.Session) *DiscordMessenger {
	return &DiscordMessenger{Session: s}
}

// FollowUp implements Messenger.
func (d *DiscordMessenger) FollowUp(ctx context.Context, appID, token string, msg *message) (string, error) {
	m, err := d.Session.WebhookExecute(appID, token, true, &discordgo.WebhookParams{
		Content: msg.Content, Embeds: msg.Embeds, Components: nonNil(msg.Components),
		AllowedMentions: msg.AllowedMentions, Flags: msg.Flags,
	}, discordgo.WithContext(ctx))
	if err != nil {
		return "", err
	}
	return m.ID, nil
}

// EditWebhookMessage implements Messenger.
func (d *DiscordMessenger) EditWebhookMessage(ctx context.Context, appID, token, messageID string, msg *message) error {
	content, embeds, components := msg.Content, msg.Embeds, nonNil(msg.Components)
	_, err := d.Session.WebhookMessageEdit(appID, token, messageID, &discordgo.WebhookEdit{
		Content: &content, Embeds: &embeds, Components: &components, AllowedMentions: msg.AllowedMentions,
		Files: msg.Files,
	}, discordgo.WithContext(ctx))
	return err
}

// OriginalMessageID implements Messenger.
func (d *DiscordMessenger) OriginalMessageID(ctx context.Context, appID, token string) (string, error) {
	m, err := d.Session.WebhookMessage(appID, token, "@original", discordgo.WithContext(ctx))
	if err != nil {
		return "", err
	}
	return m.ID, nil
}

// HasBotToken implements Messenger.
func (d *DiscordMessenger) HasBotToken() bool { return d.Session.Token != "" }

// SendChannelMessage implements Messenger.
func (d *DiscordMessenger) SendChannelMessage(ctx context.Context, channelID string, msg *message) (string, error) {
	if !d.HasBotToken() {
		return "", errNoBotToken
	}
	m, err := d.Session.ChannelMessageSendComplex(channelID, &discordgo.MessageSend{
		Content: msg.Content, Embeds: msg.Embeds, Components: nonNil(msg.Components), AllowedMentions: msg.AllowedMentions,
	}, discordgo.WithContext(ctx))
	if err != nil {
		return "", err
	}
	return m.ID, nil
}

// EditChannelMessage implements Messenger.
func (d *DiscordMessenger) EditChannelMessage(ctx context.Context, channelID, messageID string, msg *message) error {
	if !d.HasBotToken() {
		return errNoBotToken
	}
	content, embeds, components := msg.Content, msg.Embeds, nonNil(msg.Components)
	_, err := d.Session.ChannelMessageEditComplex(&discordgo.MessageEdit{
		ID: messageID, Channel: channelID,
		Content: &content, Embeds: &embeds, Components: &components, AllowedMentions: msg.AllowedMentions,
	}, discordgo.WithContext(ctx))
	return err
}

// DeleteWebhookMessage implements Messenger.
func (d *DiscordMessenger) DeleteWebhookMessage(ctx context.Context, appID, token, messageID string) error {
	return d.Session.WebhookMessageDelete(appID, token, messageID, discordgo.WithContext(ctx))
}

// StartThread implements Messenger: POST /channels/{channel}/threads,
// "Start Thread without Message"
// (https://discord.com/developers/docs/resources/channel#start-thread-without-message),
// a public thread (type 11).
func (d *DiscordMessenger) StartThread(ctx context.Context, channelID, name string) (string, error) {
	if !d.HasBotToken() {
		return "", errNoBotToken
	}
	ch, err := d.Session.ThreadStartComplex(channelID, &discordgo.ThreadStart{
		Name: name, Type: discordgo.ChannelTypeGuildPublicThread, AutoArchiveDuration: threadAutoArchive,
	}, discordgo.WithContext(ctx))
	if err != nil {
		return "", err
	}
	return ch.ID, nil
}

// ArchiveThread implements Messenger: PATCH /channels/{thread} with
// archived set.
func (d *DiscordMessenger) ArchiveThread(ctx context.Context, threadID string) error {
	if !d.HasBotToken() {
		return errNoBotToken
	}
	archived := true
	_, err := d.Session.ChannelEdit(threadID, &discordgo.ChannelEdit{Archived: &archived}, discordgo.WithContext(ctx))
	return err
}

// nonNil returns c, or an empty list for nil, so that a message without
// buttons is sent as "components": [] and loses any it had.
func nonNil(c []discordgo.MessageComponent) []discordgo.MessageComponent {
	if c == nil {
		return []discordgo.MessageComponent{}
	}
	return c
}

// gone reports whether err means the target of a REST call can no longer be
// reached, so that retrying is pointless: the message or channel is gone
// (10008, 10003), the bot may not see or write there (50001, 50013), or the
// interaction webhook is unknown or its token expired (10015, 50027, 401
// from a webhook). Anything else (a 5xx, a timeout) may pass.
func gone(err error) bool {
	if errors.Is(err, errNoBotToken) {
		return true
	}
	var re *discordgo.RESTError
	if !errors.As(err, &re) {
		return false
	}
	if re.Message != nil {
		switch re.Message.Code {
		case discordgo.ErrCodeUnknownMessage, discordgo.ErrCodeUnknownChannel, discordgo.ErrCodeMissingAccess,
			discordgo.ErrCodeMissingPermissions, discordgo.ErrCodeUnknownWebhook, discordgo.ErrCodeInvalidWebhookTokenProvided:
			return true
		}
	}
	if re.Response != nil {
		switch re.Response.StatusCode {
		case http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound:
			return true
		}
	}
	return false
}

// restErrorText describes err for the log without the request URL, which
// for a webhook call holds the interaction token.
func restErrorText(err error) string {
	var re *discordgo.RESTError
	if errors.As(err, &re) {
		code, msg := 0, ""
		if re.Message != nil {
			code, msg = re.Message.Code, re.Message.Message
		}
		status := 0
		if re.Response != nil {
			status = re.Response.StatusCode
		}
		return fmt.Sprintf("HTTP %d, Discord code %d: %s", status, code, msg)
	}
	var rl *discordgo.RateLimitError
	if errors.As(err, &rl) {
		return fmt.Sprintf("rate limited, retry after %v", rl.RetryAfter)
	}
	return redactURL(err.Error())
}

// tokenInPath matches the interaction token in a webhook or callback URL.
var tokenInPath = regexp.MustCompile(`/(webhooks/[^/\s"]+|interactions/[^/\s"]+)/[^/?\s"]+`)

// redactURL hides interaction tokens in text that may quote a request URL.
func redactURL(s string) string { return tokenInPath.ReplaceAllString(s, "/$1/[token]") }
