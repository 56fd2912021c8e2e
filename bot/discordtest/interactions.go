package discordtest

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/bwmarrin/discordgo"
	fastjson "github.com/segmentio/encoding/json"
)

// interactionState tracks an interaction: dispatched, delivered, or met
// through WithResolver.
type interactionState struct {
	id, token, channelID, guildID string
	itype                         discordgo.InteractionType
	created                       time.Time // dispatched or delivered, on the Server's clock
	messageID                     string    // message the component is on
	response                      []byte    // accepted callback
	rejected                      []byte    // first rejected callback
	rejectErr                     *APIError
	originalID                    string // message behind @original
	// userInstallOnly marks an interaction authorised by a user install
	// alone (authorizing_integration_owners without "0"), whose follow-ups
	// Discord limits to maxUserInstallFollowups.
	userInstallOnly bool
	followups       int // follow-up messages created
	// delivering is the delivery in flight, nil when there is none.
	delivering *delivery
}

// delivery is a Deliver in flight: answering is closed once the bot has
// begun to answer (its status and headers are in), done once Deliver has
// applied the answer or failed.
type delivery struct{ answering, done chan struct{} }

// How long a webhook request waits for the bot's answer to its interaction
// while Deliver is under way: for the answer to begin, when the bot has
// not answered yet (it may be the bot's own request that holds its answer
// up), and then for the answer to be applied.
const (
	answerGrace  = 50 * time.Millisecond
	deliveryWait = 5 * time.Second
)

// beforeApply, when set by a test of the package, runs in Deliver between
// reading the bot's answer and applying it.
var beforeApply func(interactionID string)

// DispatchInteraction sends INTERACTION_CREATE for i to the identified
// gateway connections of the shard that serves i.GuildID, as WithShards
// describes (every connection when none is sharded), and remembers i so
// that the bot can answer it. Empty i.ID, i.Token and i.AppID are filled
// in place (with a new snowflake, a random token and the application id),
// and i.Version defaults to 1. If i.Message is set (the message a
// component is on) and not yet known, it is stored so that the bot may
// update it; its empty ID and ChannelID are filled in place and its Author
// defaults to the bot user. The webhook token of i expires
// WebhookTokenLifetime after this call, on the Server's clock. It returns
// an error if i is nil or has no Type, ErrNotConnected if no gateway
// connection is identified, an error if i (with its id or token) was
// already dispatched or delivered or cannot be marshaled, or the joined
// errors of writing to the connections.
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

// DispatchInteractionJSON is DispatchInteraction for an interaction
// already encoded, such as one made by the builders of this package: body
// is sent as it is, and must carry an id, a token and a type (the Server
// fills nothing in). The Server decodes only what it keeps of it (its
// channel, guild, context and installation, the channel object, and the
// message a component is on when it does not know that message yet). It
// returns an error if body lacks an id, a token or a type, or if what the
// Server decodes cannot be, and otherwise what DispatchInteraction
// returns.
func (s *Server) DispatchInteractionJSON(body []byte) error {
	if !s.connected() {
		return ErrNotConnected
	}
	i, err := s.registerJSON(body)
	if err != nil {
		return err
	}
	return s.dispatchGuild("INTERACTION_CREATE", json.RawMessage(body), i.GuildID)
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
	if m := i.Message; m != nil {
		if m.ID == "" {
			m.ID = s.newID()
		}
		if m.ChannelID == "" {
			m.ChannelID = i.ChannelID
		}
	}
	raw, err := encodeInteraction(i)
	if err != nil {
		return nil, err
	}
	return raw, s.register(i, nil)
}

// interactionHead is what the Server reads of an interaction's JSON
// (registerJSON): the fields it keeps, the message as it came, decoded
// only when the Server does not know it yet, and the channel object.
type interactionHead struct {
	ID                           string                                          `json:"id"`
	Token                        string                                          `json:"token"`
	Type                         discordgo.InteractionType                       `json:"type"`
	GuildID                      string                                          `json:"guild_id"`
	ChannelID                    string                                          `json:"channel_id"`
	Context                      discordgo.InteractionContextType                `json:"context"`
	AuthorizingIntegrationOwners map[discordgo.ApplicationIntegrationType]string `json:"authorizing_integration_owners"`
	Message                      json.RawMessage                                 `json:"message"`
	Channel                      *channelHint                                    `json:"channel"`
}

