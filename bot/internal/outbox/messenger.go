package outbox

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot/internal/wire"
	"github.com/connectn/connectn/internal/clock"
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
	// returns the new message's ID. A nonce (at most 25 characters; ""
	// for none) is sent with enforce_nonce: Discord then answers a post
	// whose nonce it saw from the bot in the past few minutes with the
	// message that nonce made, and makes none (see Nonce).
	SendChannelMessage(ctx context.Context, channelID, nonce string, msg *message) (string, error)
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
	// RecentChannelMessages returns the latest limit (1 to 100) messages
	// of channelID, newest first, with the bot token.
	RecentChannelMessages(ctx context.Context, channelID string, limit int) ([]*discordgo.Message, error)
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
// errors (a *discordgo.RESTError for an API error, a
// *discordgo.RateLimitError for a 429).
//
// It tries each call once (discordgo's own retries are off: Boards tries
// again, in one place, within a budget), and it keeps Discord's global
// rate limit itself: a 429 with X-RateLimit-Global holds every request it
// sends until its retry_after has passed on Clock
// (https://discord.com/developers/docs/topics/rate-limits#global-rate-limit).
// Why discordgo's own handling is not enough is in docs/load.md
// ("discordgo's retries").
type DiscordMessenger struct {
	Session *discordgo.Session
	// Clock times the global rate limit's hold; nil is the system clock.
	Clock clock.Clock

	once   sync.Once
	gate   globalGate
	client *http.Client // Session.Client through gate
}

// NewDiscordMessenger returns a messenger on s.
func NewDiscordMessenger(s *discordgo.Session) *DiscordMessenger {
	return &DiscordMessenger{Session: s}
}

// opts returns the options of every request: ctx, the client through the
// global gate, and no retries by discordgo.
func (d *DiscordMessenger) opts(ctx context.Context) []discordgo.RequestOption {
	d.once.Do(func() {
		c := http.Client{}
		if d.Session.Client != nil {
			c = *d.Session.Client
		}
		next := c.Transport
		if next == nil {
			next = http.DefaultTransport
		}
		d.gate.clock = clock.OrReal(d.Clock)
		c.Transport = &gateTransport{gate: &d.gate, next: next}
		d.client = &c
	})
	return []discordgo.RequestOption{discordgo.WithContext(ctx), discordgo.WithClient(d.client),
		discordgo.WithRetryOnRatelimit(false), discordgo.WithRestRetries(0)}
}

// globalGate holds requests while Discord's global rate limit lasts.
type globalGate struct {
	clock clock.Clock
	mu    sync.Mutex
	until time.Time
}

// wait returns when the global limit has passed, or ctx's error.
func (g *globalGate) wait(ctx context.Context) error {
	for {
		g.mu.Lock()
		d := g.until.Sub(g.clock.Now())
		g.mu.Unlock()
		if d <= 0 {
			return nil
		}
		if !clock.Sleep(ctx, g.clock, d) {
			return ctx.Err()
		}
	}
}

// hold closes the gate for d from now (a later end already set stays).
func (g *globalGate) hold(d time.Duration) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if end := g.clock.Now().Add(d); end.After(g.until) {
		g.until = end
	}
}

// gateTransport sends a request through next once the gate is open, and
// closes the gate on a global 429.
type gateTransport struct {
	gate *globalGate
	next http.RoundTripper
}

// RoundTrip implements http.RoundTripper.
func (t *gateTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := t.gate.wait(req.Context()); err != nil {
		return nil, err
	}
	resp, err := t.next.RoundTrip(req)
	if err != nil || resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("X-RateLimit-Global") != "true" {
		return resp, err
	}
	// The body's retry_after has milliseconds; the Retry-After header
	// whole seconds.
	body, rerr := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	var rl struct {
		RetryAfter float64 `json:"retry_after"`
	}
	wait := time.Duration(0)
	if rerr == nil && json.Unmarshal(body, &rl) == nil && rl.RetryAfter > 0 {
		wait = time.Duration(rl.RetryAfter * float64(time.Second))
	} else if secs, perr := strconv.Atoi(resp.Header.Get("Retry-After")); perr == nil {
		wait = time.Duration(secs) * time.Second
	}
	t.gate.hold(wait)
	return resp, nil
}

// RecentChannelMessages implements Messenger.
func (d *DiscordMessenger) RecentChannelMessages(ctx context.Context, channelID string, limit int) ([]*discordgo.Message, error) {
	if !d.HasBotToken() {
		return nil, errNoBotToken
	}
	return d.Session.ChannelMessages(channelID, limit, "", "", "", d.opts(ctx)...)
}

