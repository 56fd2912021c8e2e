package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"unsafe"

	"github.com/bwmarrin/discordgo"
	fastjson "github.com/segmentio/encoding/json"
)

// interactionFields is discordgo.Interaction without its methods, to
// decode it field by field.
type interactionFields discordgo.Interaction

// messageRef is the part of the message a component was clicked on that
// the handler reads: which message it was.
type messageRef struct {
	ID        string `json:"id"`
	ChannelID string `json:"channel_id"`
}

// userRef is the part of the user who used an interaction that the
// handler reads: who it is and the name to show.
type userRef struct {
	ID         string `json:"id"`
	Username   string `json:"username"`
	GlobalName string `json:"global_name"`
}

// memberRef is the part of the member who used an interaction (in a
// server) that the handler reads: the user, their nickname there, their
// roles (a server may ask for one to play) and their permissions in the
// channel (the admins' command checks them).
type memberRef struct {
	User        *userRef `json:"user"`
	Nick        string   `json:"nick"`
	Roles       []string `json:"roles"`
	Permissions int64    `json:"permissions,string"`
}

func (u *userRef) user() *discordgo.User {
	if u == nil {
		return nil
	}
	return &discordgo.User{ID: u.ID, Username: u.Username, GlobalName: u.GlobalName}
}

// wireInteraction is an interaction as DecodeInteraction reads it.
type wireInteraction struct {
	interactionFields
	Data    json.RawMessage `json:"data"`
	Message *messageRef     `json:"message"`
	Member  *memberRef      `json:"member"`
	User    *userRef        `json:"user"`
}

// DecodeInteraction reads an interaction as Discord sends it to the
// endpoint, as discordgo's Interaction.UnmarshalJSON does (data decoded by
// the interaction's type) but with the message a component was clicked on
// reduced to its ID and channel, and the member or user who used it to
// their ID, names, roles and permissions: the handler works from the
// store, never from what a message shows, and a member's dates are never
// read. The message is skimmed (skimMessage), not decoded: its emoji and
// escaped lines were most of the time a click took to decode. The
// interaction's strings point into one copy of body (without the message),
// never into body itself, which the caller may reuse once
// DecodeInteraction returns (the HTTP server reads the next request into
// it). It returns an error for a body that is not a JSON object of the
// interaction's shape, or that has no type.
func DecodeInteraction(body []byte) (*discordgo.Interaction, error) {
	raw := rawInteractions.Get().(*wireInteraction)
	defer func() {
		*raw = wireInteraction{} // keeps no view of the request
		rawInteractions.Put(raw)
	}()
	rest, msg, skimmed := skimMessage(body)
	if skimmed {
		if err := unmarshal(rest, raw); err != nil {
			return nil, err
		}
		if raw.Message != nil {
			// A message the skim did not see: read the body whole.
			*raw, skimmed = wireInteraction{}, false
		} else {
			raw.Message = msg
		}
	}
	if !skimmed {
		if err := unmarshal(bytes.Clone(body), raw); err != nil {
			return nil, err
		}
	}
	if raw.Type == 0 {
		return nil, errors.New("no type")
	}
	i := discordgo.Interaction(raw.interactionFields)
	if raw.Message != nil {
		i.Message = &discordgo.Message{ID: raw.Message.ID, ChannelID: raw.Message.ChannelID}
	}
	if raw.Member != nil {
		i.Member = &discordgo.Member{User: raw.Member.User.user(), Nick: raw.Member.Nick, Roles: raw.Member.Roles,
			Permissions: raw.Member.Permissions}
	}
	i.User = raw.User.user()
	var err error
	switch i.Type {
	case discordgo.InteractionApplicationCommand, discordgo.InteractionApplicationCommandAutocomplete:
		var d discordgo.ApplicationCommandInteractionData
		err = unmarshalData(raw.Data, &d)
		i.Data = d
	case discordgo.InteractionMessageComponent:
		var d discordgo.MessageComponentInteractionData
		err = unmarshalData(raw.Data, &d)
		i.Data = d
	case discordgo.InteractionModalSubmit:
		var d discordgo.ModalSubmitInteractionData
		err = unmarshalData(raw.Data, &d)
		i.Data = d
	}
	if err != nil {
		return nil, fmt.Errorf("data: %w", err)
	}
	return &i, nil
}