// registerJSON reads body and remembers the interaction it holds, which
// must be a JSON object with an id, a token and a type. Only what the
// Server keeps is decoded (see interactionHead): a load generator's clicks
// on a known message cost no decoding of the message.
func (s *Server) registerJSON(body []byte) (*discordgo.Interaction, error) {
	var h interactionHead
	if err := fastjson.Unmarshal(body, &h); err != nil {
		return nil, fmt.Errorf("discordtest: decode interaction: %w", err)
	}
	if h.ID == "" || h.Token == "" || h.Type == 0 {
		return nil, fmt.Errorf("discordtest: interaction without an id, a token or a type: %.200s", body)
	}
	i := &discordgo.Interaction{ID: h.ID, Token: h.Token, Type: h.Type, GuildID: h.GuildID, ChannelID: h.ChannelID,
		Context: h.Context, AuthorizingIntegrationOwners: h.AuthorizingIntegrationOwners}
	var raw json.RawMessage
	if len(h.Message) > 0 && string(h.Message) != "null" {
		var head struct {
			ID        string `json:"id"`
			ChannelID string `json:"channel_id"`
		}
		if err := fastjson.Unmarshal(h.Message, &head); err != nil {
			return nil, fmt.Errorf("discordtest: decode interaction: message: %w", err)
		}
		i.Message, raw = &discordgo.Message{ID: head.ID, ChannelID: head.ChannelID}, h.Message
		if i.Message.ChannelID == "" {
			i.Message.ChannelID = i.ChannelID
		}
	}
	return i, s.registerRaw(i, h.Channel, raw)
}

// maxUserInstallFollowups is how many follow-up messages Discord lets an
// app create for an interaction authorised by a user install alone
// (https://discord.com/developers/docs/interactions/receiving-and-responding#create-followup-message).
const maxUserInstallFollowups = 5

// register remembers i, and i.Message (the message a component is on, its
// Author the bot user when nil) unless the message is known already, and
// learns what i and its channel object ch (nil when unknown) tell about
// its channel (see learnLocked).
func (s *Server) register(i *discordgo.Interaction, ch *channelHint) error {
	return s.registerRaw(i, ch, nil)
}

