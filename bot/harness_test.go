package bot_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot"
	"github.com/connectn/connectn/sessions"
	"github.com/connectn/connectn/sessions/sqlite"
)

// Test identities, shaped like Discord snowflakes.
const (
	appID     = "1100000000000000001"
	guildID   = "1200000000000000001"
	channelID = "1300000000000000001"
	aliceID   = "1400000000000000001"
	bobID     = "1400000000000000002"
	carolID   = "1400000000000000003"
	botUserID = "1100000000000000001"
)

type user struct {
	ID, Username, GlobalName string
	Bot                      bool
}

var (
	alice = user{ID: aliceID, Username: "alice", GlobalName: "Alice"}
	bob   = user{ID: bobID, Username: "bob", GlobalName: "Bob"}
	carol = user{ID: carolID, Username: "carol", GlobalName: "Carol"}
	robot = user{ID: "1400000000000000009", Username: "robot", Bot: true}
)

func (u user) json() map[string]any {
	m := map[string]any{
		"id": u.ID, "username": u.Username, "discriminator": "0",
		"global_name": nil, "avatar": nil, "public_flags": 0,
	}
	if u.GlobalName != "" {
		m["global_name"] = u.GlobalName
	}
	if u.Bot {
		m["bot"] = true
	}
	return m
}

func member(u user) map[string]any {
	return map[string]any{
		"user": u.json(), "nick": nil, "roles": []string{}, "avatar": nil,
		"joined_at": "2024-05-01T12:00:00.000000+00:00", "deaf": false, "mute": false,
		"flags": 0, "pending": false, "permissions": "2248473465835073",
	}
}

var interactionSeq atomic.Int64

