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
	"unicode/utf8"

	"github.com/bwmarrin/discordgo"
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
	// ChannelMessageDelete is DELETE /channels/{channel}/messages/{message}.
	ChannelMessageDelete
	// WebhookMessageDelete is DELETE
	// /webhooks/{app}/{token}/messages/{message}, where message may be
	// "@original".
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
	case ChannelMessageDelete:
		return "ChannelMessageDelete"
	case WebhookMessageDelete:
		return "WebhookMessageDelete"
	}
	return fmt.Sprintf("MessageKind(%d)", int(k))
}

// Message is one accepted message write (or deletion) by the bot.
type Message struct {
	Kind MessageKind
	// InteractionID is the interaction whose token was used, for the
	// interaction and webhook kinds.
	InteractionID string
	// Message is the whole message after the write, as the fake stores it;
	// for the delete kinds it is the message as it was when deleted.
	Message *discordgo.Message
	// Payload is the JSON the bot sent (payload_json of a multipart body);
	// for InteractionResponseMessage it is the whole interaction response
	// (also when it came as the body answered to Deliver); nil for the
	// delete kinds.
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

// interactionState tracks a dispatched interaction.
type interactionState struct {
	id, token, channelID, guildID string
	itype                         discordgo.InteractionType
	created                       time.Time // dispatched or delivered, on the Server's clock
	messageID                     string    // message the component is on
	response                      []byte    // accepted callback
	rejected                      []byte    // first rejected callback
	rejectErr                     *APIError
	originalID                    string // message behind @original
}

func decodeMessage(raw []byte) *discordgo.Message {
	var m discordgo.Message
	if err := json.Unmarshal(raw, &m); err != nil {
		panic("discordtest: decode stored message: " + err.Error())
	}
	return &m
}

// recordLocked appends a message record and wakes waiters. s.mu must be held.
func (s *Server) recordLocked(kind MessageKind, interactionID string, msg, payload []byte) {
	s.records = append(s.records, messageRecord{kind, interactionID, msg, bytes.Clone(payload)})
	s.notifyLocked()
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

// DispatchInteraction sends INTERACTION_CREATE for i to every identified
// gateway connection and remembers i so that the bot can answer it. Empty
// It goes to the connection of the shard that serves i.GuildID, as
// WithShards describes (every connection when none is sharded).
// i.ID, i.Token and i.AppID are filled in place (with a new snowflake, a
// random token and the application id), and i.Version defaults to 1. If
// i.Message is set (the message a component is on) and not yet known, it
// is stored so that the bot may update it; its empty ID and ChannelID are
// filled in place and its Author defaults to the bot user. The webhook
// token of i expires WebhookTokenLifetime after this call, on the Server's
// clock. It returns an error if i is nil or has no Type, ErrNotConnected
// if no gateway connection is identified, an error if i (with its id or
// token) was already dispatched or delivered or cannot be marshaled, or
// the error of Dispatch.
func (s *Server) DispatchInteraction(i *discordgo.Interaction) error {
	if i == nil || i.Type == 0 {
		return fmt.Errorf("discordtest: DispatchInteraction needs an interaction with a Type")
	}
	if !s.connected() {
		return ErrNotConnected
	}
	raw, err := s.registerInteraction(i)
	if err != nil {
		return err
	}
	return s.dispatchGuild("INTERACTION_CREATE", raw, i.GuildID)
}

// registerInteraction fills i and i.Message in place and remembers them,
// as DispatchInteraction documents, and returns i's JSON as Discord sends
// it, components included. i must be non-nil.
func (s *Server) registerInteraction(i *discordgo.Interaction) (json.RawMessage, error) {
	if i.ID == "" {
		i.ID = s.newID()
	}
	if i.Token == "" {
		i.Token = "discordtest-" + randomHex(24)
	}
	if i.AppID == "" {
		i.AppID = s.cfg.appID
	}
	if i.Version == 0 {
		i.Version = 1
	}
	st := &interactionState{id: i.ID, token: i.Token, channelID: i.ChannelID, guildID: i.GuildID, itype: i.Type}
	var stored *storedMessage
	if m := i.Message; m != nil {
		if m.ID == "" {
			m.ID = s.newID()
		}
		if m.ChannelID == "" {
			m.ChannelID = i.ChannelID
		}
		st.messageID = m.ID
		cp := *m
		if cp.Author == nil {
			cp.Author = s.BotUser()
		}
		raw, err := encodeMessage(&cp)
		if err != nil {
			return nil, fmt.Errorf("discordtest: marshal interaction message: %w", err)
		}
		var nm discordgo.Message
		if err := json.Unmarshal(raw, &nm); err != nil {
			return nil, fmt.Errorf("discordtest: interaction message does not round-trip through JSON: %w", err)
		}
		stored = &storedMessage{id: nm.ID, raw: mustEncodeMessage(&nm), channelID: nm.ChannelID, authorID: nm.Author.ID,
			ephemeral: nm.Flags&discordgo.MessageFlagsEphemeral != 0}
	}

	raw, err := encodeInteraction(i)
	if err != nil {
		return nil, err
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	if s.interactions[i.ID] != nil || s.byToken[i.Token] != nil {
		return nil, fmt.Errorf("discordtest: interaction %s (or its token) was already dispatched", i.ID)
	}
	st.created = s.now()
	s.interactions[i.ID] = st
	s.byToken[i.Token] = st
	if stored != nil && s.messages[st.messageID] == nil {
		s.messages[st.messageID] = stored
	}
	return raw, nil
}

// encodeMessage marshals m including its components, which discordgo's
// Message does not marshal (its Components field is tagged "-").
func encodeMessage(m *discordgo.Message) (json.RawMessage, error) {
	raw, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	obj := map[string]json.RawMessage{}
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, err
	}
	comps := m.Components
	if comps == nil {
		comps = []discordgo.MessageComponent{}
	}
	if obj["components"], err = json.Marshal(comps); err != nil {
		return nil, err
	}
	return json.Marshal(obj)
}

func mustEncodeMessage(m *discordgo.Message) []byte {
	raw, err := encodeMessage(m)
	if err != nil {
		panic("discordtest: encode message: " + err.Error())
	}
	return raw
}

// encodeInteraction marshals i including the components of i.Message and
// of modal submit data, which discordgo does not marshal.
func encodeInteraction(i *discordgo.Interaction) (json.RawMessage, error) {
	raw, err := json.Marshal(i)
	if err != nil {
		return nil, fmt.Errorf("discordtest: marshal interaction: %w", err)
	}
	obj := map[string]json.RawMessage{}
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, fmt.Errorf("discordtest: marshal interaction: %w", err)
	}
	if i.Message != nil {
		if obj["message"], err = encodeMessage(i.Message); err != nil {
			return nil, fmt.Errorf("discordtest: marshal interaction message: %w", err)
		}
	}
	var modal *discordgo.ModalSubmitInteractionData
	switch d := i.Data.(type) {
	case discordgo.ModalSubmitInteractionData:
		modal = &d
	case *discordgo.ModalSubmitInteractionData:
		modal = d
	}
	if modal != nil {
		data := map[string]json.RawMessage{}
		if err := json.Unmarshal(obj["data"], &data); err != nil {
			return nil, fmt.Errorf("discordtest: marshal modal data: %w", err)
		}
		comps := modal.Components
		if comps == nil {
			comps = []discordgo.MessageComponent{}
		}
		if data["components"], err = json.Marshal(comps); err != nil {
			return nil, fmt.Errorf("discordtest: marshal modal components: %w", err)
		}
		obj["data"] = mustJSON(data)
	}
	return mustJSON(obj), nil
}

// WaitResponse waits for the bot's POST /interactions/{id}/{token}/callback
// for interactionID (or the response the bot answered to Deliver) and
// returns the interaction response. If the fake rejected the response (for
// example an empty message, or an interaction it does not know), it
// returns the first rejected response as sent together with an error
// wrapping an *APIError that carries Discord's error code and message. It returns an error wrapping the
// context's error, or ErrClosed, if no callback arrives.
func (s *Server) WaitResponse(ctx context.Context, interactionID string) (*discordgo.InteractionResponse, error) {
	var raw []byte
	var rejectErr *APIError
	err := s.wait(ctx, "response to interaction "+interactionID, func() bool {
		st := s.interactions[interactionID]
		switch {
		case st == nil:
			return false
		case st.response != nil:
			raw = st.response
			return true
		case st.rejected != nil:
			raw, rejectErr = st.rejected, st.rejectErr
			return true
		}
		return false
	})
	if err != nil {
		return nil, err
	}
	resp, err := decodeInteractionResponse(raw)
	if err != nil {
		return nil, err
	}
	if rejectErr != nil {
		return resp, fmt.Errorf("discordtest: response to interaction %s rejected: %w", interactionID, rejectErr.clone())
	}
	return resp, nil
}

// decodeInteractionResponse decodes an interaction response, including its
// components, which discordgo cannot unmarshal by itself.
func decodeInteractionResponse(raw []byte) (*discordgo.InteractionResponse, error) {
	type data discordgo.InteractionResponseData
	var v struct {
		Type discordgo.InteractionResponseType `json:"type"`
		Data *struct {
			data
			Components []json.RawMessage `json:"components"`
		} `json:"data"`
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, fmt.Errorf("discordtest: decode interaction response: %w", err)
	}
	resp := &discordgo.InteractionResponse{Type: v.Type}
	if v.Data != nil {
		d := discordgo.InteractionResponseData(v.Data.data)
		d.Components = nil
		for _, c := range v.Data.Components {
			mc, err := discordgo.MessageComponentFromJSON(c)
			if err != nil {
				return nil, fmt.Errorf("discordtest: decode interaction response: %w", err)
			}
			d.Components = append(d.Components, mc)
		}
		resp.Data = &d
	}
	return resp, nil
}

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

// messageKeys are the keys of a request body that become message fields.
var messageKeys = []string{"content", "tts", "embeds", "components", "flags", "attachments", "poll", "message_reference", "sticker_items"}

// composeMessage overlays the message keys of patch onto base (JSON of a
// message), adds files as attachments, and returns the decoded result. It
// returns an error if the result is not a valid message.
func composeMessage(base []byte, patch map[string]json.RawMessage, files []*discordgo.MessageAttachment) (*discordgo.Message, error) {
	m := map[string]json.RawMessage{}
	if err := json.Unmarshal(base, &m); err != nil {
		return nil, err
	}
	for _, k := range messageKeys {
		v, ok := patch[k]
		if !ok || (k == "components" && string(v) == "null") {
			continue // like Discord, "components": null keeps the components
		}
		m[k] = v
	}
	raw, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	var msg discordgo.Message
	if err := json.Unmarshal(raw, &msg); err != nil {
		return nil, err
	}
	msg.Attachments = append(msg.Attachments, files...)
	return &msg, nil
}

// newMessageBase returns the JSON of a new message by the bot.
func (s *Server) newMessageBase(channelID, guildID string, msgType discordgo.MessageType, webhook bool) []byte {
	m := map[string]any{
		"id":               s.newID(),
		"channel_id":       channelID,
		"author":           s.cfg.user,
		"timestamp":        s.now().UTC().Format(time.RFC3339Nano),
		"type":             msgType,
		"content":          "",
		"tts":              false,
		"mention_everyone": false,
		"pinned":           false,
		"mentions":         []any{},
		"mention_roles":    []any{},
		"attachments":      []any{},
		"embeds":           []any{},
		"components":       []any{},
		"flags":            0,
	}
	if guildID != "" {
		m["guild_id"] = guildID
	}
	if webhook {
		m["webhook_id"] = s.cfg.appID
		m["application_id"] = s.cfg.appID
	}
	return mustJSON(m)
}

// readMessageBody reads the body of a request that writes a message: its JSON
// payload, the files of a multipart body, and the payload decoded as an
// object. A body that cannot be read or is not a JSON object gives
// errInvalidJSON.
func (s *Server) readMessageBody(r *http.Request) ([]byte, []*discordgo.MessageAttachment, map[string]json.RawMessage, *APIError) {
	payload, files, err := s.readPayload(r.Header.Get("Content-Type"), r.Body)
	if err != nil {
		return nil, nil, nil, errInvalidJSON
	}
	patch, apiErr := decodePatch(payload)
	return payload, files, patch, apiErr
}

// writeRaw answers 200 with raw, a JSON document.
func writeRaw(w http.ResponseWriter, raw []byte) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(raw)
}

