package discordtest

import (
	"encoding/json"
	"fmt"

	"github.com/bwmarrin/discordgo"
	fastjson "github.com/segmentio/encoding/json"
)

// DecodeResponse reads the JSON of an interaction response, as a bot
// answers an Interactions Endpoint URL or POSTs it to the callback route,
// into a *discordgo.InteractionResponse with its components decoded (as
// discordgo.MessageComponentFromJSON decodes them: rows and buttons as
// pointers), which json.Unmarshal alone cannot do. It returns an error
// when body is not such JSON. Rows of buttons are read in one pass, fast
// enough for a load generator; other components through
// MessageComponentFromJSON.
func DecodeResponse(body []byte) (*discordgo.InteractionResponse, error) {
	type data discordgo.InteractionResponseData
	var v struct {
		Type discordgo.InteractionResponseType `json:"type"`
		Data *struct {
			data
			Components json.RawMessage `json:"components"`
		} `json:"data"`
	}
	if err := fastjson.Unmarshal(body, &v); err != nil {
		return nil, fmt.Errorf("discordtest: decode interaction response: %w", err)
	}
	resp := &discordgo.InteractionResponse{Type: v.Type}
	if v.Data != nil {
		d := discordgo.InteractionResponseData(v.Data.data)
		var err error
		if d.Components, err = decodeComponents(v.Data.Components); err != nil {
			return nil, fmt.Errorf("discordtest: decode interaction response: %w", err)
		}
		resp.Data = &d
	}
	return resp, nil
}

// decodeComponents decodes a JSON list of components (nil for none, or
// for null), rows of buttons in one pass.
func decodeComponents(raw json.RawMessage) ([]discordgo.MessageComponent, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	var rows []plainRow
	if err := fastjson.Unmarshal(raw, &rows); err == nil {
		if comps := fromPlain(rows); comps != nil || len(rows) == 0 {
			return comps, nil
		}
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(raw, &raws); err != nil {
		return nil, err
	}
	comps := make([]discordgo.MessageComponent, 0, len(raws))
	for _, c := range raws {
		mc, err := discordgo.MessageComponentFromJSON(c)
		if err != nil {
			return nil, err
		}
		comps = append(comps, mc)
	}
	return comps, nil
}

// Buttons returns the buttons of the action rows in components, in order,
// whether the rows and buttons are values (as a bot builds them) or
// pointers (as DecodeResponse and discordgo decode them).
func Buttons(components []discordgo.MessageComponent) []*discordgo.Button {
	var out []*discordgo.Button
	for _, row := range components {
		r, ok := component[discordgo.ActionsRow](row)
		if !ok {
			continue
		}
		for _, c := range r.Components {
			if b, ok := c.(*discordgo.Button); ok {
				out = append(out, b)
			} else if b, ok := component[discordgo.Button](c); ok {
				out = append(out, &b)
			}
		}
	}
	return out
}

// FindButton returns the first button of components labelled label, nil
// when there is none.
func FindButton(components []discordgo.MessageComponent, label string) *discordgo.Button {
	for _, b := range Buttons(components) {
		if b.Label == label {
			return b
		}
	}
	return nil
}

// plainRow is an action row of buttons as its JSON reads, decoded and
// encoded without discordgo's methods, which decode every component twice
// and encode each through encoding/json twice.
type plainRow struct {
	Components []plainButton           `json:"components"`
	ID         int                     `json:"id,omitempty"`
	Type       discordgo.ComponentType `json:"type"`
}

// plainButton is discordgo.Button as its MarshalJSON writes it.
type plainButton struct {
	button
	Type discordgo.ComponentType `json:"type"`
}

// button is discordgo.Button without its methods.
type button discordgo.Button

// toPlain returns comps as plain rows, or nil when they are not all rows
// of buttons.
func toPlain(comps []discordgo.MessageComponent) []plainRow {
	rows := make([]plainRow, 0, len(comps))
	for _, c := range comps {
		r, ok := component[discordgo.ActionsRow](c)
		if !ok {
			return nil
		}
		pr := plainRow{ID: r.ID, Type: discordgo.ActionsRowComponent, Components: make([]plainButton, 0, len(r.Components))}
		for _, bc := range r.Components {
			b, ok := component[discordgo.Button](bc)
			if !ok {
				return nil
			}
			if b.Style == 0 {
				b.Style = discordgo.PrimaryButton // as Button.MarshalJSON does
			}
			pr.Components = append(pr.Components, plainButton{button(b), discordgo.ButtonComponent})
		}
		rows = append(rows, pr)
	}
	return rows
}

// fromPlain returns rows as discordgo components, or nil when one is not
// a row of buttons.
func fromPlain(rows []plainRow) []discordgo.MessageComponent {
	var out []discordgo.MessageComponent
	for _, r := range rows {
		if r.Type != discordgo.ActionsRowComponent {
			return nil
		}
		row := &discordgo.ActionsRow{ID: r.ID, Components: make([]discordgo.MessageComponent, 0, len(r.Components))}
		for _, b := range r.Components {
			if b.Type != discordgo.ButtonComponent {
				return nil
			}
			btn := discordgo.Button(b.button)
			row.Components = append(row.Components, &btn)
		}
		out = append(out, row)
	}
	return out
}

// component returns c as a T, whether it holds a T or a non-nil *T; false
// for anything else.
func component[T any](c discordgo.MessageComponent) (T, bool) {
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