// base returns the fields every guild interaction carries, as Discord sends
// them.
func base(typ int, from user) map[string]any {
	n := interactionSeq.Add(1)
	return map[string]any{
		"id":                             fmt.Sprintf("15%017d", n),
		"application_id":                 appID,
		"type":                           typ,
		"token":                          fmt.Sprintf("aW50ZXJhY3Rpb246%d", n),
		"version":                        1,
		"guild_id":                       guildID,
		"channel_id":                     channelID,
		"channel":                        map[string]any{"id": channelID, "type": 0, "guild_id": guildID, "name": "games"},
		"member":                         member(from),
		"locale":                         "en-US",
		"guild_locale":                   "en-US",
		"app_permissions":                "562949953421311",
		"entitlements":                   []any{},
		"authorizing_integration_owners": map[string]any{"0": guildID},
		"context":                        0,
	}
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// slash returns the JSON of `/connectn <sub>` typed by from, with options
// (name → value: int for INTEGER, string for STRING, user for USER), shaped
// like Discord's APPLICATION_COMMAND interaction: USER options resolved in
// data.resolved.users and data.resolved.members.
func slash(from user, sub string, options ...any) []byte {
	var opts []any
	users, members := map[string]any{}, map[string]any{}
	for k := 0; k+1 < len(options); k += 2 {
		name := options[k].(string)
		switch v := options[k+1].(type) {
		case int:
			opts = append(opts, map[string]any{"type": 4, "name": name, "value": v})
		case string:
			opts = append(opts, map[string]any{"type": 3, "name": name, "value": v})
		case user:
			opts = append(opts, map[string]any{"type": 6, "name": name, "value": v.ID})
			users[v.ID] = v.json()
			m := member(v)
			delete(m, "user")
			members[v.ID] = m
		default:
			panic(fmt.Sprintf("option %s: %T", name, v))
		}
	}
	sc := map[string]any{"type": 1, "name": sub}
	if len(opts) > 0 {
		sc["options"] = opts
	}
	data := map[string]any{"id": "1600000000000000001", "name": "connectn", "type": 1, "options": []any{sc}, "guild_id": guildID}
	if len(users) > 0 {
		data["resolved"] = map[string]any{"users": users, "members": members}
	}
	i := base(2, from)
	i["data"] = data
	return mustJSON(i)
}

// slashChallenge returns `/connectn challenge opponent:<opp>` by from with
// extra integer options.
func slashChallenge(from, opp user, ints map[string]int) []byte {
	opts := []any{"opponent", opp}
	for _, name := range []string{"rows", "columns", "connect", "wins"} {
		if v, ok := ints[name]; ok {
			opts = append(opts, name, v)
		}
	}
	return slash(from, "challenge", opts...)
}

// componentClick returns the JSON of a button click by from on msg, shaped
// like Discord's MESSAGE_COMPONENT interaction: data.custom_id and
// data.component_type, and the message the button is on.
func componentClick(from user, msg *discordgo.Message, customID string) []byte {
	i := base(3, from)
	components := msg.Components
	if components == nil {
		components = []discordgo.MessageComponent{}
	}
	i["message"] = map[string]any{
		"id":               msg.ID,
		"channel_id":       channelID,
		"type":             20,
		"content":          msg.Content,
		"embeds":           msg.Embeds,
		"components":       components,
		"author":           user{ID: botUserID, Username: "ConnectN", Bot: true}.json(),
		"timestamp":        "2026-11-22T18:00:00.000000+00:00",
		"edited_timestamp": nil,
		"flags":            int(msg.Flags),
		"tts":              false,
		"mention_everyone": false,
		"mentions":         []any{},
		"mention_roles":    []any{},
		"attachments":      []any{},
		"pinned":           false,
	}
	i["data"] = map[string]any{"custom_id": customID, "component_type": 2}
	return mustJSON(i)
}

// buttons returns every button of components, in order.
func buttons(components []discordgo.MessageComponent) []discordgo.Button {
	var out []discordgo.Button
	for _, row := range components {
		var inner []discordgo.MessageComponent
		switch r := row.(type) {
		case discordgo.ActionsRow:
			inner = r.Components
		case *discordgo.ActionsRow:
			inner = r.Components
		}
		for _, comp := range inner {
			switch b := comp.(type) {
			case discordgo.Button:
				out = append(out, b)
			case *discordgo.Button:
				out = append(out, *b)
			}
		}
	}
	return out
}

// labels returns the labels of every button of components, space-separated.
func labels(components []discordgo.MessageComponent) string {
	var l []string
	for _, b := range buttons(components) {
		l = append(l, b.Label)
	}
	return strings.Join(l, " ")
}

func findButton(t *testing.T, components []discordgo.MessageComponent, label string) discordgo.Button {
	t.Helper()
	for _, b := range buttons(components) {
		if b.Label == label {
			return b
		}
	}
	t.Fatalf("no button %q on the message; buttons: %q", label, labels(components))
	return discordgo.Button{}
}

// text returns everything a user reads in a response: content and embeds.
func text(resp *discordgo.InteractionResponse) string {
	if resp == nil || resp.Data == nil {
		return ""
	}
	return messageText(&discordgo.Message{Content: resp.Data.Content, Embeds: resp.Data.Embeds})
}

// messageText returns everything a user reads in a message.
func messageText(m *discordgo.Message) string {
	var sb strings.Builder
	sb.WriteString(m.Content)
	for _, e := range m.Embeds {
		sb.WriteString("\n" + e.Title + "\n" + e.Description)
		for _, f := range e.Fields {
			sb.WriteString("\n" + f.Name + "\n" + f.Value)
		}
		if e.Footer != nil {
			sb.WriteString("\n" + e.Footer.Text)
		}
	}
	return sb.String()
}

// mustPrivate fails unless resp is an ephemeral message containing want.
func mustPrivate(t *testing.T, resp *discordgo.InteractionResponse, want string) {
	t.Helper()
	if resp.Type != discordgo.InteractionResponseChannelMessageWithSource || resp.Data == nil || resp.Data.Flags&discordgo.MessageFlagsEphemeral == 0 {
		t.Fatalf("got response type %d (%q), want a private message containing %q", resp.Type, text(resp), want)
	}
	if !strings.Contains(resp.Data.Content, want) {
		t.Fatalf("got private message %q, want it to contain %q", resp.Data.Content, want)
	}
	if am := resp.Data.AllowedMentions; am == nil || len(am.Parse) != 0 || len(am.Users) != 0 || len(am.Roles) != 0 {
		t.Fatalf("private message may mention someone: allowed_mentions %+v", am)
	}
}

// mustUpdate fails unless resp updates the message.
func mustUpdate(t *testing.T, resp *discordgo.InteractionResponse) {
	t.Helper()
	if resp.Type != discordgo.InteractionResponseUpdateMessage {
		t.Fatalf("got response type %d (%q), want UPDATE_MESSAGE (7)", resp.Type, text(resp))
	}
}

// mustContain fails unless s contains every one of wants.
func mustContain(t *testing.T, what, s string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(s, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, s)
		}
	}
}