// rawInteractions holds the structs interactions are decoded into, reused:
// one is as large as the interaction it becomes, and a click needs it only
// while it is decoded.
var rawInteractions = sync.Pool{New: func() any { return new(wireInteraction) }}

// skimMessage finds the members named "message" (as encoding/json matches
// names: without regard to case) at the top level of the JSON object body,
// without decoding their values, and returns a copy of body with each of
// their values replaced by null, and the message the last of them names
// (discordgo's Message.UnmarshalJSON replaces a message whole): nil for
// null, else its "id" and "channel_id". Nothing returned points into body:
// the IDs are kept in the copy's buffer, after its JSON. It reports false,
// for the body to be decoded whole, when body is not an object or has no
// message (or more than two), when a name in it is escaped (the skim
// compares names as they are written), when a message is not an object or
// null, or when an ID does not decode as a string.
//
// The skim passes over a value by finding its end (a string by its
// closing quote, found with bytes.IndexByte) where a decoder reads every
// byte of every string, and goes over the message once; it assumes the
// JSON is valid, which the decoding of what is left of the body then
// checks but for the inside of the message.
func skimMessage(body []byte) (rest []byte, msg *messageRef, ok bool) {
	type span struct{ start, end int }
	var (
		spans  [2]span
		nspans int
	)
	at := skipSpace(body, 0)
	if at >= len(body) || body[at] != '{' {
		return nil, nil, false
	}
	at = skipSpace(body, at+1)
	if at < len(body) && body[at] == '}' {
		return nil, nil, false // an empty object: no message
	}
	for {
		key, end, ok := member(body, at)
		if !ok {
			return nil, nil, false
		}
		at = end
		if !strings.EqualFold(unsafeString(key), "message") {
			if at, ok = skipValue(body, at); !ok {
				return nil, nil, false
			}
		} else {
			if nspans == len(spans) {
				return nil, nil, false
			}
			if at < len(body) && body[at] == '{' {
				msg, end, ok = skimObject(body, at)
			} else {
				msg = nil
				end, ok = skipValue(body, at)
				ok = ok && unsafeString(body[at:end]) == "null"
			}
			if !ok {
				return nil, nil, false
			}
			spans[nspans] = span{at, end}
			nspans++
			at = end
		}
		at = skipSpace(body, at)
		if at >= len(body) {
			return nil, nil, false
		}
		if body[at] == '}' {
			break
		}
		if body[at] != ',' {
			return nil, nil, false
		}
		at = skipSpace(body, at+1)
	}
	if nspans == 0 {
		return nil, nil, false
	}
	size := len(body)
	for _, s := range spans[:nspans] {
		size -= s.end - s.start - len("null")
	}
	extra := 0
	if msg != nil {
		extra = len(msg.ID) + len(msg.ChannelID)
	}
	rest = make([]byte, 0, size+extra)
	from := 0
	for _, s := range spans[:nspans] {
		rest = append(append(rest, body[from:s.start]...), "null"...)
		from = s.end
	}
	rest = append(rest, body[from:]...)
	if msg != nil {
		// The IDs after the JSON, in the same buffer: views of body
		// (digits between quotes) must not outlive it.
		n := len(rest)
		tail := append(append(rest, msg.ID...), msg.ChannelID...)
		msg.ID = unsafeString(tail[n : n+len(msg.ID)])
		msg.ChannelID = unsafeString(tail[n+len(msg.ID) : n+extra])
	}
	return rest, msg, true
}

// skimObject reads the message object that starts at body[at] == '{': its
// "id" and "channel_id" (names matched as encoding/json does, without
// regard to case; the last of each wins, null leaves it as it was), the
// other members passed over. It returns the index after the object, and
// false when a name is escaped or an ID is not a string.
func skimObject(body []byte, at int) (msg *messageRef, end int, ok bool) {
	msg = new(messageRef)
	at = skipSpace(body, at+1)
	if at < len(body) && body[at] == '}' {
		return msg, at + 1, true
	}
	for {
		key, end, ok := member(body, at)
		if !ok {
			return nil, 0, false
		}
		at = end
		if end, ok = skipValue(body, at); !ok {
			return nil, 0, false
		}
		var into *string
		switch k := unsafeString(key); {
		case strings.EqualFold(k, "id"):
			into = &msg.ID
		case strings.EqualFold(k, "channel_id"):
			into = &msg.ChannelID
		}
		if into != nil && !decodeString(unsafeString(body[at:end]), into) {
			return nil, 0, false
		}
		at = skipSpace(body, end)
		if at >= len(body) {
			return nil, 0, false
		}
		if body[at] == '}' {
			return msg, at + 1, true
		}
		if body[at] != ',' {
			return nil, 0, false
		}
		at = skipSpace(body, at+1)
	}
}

