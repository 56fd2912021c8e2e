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
	"github.com/tidwall/gjson"
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
// message, when a name in it is escaped (the skim compares names as they
// are written), when a message is not an object or null, or when an ID
// does not decode as a string.
//
// The skim is gjson's iteration, which passes over a value by finding its
// end (strings by their closing quote) where a decoder reads every byte of
// every string; it assumes the JSON is valid, which the decoding of what
// is left of the body then checks but for the inside of the message.
func skimMessage(body []byte) (rest []byte, msg *messageRef, ok bool) {
	if len(body) == 0 {
		return nil, nil, false
	}
	// A view of body, not a copy: body is not changed while the results,
	// which point into it, are read.
	top := gjson.Parse(unsafe.String(unsafe.SliceData(body), len(body)))
	if !top.IsObject() {
		return nil, nil, false
	}
	type span struct{ start, end int }
	var (
		spans  [2]span // a click's body has one message
		nspans int
	)
	ok = true
	top.ForEach(func(k, v gjson.Result) bool {
		if strings.IndexByte(k.Raw, '\\') >= 0 {
			ok = false
			return false
		}
		if !strings.EqualFold(k.Str, "message") {
			return true
		}
		if v.Index <= 0 || v.Index+len(v.Raw) > len(body) || nspans == len(spans) {
			ok = false
			return false
		}
		spans[nspans] = span{v.Index, v.Index + len(v.Raw)}
		nspans++
		switch {
		case v.Raw == "null":
			msg = nil
		case v.IsObject():
			msg = new(messageRef)
			v.ForEach(func(k, v gjson.Result) bool {
				var into *string
				switch {
				case strings.IndexByte(k.Raw, '\\') >= 0:
					ok = false
				case strings.EqualFold(k.Str, "id"):
					into = &msg.ID
				case strings.EqualFold(k.Str, "channel_id"):
					into = &msg.ChannelID
				}
				if into != nil && !decodeString(v.Raw, into) {
					ok = false
				}
				return ok
			})
		default:
			ok = false
		}
		return ok
	})
	if !ok || nspans == 0 {
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
		tail := append(append(rest, msg.ID...), msg.ChannelID...)[n:]
		ids := unsafe.String(unsafe.SliceData(tail), len(tail))
		msg.ID, msg.ChannelID = ids[:len(msg.ID)], ids[len(msg.ID):]
	}
	return rest, msg, true
}

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