// webhookBuckets is how many discordgo rate-limit buckets the calls
// through interaction webhooks (follow-ups, reads, edits and deletes of
// their messages, gateway-mode callbacks) are spread over: a bucket per
// hash of the token, so that a stalled call holds only the few calls that
// share its bucket, and the buckets discordgo keeps for ever stay few
// (300 KiB at most). Why not discordgo's own buckets: docs/load.md
// ("discordgo's retries").
const webhookBuckets = 1024

// WebhookBucket returns the bucket of a call through the webhook of token:
// "webhook#<n>", n from 0 to webhookBuckets-1 (FNV-1a of the token).
func WebhookBucket(token string) string {
	h := fnv.New32a()
	_, _ = h.Write([]byte(token))
	return "webhook#" + strconv.FormatUint(uint64(h.Sum32()%webhookBuckets), 10)
}

// webhookRequest sends data (JSON, or multipart with files) to uri in the
// bucket of token and, unless out is nil, sets *out to the ID of the
// message Discord answers with (wire.MessageID). data that is a
// json.RawMessage is sent as it is; anything else is encoded by discordgo.
func (d *DiscordMessenger) webhookRequest(ctx context.Context, method, uri, token string, data any, files []*discordgo.File, out *string) error {
	var (
		body []byte
		err  error
	)
	raw, isRaw := data.(json.RawMessage)
	switch {
	case len(files) > 0:
		described, encErr := withAltTexts(data, files)
		if encErr != nil {
			return encErr
		}
		contentType, multipart, encErr := discordgo.MultipartBodyWithJSON(described, files)
		if encErr != nil {
			return encErr
		}
		body, err = d.Session.RequestRaw(method, uri, contentType, multipart, WebhookBucket(token), 0, d.opts(ctx)...)
	case isRaw:
		body, err = d.Session.RequestRaw(method, uri, "application/json", raw, WebhookBucket(token), 0, d.opts(ctx)...)
	default:
		body, err = d.Session.RequestWithBucketID(method, uri, data, WebhookBucket(token), d.opts(ctx)...)
	}
	if err != nil || out == nil {
		return err
	}
	if *out, err = wire.MessageID(body); err != nil {
		return fmt.Errorf("%s %s: %w", method, redactURL(uri), err)
	}
	return nil
}

// FollowUp implements Messenger: Create Followup Message, with wait=true
// for the message it makes.
func (d *DiscordMessenger) FollowUp(ctx context.Context, appID, token string, msg *message) (string, error) {
	// Encoded by wire, as the endpoint's responses are: discordgo would
	// encode every button through its own MarshalJSON.
	body, err := wire.AppendMessage(nil, &discordgo.InteractionResponseData{
		Content: msg.Content, Embeds: msg.Embeds, Components: nonNil(msg.Components),
		AllowedMentions: msg.AllowedMentions, Flags: msg.Flags,
	})
	if err != nil {
		return "", err
	}
	var id string
	err = d.webhookRequest(ctx, http.MethodPost, discordgo.EndpointWebhookToken(appID, token)+"?wait=true", token, json.RawMessage(body), nil, &id)
	return id, err
}

// EditWebhookMessage implements Messenger.
func (d *DiscordMessenger) EditWebhookMessage(ctx context.Context, appID, token, messageID string, msg *message) error {
	content, embeds, components := msg.Content, msg.Embeds, nonNil(msg.Components)
	return d.webhookRequest(ctx, http.MethodPatch, discordgo.EndpointWebhookMessage(appID, token, messageID), token, &discordgo.WebhookEdit{
		Content: &content, Embeds: &embeds, Components: &components, AllowedMentions: msg.AllowedMentions,
		Files: msg.Files,
	}, msg.Files, nil)
}

// OriginalMessageID implements Messenger.
func (d *DiscordMessenger) OriginalMessageID(ctx context.Context, appID, token string) (string, error) {
	var id string
	if err := d.webhookRequest(ctx, http.MethodGet, discordgo.EndpointWebhookMessage(appID, token, "@original"), token, nil, nil, &id); err != nil {
		return "", err
	}
	return id, nil
}

// HasBotToken implements Messenger.
func (d *DiscordMessenger) HasBotToken() bool { return d.Session.Token != "" }

// channelPost is the body of a channel post: discordgo's MessageSend,
// which has no nonce, with Discord's nonce and enforce_nonce.
type channelPost struct {
	*discordgo.MessageSend
	Nonce        string `json:"nonce,omitempty"`
	EnforceNonce bool   `json:"enforce_nonce,omitempty"`
}

