package discordtest

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"
	fastjson "github.com/segmentio/encoding/json"
)

// MessageKind tells how the bot wrote a message.
type MessageKind int

// Kinds of message writes.
const (
	// ChannelMessageCreate is POST /channels/{channel}/messages.
	ChannelMessageCreate MessageKind = iota + 1
	// ChannelMessageEdit is PATCH /channels/{channel}/messages/{message}.
	ChannelMessageEdit
	// InteractionResponseMessage is a message created (response types 4
	// and 5) or updated (type 7) by POST /interactions/{id}/{token}/callback.
	InteractionResponseMessage
	// FollowupMessageCreate is POST /webhooks/{app}/{token}.
	FollowupMessageCreate
	// WebhookMessageEdit is PATCH /webhooks/{app}/{token}/messages/{message},
	// where message may be "@original".
	WebhookMessageEdit
	// WebhookMessageDelete is DELETE
	// /webhooks/{app}/{token}/messages/{message}, where message may be
	// "@original": its Message is the message as it was when deleted, and
	// its Payload is empty.
	WebhookMessageDelete
)

// String returns the name of the kind.
func (k MessageKind) String() string {
	switch k {
	case ChannelMessageCreate:
		return "ChannelMessageCreate"
	case ChannelMessageEdit:
		return "ChannelMessageEdit"
	case InteractionResponseMessage:
		return "InteractionResponseMessage"
	case FollowupMessageCreate:
		return "FollowupMessageCreate"
	case WebhookMessageEdit:
		return "WebhookMessageEdit"
	case WebhookMessageDelete:
		return "WebhookMessageDelete"
	}
	return fmt.Sprintf("MessageKind(%d)", int(k))
}

// Message is one accepted message write by the bot, or the deletion of a
// message (WebhookMessageDelete).
type Message struct {
	Kind MessageKind
	// InteractionID is the interaction whose token was used, for the
	// interaction and webhook kinds.
	InteractionID string
	// Message is the whole message after the write, as the fake stores it.
	Message *discordgo.Message
	// Payload is the JSON the bot sent (payload_json of a multipart body);
	// for InteractionResponseMessage it is the whole interaction response
	// (also when it came as the body answered to Deliver).
	Payload json.RawMessage
}

// messageRecord is the stored form of a Message.
type messageRecord struct {
	kind          MessageKind
	interactionID string
	message       []byte
	payload       []byte
}

func (r messageRecord) decode() Message {
	return Message{
		Kind:          r.kind,
		InteractionID: r.interactionID,
		Message:       decodeMessage(r.message),
		Payload:       bytes.Clone(r.payload),
	}
}

// storedMessage is the current state of a message.
type storedMessage struct {
	id        string
	raw       []byte // normalized discordgo.Message JSON
	channelID string
	authorID  string
	ephemeral bool
	token     string // interaction token that created it through its webhook
}

func decodeMessage(raw []byte) *discordgo.Message {
	var m discordgo.Message
	if err := json.Unmarshal(raw, &m); err != nil {
		panic("discordtest: decode stored message: " + err.Error())
	}
	return &m
}

// recordLocked appends a message record, tells WithOnMessage's function
// and wakes waiters. msg is the message raw encodes. s.mu must be held.
func (s *Server) recordLocked(kind MessageKind, interactionID string, msg *discordgo.Message, raw, payload []byte) {
	if !s.cfg.noLogs {
		s.records = append(s.records, messageRecord{kind, interactionID, raw, bytes.Clone(payload)})
	}
	if s.cfg.onMessage != nil {
		s.cfg.onMessage(Message{Kind: kind, InteractionID: interactionID, Message: msg, Payload: bytes.Clone(payload)})
	}
	s.notifyLocked()
}

// Message returns the current state of the message id, ephemeral or not,
// as the fake knows it (written by the bot, or carried by an interaction),
// with its Components filled; nil if there is none (never written, or
// deleted).
func (s *Server) Message(id string) *discordgo.Message {
	s.mu.Lock()
	m := s.messages[id]
	s.mu.Unlock()
	if m == nil {
		return nil
	}
	return decodeMessage(m.raw)
}

