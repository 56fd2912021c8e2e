package wire

import (
	"encoding/json"

	"github.com/bwmarrin/discordgo"
	fastjson "github.com/segmentio/encoding/json"
)

// The HTTP endpoint answers every click with a response that holds up to
// five rows of buttons. discordgo marshals each row and each button through
// its own MarshalJSON, which encoding/json then validates and compacts
// again: a noticeable share of the server's CPU per click (docs/load.md has
// the measurements). AppendResponse writes the same bytes from plain
// structs instead (through github.com/segmentio/encoding/json, which
// honours encoding/json's tags and methods, as DecodeInteraction does to
// read an interaction for less than encoding/json costs).

// wireResponse is discordgo.InteractionResponse with plain components.
type wireResponse struct {
	Type discordgo.InteractionResponseType `json:"type,omitempty"`
	Data *wireData                         `json:"data,omitempty"`
}

// wireData is discordgo.InteractionResponseData, field for field and in
// the same order, with rows of buttons that need no MarshalJSON.
type wireData struct {
	TTS             bool                                        `json:"tts"`
	Content         string                                      `json:"content"`
	Components      []Row                                       `json:"components"`
	Embeds          []*discordgo.MessageEmbed                   `json:"embeds"`
	AllowedMentions *discordgo.MessageAllowedMentions           `json:"allowed_mentions,omitempty"`
	Attachments     *[]*discordgo.MessageAttachment             `json:"attachments,omitempty"`
	Poll            *discordgo.Poll                             `json:"poll,omitempty"`
	Flags           discordgo.MessageFlags                      `json:"flags,omitempty"`
	Choices         []*discordgo.ApplicationCommandOptionChoice `json:"choices,omitempty"`
	CustomID        string                                      `json:"custom_id,omitempty"`
	Title           string                                      `json:"title,omitempty"`
}

// Row is discordgo.ActionsRow as its MarshalJSON writes it, holding
// buttons only: encoded and decoded without discordgo's methods, which
// decode every component twice and encode each through encoding/json
// twice.
type Row struct {
	Components []Button                `json:"components"`
	ID         int                     `json:"id,omitempty"`
	Type       discordgo.ComponentType `json:"type"`
}

// Button is discordgo.Button as its MarshalJSON writes it: the button's
// fields (through button, which has no methods), then its type.
type Button struct {
	button
	Type discordgo.ComponentType `json:"type"`
}

// Discordgo returns b as the discordgo button it encodes.
func (b Button) Discordgo() discordgo.Button { return discordgo.Button(b.button) }

// button is discordgo.Button without its MarshalJSON.
type button discordgo.Button

// AppendResponse appends resp as JSON to b: the bytes encoding/json writes
// for it through discordgo's methods. A response with components other than
// rows of buttons (none of the bot's today) is encoded by encoding/json
// itself.
func AppendResponse(b []byte, resp *discordgo.InteractionResponse) ([]byte, error) {
	w, ok := toWire(resp)
	if !ok {
		out, err := json.Marshal(resp)
		return append(b, out...), err
	}
	return fastjson.Append(b, w, fastjson.EscapeHTML|fastjson.SortMapKeys)
}

// AppendMessage appends d as JSON to b: the body of a message that a
// webhook posts (Discord's Execute Webhook takes the fields of a
// response's data), as encoding/json writes d through discordgo's methods;
// components other than rows of buttons are encoded by encoding/json.
func AppendMessage(b []byte, d *discordgo.InteractionResponseData) ([]byte, error) {
	w, ok := toWire(&discordgo.InteractionResponse{Data: d})
	if !ok {
		out, err := json.Marshal(d)
		return append(b, out...), err
	}
	return fastjson.Append(b, w.Data, fastjson.EscapeHTML|fastjson.SortMapKeys)
}

// toWire converts resp, reporting false when a component is not a row of
// buttons.
func toWire(resp *discordgo.InteractionResponse) (*wireResponse, bool) {
	w := &wireResponse{Type: resp.Type}
	d := resp.Data
	if d == nil {
		return w, true
	}
	w.Data = &wireData{
		TTS: d.TTS, Content: d.Content, Embeds: d.Embeds, AllowedMentions: d.AllowedMentions,
		Attachments: d.Attachments, Poll: d.Poll, Flags: d.Flags, Choices: d.Choices,
		CustomID: d.CustomID, Title: d.Title,
	}
	rows, ok := Rows(d.Components)
	w.Data.Components = rows
	return w, ok
}

// Rows returns comps as rows of buttons, as discordgo's MarshalJSON
// writes them (a nil list stays nil), and false when one is not a row of
// buttons. The buttons of all the rows are copied into one slice: a board
// takes two allocations, not one more for each row.
func Rows(comps []discordgo.MessageComponent) ([]Row, bool) {
	if comps == nil {
		return nil, true
	}
	n := 0
	for _, c := range comps {
		row, ok := Component[discordgo.ActionsRow](c)
		if !ok {
			return nil, false
		}
		n += len(row.Components)
	}
	out := make([]Row, 0, len(comps))
	all := make([]Button, 0, n)
	for _, c := range comps {
		row, _ := Component[discordgo.ActionsRow](c)
		wr := Row{ID: row.ID, Type: discordgo.ActionsRowComponent}
		from := len(all)
		for _, b := range row.Components {
			btn, ok := Component[discordgo.Button](b)
			if !ok {
				return nil, false
			}
			if btn.Style == 0 {
				btn.Style = discordgo.PrimaryButton // as Button.MarshalJSON does
			}
			all = append(all, Button{button: button(btn), Type: discordgo.ButtonComponent})
		}
		if row.Components != nil {
			wr.Components = all[from:len(all):len(all)]
		}
		out = append(out, wr)
	}
	return out, true
}

// Component returns c as a T, whether it holds a T or a non-nil *T;
// false for anything else.
func Component[T any](c discordgo.MessageComponent) (T, bool) {
	switch v := any(c).(type) {
	case T:
		return v, true
	case *T:
		if v != nil {
			return *v, true
		}
	}
	var zero T
	return zero, false
}