// member reads the name of an object's member that starts at body[at] (a
// string, then a colon), returning the name as written between its quotes
// and the index of the value after the colon; false when there is no name
// there or the name is escaped.
func member(body []byte, at int) (key []byte, value int, ok bool) {
	if at >= len(body) || body[at] != '"' {
		return nil, 0, false
	}
	end, ok := skipString(body, at)
	if !ok {
		return nil, 0, false
	}
	key = body[at+1 : end-1]
	if bytes.IndexByte(key, '\\') >= 0 {
		return nil, 0, false
	}
	at = skipSpace(body, end)
	if at >= len(body) || body[at] != ':' {
		return nil, 0, false
	}
	return key, skipSpace(body, at+1), true
}

// skipSpace returns the index of the first byte of body from at that is
// not JSON whitespace.
func skipSpace(body []byte, at int) int {
	for at < len(body) {
		switch body[at] {
		case ' ', '\t', '\n', '\r':
			at++
		default:
			return at
		}
	}
	return at
}

// skipString returns the index after the string that starts at
// body[at] == '"': after the first quote not escaped by a backslash.
func skipString(body []byte, at int) (int, bool) {
	from := at + 1
	for {
		k := bytes.IndexByte(body[from:], '"')
		if k < 0 {
			return 0, false
		}
		q := from + k
		n := 0 // backslashes right before the quote
		for p := q - 1; p > at && body[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return q + 1, true
		}
		from = q + 1
	}
}

// skipValue returns the index after the JSON value that starts at
// body[at]: a string, an object or array (its strings passed over whole,
// its brackets counted), or a literal or number (up to the next
// delimiter). It reports false when the value does not end.
func skipValue(body []byte, at int) (int, bool) {
	if at >= len(body) {
		return 0, false
	}
	switch body[at] {
	case '"':
		return skipString(body, at)
	case '{', '[':
		depth := 0
		for at < len(body) {
			switch body[at] {
			case '"':
				end, ok := skipString(body, at)
				if !ok {
					return 0, false
				}
				at = end
				continue
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return at + 1, true
				}
			}
			at++
		}
		return 0, false
	}
	start := at
	for at < len(body) {
		switch body[at] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return at, at > start
		}
		at++
	}
	return at, at > start
}

// unsafeString returns a view of b as a string, not a copy: b must not
// change while the string is in use.
func unsafeString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// decodeString decodes the JSON value v into *into as encoding/json decodes
// into a string (null leaves it as it was), and reports whether it could:
// an ID (digits in quotes) directly, anything else through the decoder.
func decodeString(v string, into *string) bool {
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' && strings.Trim(v[1:len(v)-1], "0123456789") == "" {
		*into = v[1 : len(v)-1] // points into v: skimMessage copies it
		return true
	}
	return fastjson.Unmarshal([]byte(v), into) == nil
}

// unmarshalData decodes an interaction's data into v; absent data leaves v
// empty, as discordgo does with null.
func unmarshalData(data json.RawMessage, v any) error {
	if len(data) == 0 {
		return nil
	}
	return unmarshal(data, v)
}

// unmarshal decodes the JSON value b into v as fastjson.Unmarshal does but
// without copying: the strings decoded point into b, which must not change
// while they are in use. DecodeInteraction decodes a request's own buffer,
// or its copy of it, and nothing writes to either afterwards.
func unmarshal(b []byte, v any) error {
	r, err := fastjson.Parse(b, v, fastjson.ZeroCopy)
	if err == nil && len(r) != 0 {
		return fmt.Errorf("invalid character %q after the JSON value", r[0])
	}
	return err
}

// MessageID returns the "id" of the message object body, as Discord
// answers a follow-up (wait=true) or a read of a message: the one field the
// bot reads of it. The rest (the board's embeds and buttons, which
// discordgo's Message decodes through their own methods) is passed over,
// not decoded. It returns an error for a body that is not a JSON object,
// or whose id is not a string.
func MessageID(body []byte) (string, error) {
	var m struct {
		ID string `json:"id"`
	}
	if err := fastjson.Unmarshal(body, &m); err != nil {
		return "", err
	}
	return m.ID, nil
}