// Attachment returns the bytes of the file uploaded as the attachment id
// (the ID of a discordgo.MessageAttachment of a message), and whether
// there is one.
func (s *Server) Attachment(id string) ([]byte, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.files[id]
	return bytes.Clone(b), ok
}

// Messages returns every accepted message write so far, oldest first.
func (s *Server) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Message, len(s.records))
	for i, r := range s.records {
		out[i] = r.decode()
	}
	return out
}

// ChannelMessages returns the current state of every non-ephemeral
// message in the channel channelID that the fake knows (written by the bot
// and not deleted, or carried by a dispatched or delivered interaction),
// oldest first by snowflake id (ids that are not numbers come last, by
// text), with their Components filled. It returns nil if there is none.
func (s *Server) ChannelMessages(channelID string) []*discordgo.Message {
	s.mu.Lock()
	type entry struct {
		id  string
		raw []byte
	}
	var found []entry
	for id, m := range s.messages {
		if m.channelID == channelID && !m.ephemeral {
			found = append(found, entry{id, m.raw})
		}
	}
	s.mu.Unlock()
	slices.SortFunc(found, func(a, b entry) int { return compareSnowflakes(a.id, b.id) })
	var out []*discordgo.Message
	for _, e := range found {
		out = append(out, decodeMessage(e.raw))
	}
	return out
}

// compareSnowflakes orders numeric ids by value, before other ids by text.
func compareSnowflakes(a, b string) int {
	x, errA := strconv.ParseUint(a, 10, 64)
	y, errB := strconv.ParseUint(b, 10, 64)
	switch {
	case errA == nil && errB == nil:
		return cmp.Compare(x, y)
	case errA == nil:
		return -1
	case errB == nil:
		return 1
	}
	return strings.Compare(a, b)
}

// WaitMessage waits for a message write for which match returns true,
// considering writes already made too, and returns the first one. match
// must not call Server methods. It returns an error wrapping the context's
// error, or ErrClosed, if none happens.
func (s *Server) WaitMessage(ctx context.Context, match func(Message) bool) (Message, error) {
	var found Message
	next := 0
	err := s.wait(ctx, "message", func() bool {
		for ; next < len(s.records); next++ {
			if m := s.records[next].decode(); match(m) {
				found = m
				return true
			}
		}
		return false
	})
	return found, err
}

// encodeMessage returns m's JSON as the fake stores and serves it, with
// its components (which discordgo's Message does not marshal).
func encodeMessage(m *discordgo.Message) []byte { return mustJSON(wireOf(m)) }

// readPayload returns the JSON payload of a body with the given
// Content-Type, which is either the body or the payload_json part of a
// multipart body, and attachments for the files of a multipart body.
func (s *Server) readPayload(contentType string, body io.Reader) ([]byte, []*discordgo.MessageAttachment, error) {
	mt, params, _ := mime.ParseMediaType(contentType)
	if mt != "multipart/form-data" {
		b, err := io.ReadAll(body)
		return b, nil, err
	}
	var payload []byte
	var files []*discordgo.MessageAttachment
	mr := multipart.NewReader(body, params["boundary"])
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, err
		}
		b, err := io.ReadAll(part)
		if err != nil {
			return nil, nil, err
		}
		switch {
		case part.FormName() == "payload_json":
			payload = b
		case part.FileName() != "":
			id := s.newID()
			s.mu.Lock()
			s.files[id] = b
			s.mu.Unlock()
			files = append(files, &discordgo.MessageAttachment{
				ID:          id,
				Filename:    part.FileName(),
				ContentType: part.Header.Get("Content-Type"),
				Size:        len(b),
				URL:         "https://cdn.discordapp.com/attachments/0/" + id + "/" + part.FileName(),
			})
		}
	}
	return payload, files, nil
}