func fixedClock() time.Time { return time.Date(2026, 11, 22, 18, 0, 0, 0, time.UTC) }

// clock is a settable test clock, safe for concurrent use.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock { return &clock{now: fixedClock()} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// mustOpenStore opens a store in a fresh temporary folder, closed when the
// test ends.
func mustOpenStore(t *testing.T, now func() time.Time) (*sqlite.Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "connectn.db")
	store, err := sqlite.Open(context.Background(), path, sessions.WithClock(now))
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() { store.Close() })
	return store, path
}

// decodeResponse reads an interaction response as Discord would receive it.
func decodeResponse(t *testing.T, b []byte) *discordgo.InteractionResponse {
	t.Helper()
	var raw struct {
		Type discordgo.InteractionResponseType `json:"type"`
		Data *struct {
			Content         string                            `json:"content"`
			Flags           discordgo.MessageFlags            `json:"flags"`
			Embeds          []*discordgo.MessageEmbed         `json:"embeds"`
			Components      []json.RawMessage                 `json:"components"`
			AllowedMentions *discordgo.MessageAllowedMentions `json:"allowed_mentions"`
		} `json:"data"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatalf("decode response %s: %v", b, err)
	}
	resp := &discordgo.InteractionResponse{Type: raw.Type}
	if raw.Data != nil {
		resp.Data = &discordgo.InteractionResponseData{
			Content: raw.Data.Content, Flags: raw.Data.Flags, Embeds: raw.Data.Embeds,
			AllowedMentions: raw.Data.AllowedMentions,
		}
		for _, c := range raw.Data.Components {
			comp, err := discordgo.MessageComponentFromJSON(c)
			if err != nil {
				t.Fatalf("decode component %s: %v", c, err)
			}
			resp.Data.Components = append(resp.Data.Components, comp)
		}
	}
	return resp
}

// memDiscord is an in-memory stand-in for what Discord keeps of one
// server's messages: it applies interaction responses as Discord does and
// serves as the handler's Messenger (follow-ups and edits through
// interaction webhooks, which expire after 15 minutes by its clock, and
// channel messages when it has a bot token). Its failNext makes the next
// messenger calls fail.
type memDiscord struct {
	mu       sync.Mutex
	now      func() time.Time
	botToken bool
	msgs     []*discordgo.Message
	byID     map[string]*discordgo.Message
	original map[string]string    // interaction token → message behind @original
	owner    map[string]string    // message ID → interaction token that posted it
	tokenAt  map[string]time.Time // interaction token → when the interaction came
	calls    []string             // messenger calls made, by name
	files    map[string][]byte    // attached files by name
	failures []error              // returned by the next messenger calls, in order
	nextID   int
}

func newMemDiscord(now func() time.Time) *memDiscord {
	return &memDiscord{now: now, byID: map[string]*discordgo.Message{}, original: map[string]string{},
		owner: map[string]string{}, tokenAt: map[string]time.Time{}, files: map[string][]byte{}}
}

// restError builds the error discordgo returns for a Discord API error.
func restError(status, code int, msg string) error {
	return &discordgo.RESTError{
		Response:     &http.Response{StatusCode: status, Status: http.StatusText(status)},
		ResponseBody: mustJSON(map[string]any{"code": code, "message": msg}),
		Message:      &discordgo.APIErrorMessage{Code: code, Message: msg},
	}
}

// failNext makes the next messenger calls fail with errs, in order.
func (d *memDiscord) failNext(errs ...error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.failures = append(d.failures, errs...)
}

func (d *memDiscord) called(name string) error {
	d.calls = append(d.calls, name)
	if len(d.failures) > 0 {
		err := d.failures[0]
		d.failures = d.failures[1:]
		return err
	}
	return nil
}

// callCount returns how many times the messenger method name was called.
func (d *memDiscord) callCount(name string) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	n := 0
	for _, c := range d.calls {
		if c == name {
			n++
		}
	}
	return n
}

func (d *memDiscord) newMessageLocked(data *discordgo.InteractionResponseData, token string) *discordgo.Message {
	d.nextID++
	m := &discordgo.Message{ID: fmt.Sprintf("17%017d", d.nextID), ChannelID: channelID}
	d.setLocked(m, data)
	m.Flags = data.Flags & discordgo.MessageFlagsEphemeral
	d.msgs = append(d.msgs, m)
	d.byID[m.ID] = m
	if token != "" {
		d.owner[m.ID] = token
	}
	return m
}

func (d *memDiscord) setLocked(m *discordgo.Message, data *discordgo.InteractionResponseData) {
	m.Content, m.Embeds, m.Components = data.Content, data.Embeds, data.Components
	for _, f := range data.Files {
		body, _ := io.ReadAll(f.Reader)
		m.Attachments = append(m.Attachments, &discordgo.MessageAttachment{Filename: f.Name, ContentType: f.ContentType, Size: len(body)})
		d.files[f.Name] = body
	}
	if data.AllowedMentions != nil {
		am := *data.AllowedMentions
		m.Mentions = nil
		for _, id := range am.Users {
			m.Mentions = append(m.Mentions, &discordgo.User{ID: id})
		}
	}
}

// apply does what Discord does with the response to interaction i.
func (d *memDiscord) apply(t *testing.T, i *discordgo.Interaction, resp *discordgo.InteractionResponse) {
	t.Helper()
	d.mu.Lock()
	defer d.mu.Unlock()
	d.tokenAt[i.Token] = d.now()
	switch resp.Type {
	case discordgo.InteractionResponseChannelMessageWithSource, discordgo.InteractionResponseDeferredChannelMessageWithSource:
		d.original[i.Token] = d.newMessageLocked(resp.Data, "").ID
	case discordgo.InteractionResponseUpdateMessage, discordgo.InteractionResponseDeferredMessageUpdate:
		m := d.byID[i.Message.ID]
		if m == nil {
			t.Fatalf("response type %d to a click on unknown message %s", resp.Type, i.Message.ID)
		}
		if resp.Type == discordgo.InteractionResponseUpdateMessage {
			d.setLocked(m, resp.Data)
		}
		d.original[i.Token] = m.ID
	}
}

func (d *memDiscord) liveTokenLocked(token string) error {
	at, ok := d.tokenAt[token]
	if !ok {
		return restError(404, discordgo.ErrCodeUnknownWebhook, "Unknown Webhook")
	}
	if d.now().Sub(at) >= sessions.WebhookLifetime {
		return restError(401, discordgo.ErrCodeInvalidWebhookTokenProvided, "Invalid Webhook Token")
	}
	return nil
}

func (d *memDiscord) FollowUp(_ context.Context, app, token string, msg *discordgo.InteractionResponseData) (string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.called("FollowUp"); err != nil {
		return "", err
	}
	if app != appID {
		return "", restError(404, discordgo.ErrCodeUnknownWebhook, "Unknown Webhook")
	}
	if err := d.liveTokenLocked(token); err != nil {
		return "", err
	}
	return d.newMessageLocked(msg, token).ID, nil
}

func (d *memDiscord) EditWebhookMessage(_ context.Context, app, token, id string, msg *discordgo.InteractionResponseData) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.called("EditWebhookMessage"); err != nil {
		return err
	}
	if err := d.liveTokenLocked(token); err != nil {
		return err
	}
	if id == "@original" {
		id = d.original[token]
	} else if d.owner[id] != token {
		return restError(404, discordgo.ErrCodeUnknownMessage, "Unknown Message")
	}
	m := d.byID[id]
	if m == nil {
		return restError(404, discordgo.ErrCodeUnknownMessage, "Unknown Message")
	}
	d.setLocked(m, msg)
	return nil
}

func (d *memDiscord) OriginalMessageID(_ context.Context, app, token string) (string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.called("OriginalMessageID"); err != nil {
		return "", err
	}
	if err := d.liveTokenLocked(token); err != nil {
		return "", err
	}
	id, ok := d.original[token]
	if !ok {
		return "", restError(404, discordgo.ErrCodeUnknownMessage, "Unknown Message")
	}
	return id, nil
}

func (d *memDiscord) HasBotToken() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.botToken
}

func (d *memDiscord) SendChannelMessage(_ context.Context, channel string, msg *discordgo.InteractionResponseData) (string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.called("SendChannelMessage"); err != nil {
		return "", err
	}
	if !d.botToken {
		return "", restError(401, 0, "401: Unauthorized")
	}
	return d.newMessageLocked(msg, "").ID, nil
}

func (d *memDiscord) EditChannelMessage(_ context.Context, channel, id string, msg *discordgo.InteractionResponseData) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.called("EditChannelMessage"); err != nil {
		return err
	}
	if !d.botToken {
		return restError(401, 0, "401: Unauthorized")
	}
	m := d.byID[id]
	if m == nil {
		return restError(404, discordgo.ErrCodeUnknownMessage, "Unknown Message")
	}
	d.setLocked(m, msg)
	return nil
}

// public returns the channel's messages everyone sees, oldest first.
func (d *memDiscord) public() []*discordgo.Message {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []*discordgo.Message
	for _, m := range d.msgs {
		if m.Flags&discordgo.MessageFlagsEphemeral == 0 {
			cp := *m
			out = append(out, &cp)
		}
	}
	return out
}

// message returns the current state of message id.
func (d *memDiscord) message(id string) *discordgo.Message {
	d.mu.Lock()
	defer d.mu.Unlock()
	cp := *d.byID[id]
	return &cp
}

// env is one server with the bot in it: a clock, a store, a handler and the
// in-memory Discord it answers to.
type env struct {
	t     *testing.T
	clock *clock
	path  string
	store *sqlite.Store
	d     *memDiscord
	h     *bot.Handler
	opts  []bot.Option
	// last is the latest response to an interaction.
	last *discordgo.InteractionResponse
}

// newEnv starts a bot on a fresh database, with the given handler options
// after the harness's own (clock, messenger, seed).
func newEnv(t *testing.T, opts ...bot.Option) *env {
	t.Helper()
	c := newClock()
	store, path := mustOpenStore(t, c.Now)
	e := &env{t: t, clock: c, path: path, store: store, d: newMemDiscord(c.Now), opts: opts}
	e.h = e.newHandler()
	return e
}

func (e *env) newHandler() *bot.Handler {
	opts := append([]bot.Option{bot.WithClock(e.clock.Now), bot.WithMessenger(e.d), bot.WithSeed(1)}, e.opts...)
	h := bot.NewHandler(e.store, slog.New(slog.DiscardHandler), opts...)
	e.t.Cleanup(func() { h.Close(context.Background()) })
	return h
}

// restart stops the bot and starts a new one on the same database file, as
// a host restarting the process would.
func (e *env) restart() {
	e.t.Helper()
	if err := e.h.Close(context.Background()); err != nil {
		e.t.Fatal(err)
	}
	if err := e.store.Close(); err != nil {
		e.t.Fatal(err)
	}
	store, err := sqlite.Open(context.Background(), e.path, sessions.WithClock(e.clock.Now))
	if err != nil {
		e.t.Fatalf("reopen store: %v", err)
	}
	e.t.Cleanup(func() { store.Close() })
	e.store = store
	e.h = e.newHandler()
}

// send delivers one interaction as Discord would: the handler answers, the
// response goes through JSON, Discord applies it, and the handler hears it
// was delivered. It returns when the work after the response is done.
func (e *env) send(body []byte) *discordgo.InteractionResponse {
	e.t.Helper()
	var i discordgo.Interaction
	if err := json.Unmarshal(body, &i); err != nil {
		e.t.Fatalf("decode interaction: %v", err)
	}
	resp, err := e.h.Handle(context.Background(), &i)
	if err != nil {
		e.t.Fatalf("Handle: %v", err)
	}
	b, err := json.Marshal(resp)
	if err != nil {
		e.t.Fatalf("encode response: %v", err)
	}
	resp = decodeResponse(e.t, b)
	e.d.apply(e.t, &i, resp)
	e.h.Delivered(&i)
	e.idle()
	e.last = resp
	return resp
}

// idle waits for the handler's background work.
func (e *env) idle() {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := e.h.WaitIdle(ctx); err != nil {
		e.t.Fatal(err)
	}
}

// runDue runs the deadline scheduler once at the current clock.
func (e *env) runDue() int {
	e.t.Helper()
	n, err := e.h.RunDue(context.Background())
	if err != nil {
		e.t.Fatalf("RunDue: %v", err)
	}
	e.idle()
	return n
}

// public returns the channel's messages everyone sees, oldest first.
func (e *env) public() []*discordgo.Message { return e.d.public() }

// board returns the newest public message.
func (e *env) board() *discordgo.Message { return newest(e.t, e) }

// click clicks the button labelled label on msg as from.
func (e *env) click(from user, msg *discordgo.Message, label string) *discordgo.InteractionResponse {
	e.t.Helper()
	return click(e.t, e, from, msg, label)
}

// clickID clicks a button by its custom_id, which may be stale or crafted.
func (e *env) clickID(from user, msg *discordgo.Message, customID string) *discordgo.InteractionResponse {
	e.t.Helper()
	return e.send(componentClick(from, msg, customID))
}

// play drops discs in the columns on the live board, first and second
// taking turns, and returns the last response.
func (e *env) play(first, second user, columns ...string) *discordgo.InteractionResponse {
	e.t.Helper()
	return play(e.t, e, first, second, columns...)
}

// world is a Discord server with the bot in it, reached one way or another:
// in memory, over the fake gateway, or over signed HTTP.
type world interface {
	// send delivers an interaction and returns the response once the bot's
	// work after it is done.
	send(body []byte) *discordgo.InteractionResponse
	// public returns the channel's messages everyone sees, oldest first,
	// as they read now.
	public() []*discordgo.Message
}

// newest returns the newest public message of w.
func newest(t *testing.T, w world) *discordgo.Message {
	t.Helper()
	msgs := w.public()
	if len(msgs) == 0 {
		t.Fatal("no message in the channel")
	}
	return msgs[len(msgs)-1]
}

// click clicks the button labelled label on msg as from.
func click(t *testing.T, w world, from user, msg *discordgo.Message, label string) *discordgo.InteractionResponse {
	t.Helper()
	b := findButton(t, msg.Components, label)
	if b.Disabled {
		t.Fatalf("button %q is disabled", label)
	}
	return w.send(componentClick(from, msg, b.CustomID))
}

// play drops discs in the columns on the newest message, first and second
// taking turns, checking each updates the message; it returns the last
// response.
func play(t *testing.T, w world, first, second user, columns ...string) *discordgo.InteractionResponse {
	t.Helper()
	var resp *discordgo.InteractionResponse
	for k, c := range columns {
		who := first
		if k%2 == 1 {
			who = second
		}
		resp = click(t, w, who, newest(t, w), c)
		mustUpdate(t, resp)
	}
	return resp
}

// session returns the channel's newest session.
func (e *env) session() *sessions.Session {
	e.t.Helper()
	s, err := e.store.Get(context.Background(), channelID)
	if err != nil {
		e.t.Fatalf("Get: %v", err)
	}
	return s
}

// startMatch challenges bob as alice with ints and has bob accept.
func (e *env) startMatch(ints map[string]int) {
	e.t.Helper()
	e.send(slashChallenge(alice, bob, ints))
	mustUpdate(e.t, e.click(bob, e.board(), "Accept"))
}
