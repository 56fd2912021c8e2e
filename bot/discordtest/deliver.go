package discordtest

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/bwmarrin/discordgo"
)

// deliverUserAgent is the User-Agent Discord sends to Interactions Endpoint
// URLs.
const deliverUserAgent = "Discord-Interactions/1.0 (+https://discord.com)"

// Deliver sends i to the bot's Interactions Endpoint URL endpoint, as
// Discord does in HTTP interactions mode, and applies the bot's answer.
//
// Like DispatchInteraction, it fills empty i.ID, i.Token, i.AppID and
// i.Version (and i.Message's ID and ChannelID) in place and remembers i and
// i.Message, so that the bot may also use the callback and webhook routes;
// the webhook token expires WebhookTokenLifetime after this call. No
// gateway connection is needed. The body is i as JSON, components
// included, POSTed with Content-Type application/json and signed as Discord
// signs it: X-Signature-Timestamp is the Server's clock in Unix seconds and
// X-Signature-Ed25519 the hex Ed25519 signature by key of the timestamp
// followed by the body, so a bot verifies it with
// discordgo.VerifyInteraction and the public half of key. ctx bounds the
// whole exchange; Discord's 3 seconds are not enforced.
//
// On a 200 answer, the body (JSON, or multipart with payload_json and
// files) is decoded as the interaction response and applied exactly as
// POST /interactions/{id}/{token}/callback would apply it: the same
// validation, the same message creation or update, recorded as
// InteractionResponseMessage and seen by Messages, WaitMessage,
// WaitResponse and ChannelMessages. Deliver then returns the decoded
// response.
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
	timestamp := strconv.FormatInt(s.now().Unix(), 10)
	sig := ed25519.Sign(key, append([]byte(timestamp), body...))

	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("discordtest: deliver interaction %s: %w", i.ID, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", deliverUserAgent)
	req.Header.Set("X-Signature-Ed25519", hex.EncodeToString(sig))
	req.Header.Set("X-Signature-Timestamp", timestamp)
	resp, err := (&http.Client{Transport: s.base}).Do(req)
	if err != nil {
		return nil, fmt.Errorf("discordtest: deliver interaction %s: %w", i.ID, err)
	}
	defer resp.Body.Close()
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
	ir, err := decodeInteractionResponse(payload)
	if err != nil {
		return nil, fmt.Errorf("discordtest: deliver interaction %s: answer %q: %w", i.ID, excerpt(raw), err)
	}
	if e := s.respond(i.ID, i.Token, payload, files); e != nil {
		return ir, fmt.Errorf("discordtest: response to interaction %s rejected: %w", i.ID, e.clone())
	}
	return ir, nil
}

// excerpt returns raw, cut to its first KiB for an error message.
func excerpt(raw []byte) []byte {
	const limit = 1 << 10
	if len(raw) > limit {
		return append(raw[:limit:limit], "..."...)
	}
	return raw
}