// patch is a request body that writes a message, or the data of an
// interaction response, as far as the fake reads it: content, tts,
// embeds, components, flags and attachments, each when its key is there
// (like Discord, "components": null keeps the components).
type patch struct {
	// Nonce and EnforceNonce are read by a channel post only
	// (channelMessageCreate): a string or an integer, and whether Discord
	// folds a post whose nonce it saw into the message that nonce made.
	Nonce        json.RawMessage         `json:"nonce"`
	EnforceNonce bool                    `json:"enforce_nonce"`
	Content      *string                 `json:"content"`
	TTS          *bool                   `json:"tts"`
	Embeds       json.RawMessage         `json:"embeds"`
	Components   json.RawMessage         `json:"components"`
	Flags        *discordgo.MessageFlags `json:"flags"`
	Attachments  json.RawMessage         `json:"attachments"`
}

// apply writes p onto m and adds files to its attachments. It returns an
// error when a field of p is not what the message holds there.
func (p *patch) apply(m *discordgo.Message, files []*discordgo.MessageAttachment) error {
	if p.Content != nil {
		m.Content = *p.Content
	}
	if p.TTS != nil {
		m.TTS = *p.TTS
	}
	if p.Flags != nil {
		m.Flags = *p.Flags
	}
	if p.Embeds != nil {
		m.Embeds = nil
		if err := fastjson.Unmarshal(p.Embeds, &m.Embeds); err != nil {
			return err
		}
	}
	if p.Attachments != nil {
		kept, err := keptAttachments(p.Attachments, len(files))
		if err != nil {
			return err
		}
		m.Attachments = kept
	}
	if p.Components != nil && string(p.Components) != "null" {
		comps, err := decodeComponents(p.Components)
		if err != nil {
			return err
		}
		m.Components = comps
	}
	m.Attachments = append(m.Attachments, files...)
	return nil
}

// newMessage returns a new message by the bot; webhook marks it as
// written through the application's webhook (an interaction's).
func (s *Server) newMessage(channelID, guildID string, msgType discordgo.MessageType, webhook bool) *discordgo.Message {
	m := &discordgo.Message{ID: s.newMessageID(), ChannelID: channelID, GuildID: guildID, Author: s.BotUser(),
		Timestamp: s.now().UTC(), Type: msgType}
	if webhook {
		m.WebhookID = s.cfg.appID
	}
	return m
}

// compose returns a new message of p and files, or a 50035 error when p
// does not decode.
func (s *Server) compose(p *patch, files []*discordgo.MessageAttachment, channelID, guildID string, msgType discordgo.MessageType, webhook bool) (*discordgo.Message, *APIError) {
	m := s.newMessage(channelID, guildID, msgType, webhook)
	if err := p.apply(m, files); err != nil {
		return nil, formError([]fieldError{{"", "MODEL_TYPE_CONVERT", err.Error()}})
	}
	return m, nil
}

// readMessageBody reads the body of a request that writes a message: its
// JSON payload, the files of a multipart body, and the payload decoded. A
// body that cannot be read or is not a JSON object gives errInvalidJSON.
func (s *Server) readMessageBody(r *http.Request) ([]byte, []*discordgo.MessageAttachment, *patch, *APIError) {
	payload, files, err := s.readPayload(r.Header.Get("Content-Type"), r.Body)
	if err != nil {
		return nil, nil, nil, errInvalidJSON
	}
	p, apiErr := decodePatch(payload)
	return payload, files, p, apiErr
}

// writeRaw answers 200 with raw, a JSON document.
func writeRaw(w http.ResponseWriter, raw []byte) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(raw)
}

// decodePatch decodes a JSON object body.
func decodePatch(payload []byte) (*patch, *APIError) {
	var p patch
	if t := bytes.TrimSpace(payload); len(t) == 0 || t[0] != '{' || fastjson.Unmarshal(t, &p) != nil {
		return nil, errInvalidJSON
	}
	return &p, nil
}