// decodePatch decodes a JSON object body.
func decodePatch(payload []byte) (map[string]json.RawMessage, *APIError) {
	var patch map[string]json.RawMessage
	if err := json.Unmarshal(payload, &patch); err != nil || patch == nil {
		return nil, errInvalidJSON
	}
	return patch, nil
}

// storeLocked saves msg and returns its JSON. s.mu must be held.
func (s *Server) storeLocked(msg *discordgo.Message, token string) []byte {
	raw := mustEncodeMessage(msg)
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
func editMessage(old *storedMessage, patch map[string]json.RawMessage, files []*discordgo.MessageAttachment, prefix string, now time.Time) (*discordgo.Message, *APIError) {
	oldMsg := decodeMessage(old.raw)
	msg, err := composeMessage(old.raw, patch, files)
	if err != nil {
		return nil, formError([]fieldError{{prefix, "MODEL_TYPE_CONVERT", err.Error()}})
	}
	// Only SUPPRESS_EMBEDS may change; an edit ends the loading state.
	keep := discordgo.MessageFlagsEphemeral | discordgo.MessageFlagsIsComponentsV2 | discordgo.MessageFlagsCrossPosted | discordgo.MessageFlagsHasThread
	msg.Flags = oldMsg.Flags&keep | msg.Flags&discordgo.MessageFlagsSuppressEmbeds
	now = now.UTC()
	msg.EditedTimestamp = &now
	msg.ID, msg.ChannelID = oldMsg.ID, oldMsg.ChannelID
	if e := validateMessage(prefix, msg, patch); e != nil {
		return nil, e
	}
	return msg, nil
}

func (s *Server) channelMessageCreate(w http.ResponseWriter, r *http.Request) {
	payload, files, patch, apiErr := s.readMessageBody(r)
	if apiErr != nil {
		writeAPIError(w, apiErr)
		return
	}
	msgType := discordgo.MessageTypeDefault
	if _, ok := patch["message_reference"]; ok {
		msgType = discordgo.MessageTypeReply
	}
	msg, err := composeMessage(s.newMessageBase(r.PathValue("channel"), "", msgType, false), patch, files)
	if err != nil {
		writeAPIError(w, formError([]fieldError{{"", "MODEL_TYPE_CONVERT", err.Error()}}))
		return
	}
	msg.Flags &= discordgo.MessageFlagsSuppressEmbeds | discordgo.MessageFlagsSuppressNotifications | discordgo.MessageFlagsIsComponentsV2
	if apiErr := validateMessage("", msg, patch); apiErr != nil {
		writeAPIError(w, apiErr)
		return
	}
	s.mu.Lock()
	raw := s.storeLocked(msg, "")
	s.recordLocked(ChannelMessageCreate, "", raw, payload)
	s.mu.Unlock()
	writeRaw(w, raw)
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

func (s *Server) channelMessageGet(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	m := s.channelMessageLocked(r)
	s.mu.Unlock()
	if m == nil {
		writeAPIError(w, errUnknownMessage)
		return
	}
	writeRaw(w, m.raw)
}

// channelMessageDelete handles DELETE /channels/{channel}/messages/{msg}.
// With no permissions in the fake, the bot may delete any non-ephemeral
// message, as with Manage Messages.
func (s *Server) channelMessageDelete(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.channelMessageLocked(r)
	if m == nil {
		writeAPIError(w, errUnknownMessage)
		return
	}
	s.deleteLocked(m, ChannelMessageDelete, "")
	w.WriteHeader(http.StatusNoContent)
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
	msg, apiErr := editMessage(old, patch, files, "", s.now())
	if apiErr != nil {
		writeAPIError(w, apiErr)
		return
	}
	raw := s.storeLocked(msg, old.token)
	s.recordLocked(ChannelMessageEdit, "", raw, payload)
	writeRaw(w, raw)
}

// interactionCallback handles POST /interactions/{id}/{token}/callback.
func (s *Server) interactionCallback(w http.ResponseWriter, r *http.Request) {
	payload, files, err := s.readPayload(r.Header.Get("Content-Type"), r.Body)
	if err != nil {
		writeAPIError(w, errInvalidJSON)
		return
	}
	if e := s.respond(r.PathValue("id"), r.PathValue("token"), payload, files); e != nil {
		writeAPIError(w, e)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// respond applies an interaction response to the interaction with id and
// token, as Discord does with the body of POST
// /interactions/{id}/{token}/callback or with the body the Interactions
// Endpoint URL answers (Deliver). payload is the response's JSON and files
// the files of a multipart body. It validates the response, creates or
// updates the message behind it (recorded as InteractionResponseMessage),
// remembers it for WaitResponse and the webhook routes, and returns nil;
// or it returns the Discord error for an invalid body (50109, 50035), an
// unknown interaction (10062), a second response (40060), a response type
// the interaction does not take or an invalid message (50035, 50006), or
// an unknown message to update (10008). The first rejected response of a
// known interaction is remembered for WaitResponse.
func (s *Server) respond(id, token string, payload []byte, files []*discordgo.MessageAttachment) *APIError {
	var body struct {
		Type discordgo.InteractionResponseType `json:"type"`
		Data map[string]json.RawMessage        `json:"data"`
	}
	if err := json.Unmarshal(payload, &body); err != nil {
		return errInvalidJSON
	}
	if _, err := decodeInteractionResponse(payload); err != nil {
		return formError([]fieldError{{"data", "MODEL_TYPE_CONVERT", err.Error()}})
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.interactions[id]
	switch {
	case st == nil || st.token != token:
		return errUnknownInteraction
	case st.response != nil:
		return errAlreadyAcknowledged
	}
	reject := func(e *APIError) *APIError {
		if st.rejected == nil {
			st.rejected, st.rejectErr = bytes.Clone(payload), e
			s.notifyLocked()
		}
		return e
	}
	if e := checkResponseType(st, body.Type); e != nil {
		return reject(e)
	}

	var kindMsg *discordgo.Message
	msgToken := st.token
	switch body.Type {
	case discordgo.InteractionResponseChannelMessageWithSource, discordgo.InteractionResponseDeferredChannelMessageWithSource:
		msgType := discordgo.MessageTypeDefault
		if st.itype == discordgo.InteractionApplicationCommand {
			msgType = discordgo.MessageTypeChatInputCommand
		}
		base := s.newMessageBase(st.channelID, st.guildID, msgType, true)
		data := body.Data
		if body.Type == discordgo.InteractionResponseDeferredChannelMessageWithSource {
			data = map[string]json.RawMessage{} // only flags count, below
		}
		msg, err := composeMessage(base, data, files)
		if err != nil {
			return reject(formError([]fieldError{{"data", "MODEL_TYPE_CONVERT", err.Error()}}))
		}
		var flags struct {
			Flags discordgo.MessageFlags `json:"flags"`
		}
		if f, ok := body.Data["flags"]; ok {
			_ = json.Unmarshal(f, &flags.Flags)
		}
		msg.Flags = flags.Flags & (discordgo.MessageFlagsEphemeral | discordgo.MessageFlagsSuppressEmbeds | discordgo.MessageFlagsSuppressNotifications | discordgo.MessageFlagsIsComponentsV2)
		if body.Type == discordgo.InteractionResponseDeferredChannelMessageWithSource {
			msg.Flags = msg.Flags&discordgo.MessageFlagsEphemeral | discordgo.MessageFlagsLoading
		} else if e := validateMessage("data.", msg, body.Data); e != nil {
			return reject(e)
		}
		st.originalID = msg.ID
		kindMsg = msg
	case discordgo.InteractionResponseDeferredMessageUpdate, discordgo.InteractionResponseUpdateMessage:
		old := s.messages[st.messageID]
		if old == nil {
			return reject(errUnknownMessage)
		}
		st.originalID = st.messageID
		msgToken = old.token
		if body.Type == discordgo.InteractionResponseUpdateMessage {
			msg, e := editMessage(old, body.Data, files, "data.", s.now())
			if e != nil {
				return reject(e)
			}
			kindMsg = msg
		}
	case discordgo.InteractionResponseModal:
		if e := validateModal(body.Data); e != nil {
			return reject(e)
		}
	case discordgo.InteractionApplicationCommandAutocompleteResult:
		var choices []json.RawMessage
		_ = json.Unmarshal(body.Data["choices"], &choices)
		if len(choices) > 25 {
			return reject(formError([]fieldError{{"data.choices", "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length."}}))
		}
	}

	st.response = bytes.Clone(payload)
	if kindMsg != nil {
		raw := s.storeLocked(kindMsg, msgToken)
		s.recordLocked(InteractionResponseMessage, st.id, raw, payload)
	}
	s.notifyLocked()
	return nil
}

// checkResponseType rejects response types Discord does not accept for
// the interaction's type.
func checkResponseType(st *interactionState, t discordgo.InteractionResponseType) *APIError {
	ok := false
	switch t {
	case discordgo.InteractionResponsePong:
		ok = st.itype == discordgo.InteractionPing
	case discordgo.InteractionResponseChannelMessageWithSource, discordgo.InteractionResponseDeferredChannelMessageWithSource:
		ok = st.itype == discordgo.InteractionApplicationCommand || st.itype == discordgo.InteractionMessageComponent || st.itype == discordgo.InteractionModalSubmit
	case discordgo.InteractionResponseDeferredMessageUpdate, discordgo.InteractionResponseUpdateMessage:
		ok = (st.itype == discordgo.InteractionMessageComponent || st.itype == discordgo.InteractionModalSubmit) && st.messageID != ""
	case discordgo.InteractionApplicationCommandAutocompleteResult:
		ok = st.itype == discordgo.InteractionApplicationCommandAutocomplete
	case discordgo.InteractionResponseModal:
		ok = st.itype == discordgo.InteractionApplicationCommand || st.itype == discordgo.InteractionMessageComponent
	}
	if ok {
		return nil
	}
	return formError([]fieldError{{"type", "INTERACTION_RESPONSE_TYPE_INVALID",
		fmt.Sprintf("Interaction response type %d is not valid for interaction type %d", t, st.itype)}})
}

// webhookLocked finds the answered interaction behind /webhooks/{app}/{token}:
// an unknown application or token, or an interaction not yet answered,
// gives 10015, and a token older than WebhookTokenLifetime gives 50027.
// s.mu must be held.
func (s *Server) webhookLocked(r *http.Request) (*interactionState, *APIError) {
	if r.PathValue("app") != s.cfg.appID {
		return nil, errUnknownWebhook
	}
	st := s.byToken[r.PathValue("token")]
	switch {
	case st == nil:
		return nil, errUnknownWebhook
	case !s.now().Before(st.created.Add(WebhookTokenLifetime)):
		return nil, errInvalidWebhookToken
	case st.response == nil:
		return nil, errUnknownWebhook
	}
	return st, nil
}

// webhookMessageLocked finds {msg} ("@original" or a follow-up) of an
// interaction webhook. s.mu must be held.
func (s *Server) webhookMessageLocked(r *http.Request) (*interactionState, *storedMessage, *APIError) {
	st, e := s.webhookLocked(r)
	if e != nil {
		return nil, nil, e
	}
	id := r.PathValue("msg")
	if id == "@original" {
		id = st.originalID
	}
	m := s.messages[id]
	if m == nil || (id != st.originalID && m.token != st.token) {
		return nil, nil, errUnknownMessage
	}
	return st, m, nil
}

func (s *Server) followupCreate(w http.ResponseWriter, r *http.Request) {
	payload, files, patch, apiErr := s.readMessageBody(r)
	if apiErr != nil {
		writeAPIError(w, apiErr)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	st, apiErr := s.webhookLocked(r)
	if apiErr != nil {
		writeAPIError(w, apiErr)
		return
	}
	msg, err := composeMessage(s.newMessageBase(st.channelID, st.guildID, discordgo.MessageTypeDefault, true), patch, files)
	if err != nil {
		writeAPIError(w, formError([]fieldError{{"", "MODEL_TYPE_CONVERT", err.Error()}}))
		return
	}
	msg.Flags &= discordgo.MessageFlagsEphemeral | discordgo.MessageFlagsSuppressEmbeds | discordgo.MessageFlagsSuppressNotifications | discordgo.MessageFlagsIsComponentsV2
	if apiErr := validateMessage("", msg, patch); apiErr != nil {
		writeAPIError(w, apiErr)
		return
	}
	raw := s.storeLocked(msg, st.token)
	s.recordLocked(FollowupMessageCreate, st.id, raw, payload)
	writeRaw(w, raw)
}

func (s *Server) webhookMessageGet(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	_, m, apiErr := s.webhookMessageLocked(r)
	s.mu.Unlock()
	if apiErr != nil {
		writeAPIError(w, apiErr)
		return
	}
	writeRaw(w, m.raw)
}

// webhookMessageDelete handles DELETE /webhooks/{app}/{token}/messages/{msg}.
func (s *Server) webhookMessageDelete(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, m, apiErr := s.webhookMessageLocked(r)
	if apiErr != nil {
		writeAPIError(w, apiErr)
		return
	}
	s.deleteLocked(m, WebhookMessageDelete, st.id)
	w.WriteHeader(http.StatusNoContent)
}

// deleteLocked forgets message m and records its deletion, of the given
// kind, through the webhook of interactionID ("" for the channel route).
// s.mu must be held.
func (s *Server) deleteLocked(m *storedMessage, kind MessageKind, interactionID string) {
	delete(s.messages, m.id)
	s.recordLocked(kind, interactionID, m.raw, nil)
}

func (s *Server) webhookMessageEdit(w http.ResponseWriter, r *http.Request) {
	payload, files, patch, apiErr := s.readMessageBody(r)
	if apiErr != nil {
		writeAPIError(w, apiErr)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	st, old, apiErr := s.webhookMessageLocked(r)
	if apiErr != nil {
		writeAPIError(w, apiErr)
		return
	}
	msg, apiErr := editMessage(old, patch, files, "", s.now())
	if apiErr != nil {
		writeAPIError(w, apiErr)
		return
	}
	raw := s.storeLocked(msg, old.token)
	s.recordLocked(WebhookMessageEdit, st.id, raw, payload)
	writeRaw(w, raw)
}

// validateMessage checks the message rules Discord enforces. prefix is
// prepended to field paths ("data." for interaction responses); raw is the
// request body, used to see sticker ids.
func validateMessage(prefix string, m *discordgo.Message, raw map[string]json.RawMessage) *APIError {
	var errs []fieldError
	add := func(path, code, msg string) { errs = append(errs, fieldError{prefix + path, code, msg}) }
	if utf8.RuneCountInString(m.Content) > 2000 {
		add("content", "BASE_TYPE_MAX_LENGTH", "Must be 2000 or fewer in length.")
	}
	if len(m.Embeds) > 10 {
		add("embeds", "BASE_TYPE_MAX_LENGTH", "Must be 10 or fewer in length.")
	}
	total := 0
	for i, e := range m.Embeds {
		p := fmt.Sprintf("embeds.%d.", i)
		if e == nil {
			continue
		}
		if n := utf8.RuneCountInString(e.Title); n > 256 {
			add(p+"title", "BASE_TYPE_MAX_LENGTH", "Must be 256 or fewer in length.")
		}
		if n := utf8.RuneCountInString(e.Description); n > 4096 {
			add(p+"description", "BASE_TYPE_MAX_LENGTH", "Must be 4096 or fewer in length.")
		}
		if len(e.Fields) > 25 {
			add(p+"fields", "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length.")
		}
		total += utf8.RuneCountInString(e.Title) + utf8.RuneCountInString(e.Description)
		for j, f := range e.Fields {
			if f == nil {
				continue
			}
			if utf8.RuneCountInString(f.Name) > 256 {
				add(fmt.Sprintf("%sfields.%d.name", p, j), "BASE_TYPE_MAX_LENGTH", "Must be 256 or fewer in length.")
			}
			if utf8.RuneCountInString(f.Value) > 1024 {
				add(fmt.Sprintf("%sfields.%d.value", p, j), "BASE_TYPE_MAX_LENGTH", "Must be 1024 or fewer in length.")
			}
			total += utf8.RuneCountInString(f.Name) + utf8.RuneCountInString(f.Value)
		}
		if e.Footer != nil {
			total += utf8.RuneCountInString(e.Footer.Text)
		}
		if e.Author != nil {
			total += utf8.RuneCountInString(e.Author.Name)
		}
	}
	if total > 6000 {
		add("embeds", "MAX_EMBED_SIZE_EXCEEDED", "Embed size exceeds maximum size of 6000")
	}
	if m.Flags&discordgo.MessageFlagsIsComponentsV2 == 0 {
		for _, e := range validateComponents(m.Components) {
			add(e.path, e.code, e.msg)
		}
	}
	if len(errs) > 0 {
		return formError(errs)
	}
	stickers := len(raw["sticker_ids"]) > 0 && string(raw["sticker_ids"]) != "null" && string(raw["sticker_ids"]) != "[]"
	if strings.TrimSpace(m.Content) == "" && len(m.Embeds) == 0 && len(m.Components) == 0 &&
		len(m.Attachments) == 0 && m.Poll == nil && len(m.StickerItems) == 0 && !stickers {
		return errEmptyMessage
	}
	return nil
}

// validateComponents checks action rows of buttons and select menus.
func validateComponents(comps []discordgo.MessageComponent) []fieldError {
	var errs []fieldError
	add := func(path, code, msg string) { errs = append(errs, fieldError{path, code, msg}) }
	if len(comps) > 5 {
		add("components", "BASE_TYPE_MAX_LENGTH", "Must be 5 or fewer in length.")
	}
	seen := map[string]bool{}
	customID := func(path, id string) {
		switch n := utf8.RuneCountInString(id); {
		case n == 0:
			add(path, "BASE_TYPE_REQUIRED", "This field is required")
		case n > 100:
			add(path, "BASE_TYPE_MAX_LENGTH", "Must be 100 or fewer in length.")
		case seen[id]:
			add(path, "COMPONENT_CUSTOM_ID_DUPLICATED", "Component custom id cannot be duplicated")
		}
		seen[id] = true
	}
	for i, c := range comps {
		p := fmt.Sprintf("components.%d", i)
		row, ok := c.(*discordgo.ActionsRow)
		if !ok {
			add(p+".type", "UNION_TYPE_CHOICES", "Value of field \"type\" must be one of (1,).")
			continue
		}
		if n := len(row.Components); n < 1 || n > 5 {
			add(p+".components", "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 5 in length.")
		}
		for j, cc := range row.Components {
			q := fmt.Sprintf("%s.components.%d", p, j)
			switch v := cc.(type) {
			case *discordgo.Button:
				switch v.Style {
				case discordgo.LinkButton:
					if v.URL == "" {
						add(q+".url", "BASE_TYPE_REQUIRED", "This field is required")
					}
					if v.CustomID != "" {
						add(q+".custom_id", "BUTTON_COMPONENT_CUSTOM_ID_NOT_ALLOWED", "A link button cannot have a custom id")
					}
				case discordgo.PremiumButton:
					if v.SKUID == "" {
						add(q+".sku_id", "BASE_TYPE_REQUIRED", "This field is required")
					}
				default:
					customID(q+".custom_id", v.CustomID)
				}
				if v.Style != discordgo.PremiumButton && v.Label == "" && v.Emoji == nil {
					add(q, "BUTTON_COMPONENT_LABEL_OR_EMOJI_REQUIRED", "A button must have a label or an emoji")
				}
				if utf8.RuneCountInString(v.Label) > 80 {
					add(q+".label", "BASE_TYPE_MAX_LENGTH", "Must be 80 or fewer in length.")
				}
			case *discordgo.SelectMenu:
				customID(q+".custom_id", v.CustomID)
				if len(row.Components) > 1 {
					add(p+".components", "COMPONENT_LAYOUT_WIDTH_EXCEEDED", "The specified component exceeds the maximum width")
				}
				if len(v.Options) > 25 {
					add(q+".options", "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length.")
				}
			default:
				add(q+".type", "UNION_TYPE_CHOICES", fmt.Sprintf("Component type %d is not allowed in a message action row", cc.Type()))
			}
		}
	}
	return errs
}

// validateModal checks the data of a MODAL interaction response.
func validateModal(data map[string]json.RawMessage) *APIError {
	var errs []fieldError
	add := func(path, code, msg string) { errs = append(errs, fieldError{"data." + path, code, msg}) }
	var v struct {
		CustomID   string            `json:"custom_id"`
		Title      string            `json:"title"`
		Components []json.RawMessage `json:"components"`
	}
	raw, _ := json.Marshal(data)
	_ = json.Unmarshal(raw, &v)
	if n := utf8.RuneCountInString(v.CustomID); n < 1 || n > 100 {
		add("custom_id", "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 100 in length.")
	}
	if n := utf8.RuneCountInString(v.Title); n < 1 || n > 45 {
		add("title", "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 45 in length.")
	}
	if n := len(v.Components); n < 1 || n > 5 {
		add("components", "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 5 in length.")
	}
	seen := map[string]bool{}
	for i, rc := range v.Components {
		p := fmt.Sprintf("components.%d", i)
		c, err := discordgo.MessageComponentFromJSON(rc)
		row, ok := c.(*discordgo.ActionsRow)
		if err != nil || !ok || len(row.Components) != 1 {
			add(p, "UNION_TYPE_CHOICES", "Must be an action row with exactly one text input")
			continue
		}
		ti, ok := row.Components[0].(*discordgo.TextInput)
		if !ok {
			add(p+".components.0.type", "UNION_TYPE_CHOICES", "Value of field \"type\" must be one of (4,).")
			continue
		}
		if n := utf8.RuneCountInString(ti.CustomID); n < 1 || n > 100 || seen[ti.CustomID] {
			add(p+".components.0.custom_id", "COMPONENT_CUSTOM_ID_INVALID", "Custom id must be 1 to 100 characters and unique")
		}
		seen[ti.CustomID] = true
		if n := utf8.RuneCountInString(ti.Label); n < 1 || n > 45 {
			add(p+".components.0.label", "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 45 in length.")
		}
	}
	if len(errs) > 0 {
		return formError(errs)
	}
	return nil
}