// registerRaw is register for an interaction whose message, when raw is
// not nil, is raw, of which i.Message holds only the ID and channel: it is
// decoded only if the Server does not know the message.
func (s *Server) registerRaw(i *discordgo.Interaction, ch *channelHint, raw json.RawMessage) error {
	st := &interactionState{id: i.ID, token: i.Token, channelID: i.ChannelID, guildID: i.GuildID, itype: i.Type}
	_, guildInstall := i.AuthorizingIntegrationOwners[discordgo.ApplicationIntegrationGuildInstall]
	_, userInstall := i.AuthorizingIntegrationOwners[discordgo.ApplicationIntegrationUserInstall]
	st.userInstallOnly = userInstall && !guildInstall
	store := func(m *discordgo.Message) *storedMessage {
		cp := *m
		if cp.Author == nil {
			cp.Author = s.BotUser()
		}
		return &storedMessage{id: m.ID, raw: encodeMessage(&cp), channelID: m.ChannelID, authorID: cp.Author.ID,
			ephemeral: m.Flags&discordgo.MessageFlagsEphemeral != 0}
	}
	var stored *storedMessage
	if m := i.Message; m != nil {
		st.messageID = m.ID
		if raw == nil {
			stored = store(m)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.interactions[i.ID] != nil || s.byToken[i.Token] != nil {
		return fmt.Errorf("discordtest: interaction %s (or its token) was already dispatched", i.ID)
	}
	if raw != nil && s.messages[st.messageID] == nil {
		var m discordgo.Message
		if err := json.Unmarshal(raw, &m); err != nil {
			return fmt.Errorf("discordtest: decode interaction: message: %w", err)
		}
		if m.ChannelID == "" {
			m.ChannelID = i.ChannelID
		}
		stored = store(&m)
	}
	st.created = s.now()
	s.interactions[i.ID] = st
	s.byToken[i.Token] = st
	if stored != nil && s.messages[st.messageID] == nil {
		s.messages[st.messageID] = stored
	}
	s.learnLocked(i, ch)
	return nil
}

// encodeInteraction marshals i including the components of i.Message,
// which discordgo does not marshal.
func encodeInteraction(i *discordgo.Interaction) (json.RawMessage, error) {
	raw, err := json.Marshal(i)
	if err != nil {
		return nil, fmt.Errorf("discordtest: marshal interaction: %w", err)
	}
	if i.Message == nil {
		return raw, nil
	}
	obj := map[string]json.RawMessage{}
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, fmt.Errorf("discordtest: marshal interaction: %w", err)
	}
	obj["message"] = encodeMessage(i.Message)
	return mustJSON(obj), nil
}

// Deliver sends i to the bot's Interactions Endpoint URL endpoint, as
// Discord does in HTTP interactions mode, and applies the bot's answer.
//
// Like DispatchInteraction, it fills empty i.ID, i.Token, i.AppID and
// i.Version (and i.Message's ID and ChannelID) in place and remembers i and
// i.Message, so that the bot may also use the callback and webhook routes;
// the webhook token expires WebhookTokenLifetime after this call. No
// gateway connection is needed. The body is i as JSON, components
// included, POSTed as SignedRequest makes it at the Server's clock, so a
// bot verifies it with discordgo.VerifyInteraction and the public half of
// key. ctx bounds the whole exchange; Discord's 3 seconds are not
// enforced.
//
// On a 200 answer, the body (JSON, or multipart with payload_json and
// files) is decoded as the interaction response and applied exactly as
// POST /interactions/{id}/{token}/callback would apply it: the same
// validation, the same message creation or update, recorded as
// InteractionResponseMessage and seen by Messages, WaitMessage,
// WaitResponse and ChannelMessages. Deliver then returns the decoded
// response. Meanwhile, the bot's requests to the interaction's webhook
// wait (up to 5 seconds) for the answer to be applied, as the bot sends
// them after it.
//
// It returns an error if i is nil or has no Type, key is not an Ed25519
// private key, i was already dispatched or delivered or cannot be
// marshaled, the request fails (including ctx ending), the bot answers
// another status than 200 (the error text holds the status and the body),
// or the body cannot be decoded as an interaction response. If the fake
// rejects the response (for example an empty message, code 50006, or an
// interaction already answered through the callback route, code 40060), it
// returns the decoded response with an error wrapping the *APIError, which
// errors.As reads.
func (s *Server) Deliver(ctx context.Context, endpoint string, key ed25519.PrivateKey, i *discordgo.Interaction) (*discordgo.InteractionResponse, error) {
	if i == nil || i.Type == 0 {
		return nil, errors.New("discordtest: Deliver needs an interaction with a Type")
	}
	if len(key) != ed25519.PrivateKeySize {
		return nil, fmt.Errorf("discordtest: Deliver needs an Ed25519 private key of %d bytes, not %d", ed25519.PrivateKeySize, len(key))
	}
	body, err := s.registerInteraction(i)
	if err != nil {
		return nil, err
	}
	return s.deliver(ctx, endpoint, key, i, body)
}

// DeliverJSON is Deliver for an interaction already encoded, such as one
// made by the builders of this package: body is sent as it is, and must
// carry an id, a token and a type (the Server fills nothing in). It
// returns an error if it does not, or if it cannot be decoded as an
// interaction, and otherwise what Deliver returns.
func (s *Server) DeliverJSON(ctx context.Context, endpoint string, key ed25519.PrivateKey, body []byte) (*discordgo.InteractionResponse, error) {
	if len(key) != ed25519.PrivateKeySize {
		return nil, fmt.Errorf("discordtest: DeliverJSON needs an Ed25519 private key of %d bytes, not %d", ed25519.PrivateKeySize, len(key))
	}
	i, err := s.registerJSON(body)
	if err != nil {
		return nil, err
	}
	return s.deliver(ctx, endpoint, key, i, body)
}

// deliver POSTs body, the registered interaction i, to endpoint and
// applies the answer. Meanwhile the webhook routes of i wait for it (see
// awaitDelivery).
func (s *Server) deliver(ctx context.Context, endpoint string, key ed25519.PrivateKey, i *discordgo.Interaction, body []byte) (*discordgo.InteractionResponse, error) {
	s.mu.Lock()
	st := s.interactions[i.ID]
	d := &delivery{answering: make(chan struct{}), done: make(chan struct{})}
	st.delivering = d
	s.mu.Unlock()
	answering := sync.OnceFunc(func() { close(d.answering) })
	defer func() {
		s.mu.Lock()
		st.delivering = nil
		s.mu.Unlock()
		answering()
		close(d.done)
	}()
	req, err := SignedRequest(ctx, endpoint, key, s.now(), body)
	if err != nil {
		return nil, fmt.Errorf("discordtest: deliver interaction %s: %w", i.ID, err)
	}
	resp, err := (&http.Client{Transport: s.base}).Do(req)
	if err != nil {
		return nil, fmt.Errorf("discordtest: deliver interaction %s: %w", i.ID, err)
	}
	defer resp.Body.Close()
	answering()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return nil, fmt.Errorf("discordtest: deliver interaction %s: read answer: %w", i.ID, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("discordtest: deliver interaction %s: endpoint answered %s: %q", i.ID, resp.Status, excerpt(raw))
	}
	payload, files, err := s.readPayload(resp.Header.Get("Content-Type"), bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("discordtest: deliver interaction %s: read multipart answer: %w", i.ID, err)
	}
	ir, err := DecodeResponse(payload)
	if err != nil {
		return nil, fmt.Errorf("discordtest: deliver interaction %s: answer %q: %w", i.ID, excerpt(raw), err)
	}
	if beforeApply != nil {
		beforeApply(i.ID)
	}
	if e := s.respond(i.ID, i.Token, payload, files); e != nil {
		return ir, fmt.Errorf("discordtest: response to interaction %s rejected: %w", i.ID, e.clone())
	}
	return ir, nil
}

// awaitDelivery waits until the answer to the interaction of the webhook
// request r is applied, when Deliver is under way and the bot has begun to
// answer (see answerGrace and deliveryWait). A bot sends its follow-ups
// after its answer, and the fake keeps that order: without this wait, the
// fake's own work between reading the answer and applying it would let
// them cross, which on Discord is rare (and answered 10015 Unknown Webhook
// when it happens).
func (s *Server) awaitDelivery(r *http.Request) {
	s.mu.Lock()
	var d *delivery
	if st := s.byToken[r.PathValue("token")]; st != nil {
		d = st.delivering
	}
	s.mu.Unlock()
	if d == nil {
		return
	}
	select {
	case <-d.answering:
	case <-d.done:
		return
	case <-r.Context().Done():
		return
	case <-time.After(answerGrace):
		return // the bot has not answered: the request is early
	}
	select {
	case <-d.done:
	case <-r.Context().Done():
	case <-time.After(deliveryWait):
	}
}

// excerpt returns raw, cut to its first KiB for an error message.
func excerpt(raw []byte) []byte {
	const limit = 1 << 10
	if len(raw) > limit {
		return append(raw[:limit:limit], "..."...)
	}
	return raw
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
	resp, err := DecodeResponse(raw)
	if err != nil {
		return nil, err
	}
	if rejectErr != nil {
		return resp, fmt.Errorf("discordtest: response to interaction %s rejected: %w", interactionID, rejectErr.clone())
	}
	return resp, nil
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
	e := s.applyResponse(id, token, payload, files)
	if f := s.cfg.onResponse; f != nil {
		r := Response{InteractionID: id, Payload: bytes.Clone(payload)}
		if e != nil {
			r.Err = e.clone()
		}
		f(r)
	}
	return e
}

// applyResponse is respond without telling WithOnResponse's function.
func (s *Server) applyResponse(id, token string, payload []byte, files []*discordgo.MessageAttachment) *APIError {
	var body struct {
		Type discordgo.InteractionResponseType `json:"type"`
		Data *patch                            `json:"data"`
	}
	if err := fastjson.Unmarshal(payload, &body); err != nil {
		return errInvalidJSON
	}
	if _, err := DecodeResponse(payload); err != nil {
		return formError([]fieldError{{"data", "MODEL_TYPE_CONVERT", err.Error()}})
	}
	if body.Data == nil {
		body.Data = &patch{}
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
		data := body.Data
		if body.Type == discordgo.InteractionResponseDeferredChannelMessageWithSource {
			data = &patch{} // only flags count, below
		}
		msg, e := s.compose(data, files, st.channelID, st.guildID, msgType, true)
		if e != nil {
			return reject(e)
		}
		if body.Data.Flags != nil {
			msg.Flags = *body.Data.Flags
		}
		msg.Flags &= discordgo.MessageFlagsEphemeral | discordgo.MessageFlagsSuppressEmbeds | discordgo.MessageFlagsSuppressNotifications | discordgo.MessageFlagsIsComponentsV2
		if body.Type == discordgo.InteractionResponseDeferredChannelMessageWithSource {
			msg.Flags = msg.Flags&discordgo.MessageFlagsEphemeral | discordgo.MessageFlagsLoading
		} else if e := validateMessage("data.", msg); e != nil {
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
	}

	st.response = bytes.Clone(payload)
	if kindMsg != nil {
		raw := s.storeLocked(kindMsg, msgToken)
		s.recordLocked(InteractionResponseMessage, st.id, kindMsg, raw, payload)
	}
	s.notifyLocked()
	return nil
}

// checkResponseType rejects response types Discord does not accept for
// the interaction's type. The fake knows no modal: a MODAL response (type
// 9) is refused as invalid too.
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
	if st == nil && s.cfg.resolve != nil {
		st = s.resolveLocked(r.PathValue("token"))
	}
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
	s.awaitDelivery(r)
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
	if st.userInstallOnly && st.followups >= maxUserInstallFollowups {
		writeAPIError(w, errMaxFollowups)
		return
	}
	msg, apiErr := s.compose(patch, files, st.channelID, st.guildID, discordgo.MessageTypeDefault, true)
	if apiErr != nil {
		writeAPIError(w, apiErr)
		return
	}
	msg.Flags &= discordgo.MessageFlagsEphemeral | discordgo.MessageFlagsSuppressEmbeds | discordgo.MessageFlagsSuppressNotifications | discordgo.MessageFlagsIsComponentsV2
	if apiErr := validateMessage("", msg); apiErr != nil {
		writeAPIError(w, apiErr)
		return
	}
	st.followups++
	raw := s.storeLocked(msg, st.token)
	s.recordLocked(FollowupMessageCreate, st.id, msg, raw, payload)
	writeRaw(w, raw)
}

func (s *Server) webhookMessageGet(w http.ResponseWriter, r *http.Request) {
	s.awaitDelivery(r)
	s.mu.Lock()
	_, m, apiErr := s.webhookMessageLocked(r)
	s.mu.Unlock()
	if apiErr != nil {
		writeAPIError(w, apiErr)
		return
	}
	writeRaw(w, m.raw)
}

func (s *Server) webhookMessageEdit(w http.ResponseWriter, r *http.Request) {
	s.awaitDelivery(r)
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
	s.recordLocked(WebhookMessageEdit, st.id, msg, raw, payload)
	writeRaw(w, raw)
}

// webhookMessageDelete handles DELETE
// /webhooks/{app}/{token}/messages/{msg} (discordgo's
// Session.WebhookMessageDelete, InteractionResponseDelete and
// FollowupMessageDelete), Delete Original Interaction Response when msg is
// "@original" and Delete Followup Message otherwise
// (https://discord.com/developers/docs/interactions/receiving-and-responding#delete-original-interaction-response):
// the message is deleted (Message then returns nil, ChannelMessages leaves
// it out, and later gets, edits and deletes of it get 10008), the deletion
// is recorded as WebhookMessageDelete with the message as it was, and it
// answers 204 No Content. Like the other webhook routes, it answers 10015
// for an unknown webhook or an interaction not answered yet, 401 50027
// once the token has expired, and 404 {"message": "Unknown Message",
// "code": 10008} for a message that is not the interaction's (or no longer
// exists).
func (s *Server) webhookMessageDelete(w http.ResponseWriter, r *http.Request) {
	s.awaitDelivery(r)
	s.mu.Lock()
	defer s.mu.Unlock()
	st, old, apiErr := s.webhookMessageLocked(r)
	if apiErr != nil {
		writeAPIError(w, apiErr)
		return
	}
	delete(s.messages, old.id)
	s.recordLocked(WebhookMessageDelete, st.id, decodeMessage(old.raw), old.raw, nil)
	w.WriteHeader(http.StatusNoContent)
}

// resolveLocked asks WithResolver's function about token, and remembers
// what it says as an interaction answered now whose @original is known by
// its ID and channel; nil when the token is unknown. s.mu must be held.
func (s *Server) resolveLocked(token string) *interactionState {
	channelID, originalID, ok := s.cfg.resolve(token)
	if !ok {
		return nil
	}
	st := &interactionState{token: token, channelID: channelID, created: s.now(), response: []byte("{}"), originalID: originalID}
	s.byToken[token] = st
	if originalID != "" && s.messages[originalID] == nil {
		m := &discordgo.Message{ID: originalID, ChannelID: channelID, Author: s.BotUser(), Type: discordgo.MessageTypeChatInputCommand,
			Timestamp: s.now().UTC()}
		s.messages[originalID] = &storedMessage{id: originalID, raw: encodeMessage(m), channelID: channelID, authorID: m.Author.ID, token: token}
	}
	return st
}