// storeLocked saves msg and returns its JSON. s.mu must be held.
func (s *Server) storeLocked(msg *discordgo.Message, token string) []byte {
	raw := encodeMessage(msg)
	authorID := ""
	if msg.Author != nil {
		authorID = msg.Author.ID
	}
	s.messages[msg.ID] = &storedMessage{
		id:        msg.ID,
		raw:       raw,
		channelID: msg.ChannelID,
		authorID:  authorID,
		ephemeral: msg.Flags&discordgo.MessageFlagsEphemeral != 0,
		token:     token,
	}
	return raw
}

// editMessage applies patch to the stored message, marks it edited at now
// and validates it.
func editMessage(old *storedMessage, p *patch, files []*discordgo.MessageAttachment, prefix string, now time.Time) (*discordgo.Message, *APIError) {
	msg := decodeMessage(old.raw)
	flags := msg.Flags
	if err := p.apply(msg, files); err != nil {
		return nil, formError([]fieldError{{prefix, "MODEL_TYPE_CONVERT", err.Error()}})
	}
	// Only SUPPRESS_EMBEDS may change; an edit ends the loading state.
	keep := discordgo.MessageFlagsEphemeral | discordgo.MessageFlagsIsComponentsV2 | discordgo.MessageFlagsCrossPosted | discordgo.MessageFlagsHasThread
	msg.Flags = flags&keep | msg.Flags&discordgo.MessageFlagsSuppressEmbeds
	now = now.UTC()
	msg.EditedTimestamp = &now
	if e := validateMessage(prefix, msg); e != nil {
		return nil, e
	}
	return msg, nil
}

// channelMessageList serves GET /channels/{channel}/messages: the
// channel's non-ephemeral messages, newest first, at most limit (1 to 100,
// 50 by default), as Discord's Get Channel Messages without before, after
// or around.
func (s *Server) channelMessageList(w http.ResponseWriter, r *http.Request) {
	limit := 50
	if v := r.URL.Query().Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 100 {
			writeAPIError(w, formError([]fieldError{{"limit", "NUMBER_TYPE_MAX", "int value should be between 1 and 100."}}))
			return
		}
		limit = n
	}
	channel := r.PathValue("channel")
	s.mu.Lock()
	var found []*storedMessage
	for _, m := range s.messages {
		if m.channelID == channel && !m.ephemeral {
			found = append(found, m)
		}
	}
	s.mu.Unlock()
	slices.SortFunc(found, func(a, b *storedMessage) int { return compareSnowflakes(b.id, a.id) })
	if len(found) > limit {
		found = found[:limit]
	}
	raws := make([][]byte, len(found))
	for i, m := range found {
		raws[i] = m.raw
	}
	writeRaw(w, append(append([]byte("["), bytes.Join(raws, []byte(","))...), ']'))
}

func (s *Server) channelMessageCreate(w http.ResponseWriter, r *http.Request) {
	payload, files, patch, apiErr := s.readMessageBody(r)
	if apiErr != nil {
		writeAPIError(w, apiErr)
		return
	}
	msg, apiErr := s.compose(patch, files, r.PathValue("channel"), "", discordgo.MessageTypeDefault, false)
	if apiErr != nil {
		writeAPIError(w, apiErr)
		return
	}
	msg.Flags &= discordgo.MessageFlagsSuppressEmbeds | discordgo.MessageFlagsSuppressNotifications | discordgo.MessageFlagsIsComponentsV2
	if apiErr := validateMessage("", msg); apiErr != nil {
		writeAPIError(w, apiErr)
		return
	}
	nonce, apiErr := nonceOf(patch.Nonce)
	if apiErr != nil {
		writeAPIError(w, apiErr)
		return
	}
	s.mu.Lock()
	key := s.cfg.user.ID + "\x00" + nonce
	if n, ok := s.nonces[key]; ok && patch.EnforceNonce && nonce != "" && s.now().Sub(n.at) < NonceWindow {
		if m := s.messages[n.messageID]; m != nil {
			// Discord answers with the message the nonce made, and makes
			// none.
			raw := m.raw
			s.mu.Unlock()
			writeRaw(w, raw)
			return
		}
	}
	if apiErr := s.postInThreadLocked(msg.ChannelID, msg.ID); apiErr != nil {
		s.mu.Unlock()
		writeAPIError(w, apiErr)
		return
	}
	raw := s.storeLocked(msg, "")
	if patch.EnforceNonce && nonce != "" {
		s.nonces[key] = nonced{messageID: msg.ID, at: s.now()}
	}
	s.recordLocked(ChannelMessageCreate, "", msg, raw, payload)
	s.mu.Unlock()
	writeRaw(w, raw)
}