// SendChannelMessage implements Messenger. The body is encoded here
// rather than by discordgo's ChannelMessageSendComplex, for the nonce and
// the files' descriptions (withAltTexts); embeds without a type are
// "rich", as that method makes them.
func (d *DiscordMessenger) SendChannelMessage(ctx context.Context, channelID, nonce string, msg *message) (string, error) {
	if !d.HasBotToken() {
		return "", errNoBotToken
	}
	send := &discordgo.MessageSend{
		Content: msg.Content, Embeds: msg.Embeds, Components: nonNil(msg.Components), AllowedMentions: msg.AllowedMentions,
		Files: msg.Files,
	}
	for _, e := range send.Embeds {
		if e.Type == "" {
			e.Type = discordgo.EmbedTypeRich
		}
	}
	var data any = channelPost{MessageSend: send, Nonce: nonce, EnforceNonce: nonce != ""}
	uri := discordgo.EndpointChannelMessages(channelID)
	var (
		resp []byte
		err  error
	)
	if len(msg.Files) > 0 {
		if data, err = withAltTexts(data, msg.Files); err != nil {
			return "", err
		}
		contentType, body, merr := discordgo.MultipartBodyWithJSON(data, msg.Files)
		if merr != nil {
			return "", merr
		}
		resp, err = d.Session.RequestRaw(http.MethodPost, uri, contentType, body, uri, 0, d.opts(ctx)...)
	} else {
		resp, err = d.Session.RequestWithBucketID(http.MethodPost, uri, data, uri, d.opts(ctx)...)
	}
	if err != nil {
		return "", err
	}
	return wire.MessageID(resp)
}

// Nonce returns the nonce of a channel post known by key (any text that
// names one post, such as a tournament's message): 25 hexadecimal digits
// of key's SHA-256, the most a nonce may hold. A post retried with the
// same nonce within Discord's window of a few minutes is folded into the
// message the first made.
func Nonce(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:13])[:25]
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
	}, d.opts(ctx)...)
	return err
}

// DeleteWebhookMessage implements Messenger.
func (d *DiscordMessenger) DeleteWebhookMessage(ctx context.Context, appID, token, messageID string) error {
	return d.webhookRequest(ctx, http.MethodDelete, discordgo.EndpointWebhookMessage(appID, token, messageID), token, nil, nil, nil)
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
	}, d.opts(ctx)...)
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
	_, err := d.Session.ChannelEdit(threadID, &discordgo.ChannelEdit{Archived: &archived}, d.opts(ctx)...)
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

// RESTErrorText describes err for the log without the request URL's host
// and token: discordgo builds every URL on discord.com, while the
// transport may send the call to a configured REST base, so that a failure
// without an answer is told by the path and the error of the connection
// really made (which names the host really called); a webhook call's URL
// holds the interaction token, which is hidden.
func RESTErrorText(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		path := ue.URL
		if u, perr := url.Parse(ue.URL); perr == nil {
			path = u.Path
		}
		return redactURL(fmt.Sprintf("%s %s: %v", ue.Op, path, ue.Err))
	}
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

// altTexter is a file's reader that carries the file's description, its
// alt text (render.AltFile).
type altTexter interface{ AltText() string }

// withAltTexts returns data, the JSON body of a message sent with files,
// with the description of every file whose reader carries one: an
// "attachments" list naming each file by its index in files (as Discord
// reads the metadata of the files of a multipart body, files[n] being
// the file of id n), its name and its description. discordgo's attachment
// has no description, hence the body rebuilt as JSON. data goes as it is
// when no file carries a description.
func withAltTexts(data any, files []*discordgo.File) (any, error) {
	if !slices.ContainsFunc(files, func(f *discordgo.File) bool { _, ok := f.Reader.(altTexter); return ok }) {
		return data, nil
	}
	raw, err := json.Marshal(data)
	if err != nil {
		return nil, fmt.Errorf("encode a message with files: %w", err)
	}
	var body map[string]json.RawMessage
	if err := json.Unmarshal(raw, &body); err != nil {
		return nil, fmt.Errorf("encode a message with files: %w", err)
	}
	type attachment struct {
		ID          int    `json:"id"`
		Filename    string `json:"filename"`
		Description string `json:"description,omitempty"`
	}
	list := make([]attachment, len(files))
	for i, f := range files {
		list[i] = attachment{ID: i, Filename: f.Name}
		if a, ok := f.Reader.(altTexter); ok {
			list[i].Description = a.AltText()
		}
	}
	if body["attachments"], err = json.Marshal(list); err != nil {
		return nil, fmt.Errorf("encode a message with files: %w", err)
	}
	return body, nil
}