// NonceWindow is how long the fake remembers a channel post's nonce for
// enforce_nonce. Discord documents "the past few minutes"
// (https://discord.com/developers/docs/resources/message#create-message);
// the fake takes 5.
const NonceWindow = 5 * time.Minute

// nonced is a channel post made with enforce_nonce: the message and when.
type nonced struct {
	messageID string
	at        time.Time
}

// nonceOf reads a post's nonce, a string or an integer of at most 25
// characters as Discord takes it; absent or null is "".
func nonceOf(raw json.RawMessage) (string, *APIError) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || string(t) == "null" {
		return "", nil
	}
	var v string
	if t[0] == '"' {
		if err := json.Unmarshal(t, &v); err != nil {
			return "", errInvalidJSON
		}
	} else {
		var n json.Number
		if err := json.Unmarshal(t, &n); err != nil {
			return "", formError([]fieldError{{"nonce", "MODEL_TYPE_CONVERT", "Could not interpret the nonce."}})
		}
		v = n.String()
	}
	if len(v) > 25 {
		return "", formError([]fieldError{{"nonce", "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length."}})
	}
	return v, nil
}

// channelMessageLocked finds a non-ephemeral message in a channel. s.mu
// must be held.
func (s *Server) channelMessageLocked(r *http.Request) *storedMessage {
	m := s.messages[r.PathValue("msg")]
	if m == nil || m.ephemeral || m.channelID != r.PathValue("channel") {
		return nil
	}
	return m
}

func (s *Server) channelMessageEdit(w http.ResponseWriter, r *http.Request) {
	payload, files, patch, apiErr := s.readMessageBody(r)
	if apiErr != nil {
		writeAPIError(w, apiErr)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.channelMessageLocked(r)
	switch {
	case old == nil:
		writeAPIError(w, errUnknownMessage)
		return
	case old.authorID != s.cfg.user.ID:
		writeAPIError(w, errEditOthers)
		return
	}
	if apiErr := s.editInThreadLocked(old.channelID); apiErr != nil {
		writeAPIError(w, apiErr)
		return
	}
	msg, apiErr := editMessage(old, patch, files, "", s.now())
	if apiErr != nil {
		writeAPIError(w, apiErr)
		return
	}
	raw := s.storeLocked(msg, old.token)
	s.recordLocked(ChannelMessageEdit, "", msg, raw, payload)
	writeRaw(w, raw)
}

// keptAttachments reads the "attachments" list of a message write with
// n new files: as Discord does, an entry whose id is the index of one of
// the new files (0 to n-1, a number or a string) is that file's metadata
// (its description, which the fake keeps only in the payload), and every
// other entry is an attachment the message keeps.
func keptAttachments(raw json.RawMessage, n int) ([]*discordgo.MessageAttachment, error) {
	var entries []json.RawMessage
	if err := fastjson.Unmarshal(raw, &entries); err != nil {
		return nil, err
	}
	kept := []*discordgo.MessageAttachment{}
	for _, e := range entries {
		var id struct {
			ID json.RawMessage `json:"id"`
		}
		if err := fastjson.Unmarshal(e, &id); err != nil {
			return nil, err
		}
		if k, err := strconv.Atoi(strings.Trim(string(id.ID), `"`)); err == nil && k >= 0 && k < n && len(id.ID) < 8 {
			continue // a new file's metadata
		}
		var a discordgo.MessageAttachment
		if err := fastjson.Unmarshal(e, &a); err != nil {
			return nil, err
		}
		kept = append(kept, &a)
	}
	return kept, nil
}
