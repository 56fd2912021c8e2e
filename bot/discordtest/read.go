package discordtest

import (
	"encoding/json"
	"fmt"

	"github.com/bwmarrin/discordgo"
	fastjson "github.com/segmentio/encoding/json"

	"github.com/connectn/connectn/bot/internal/wire"
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
	var rows []wire.Row
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
		r, ok := wire.Component[discordgo.ActionsRow](row)
		if !ok {
			continue
		}
		for _, c := range r.Components {
			if b, ok := c.(*discordgo.Button); ok {
				out = append(out, b)
			} else if b, ok := wire.Component[discordgo.Button](c); ok {
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

// toPlain returns comps as rows of buttons (wire.Rows: encoded without
// discordgo's methods), every row's list of buttons a list, or nil when
// they are not all rows of buttons.
func toPlain(comps []discordgo.MessageComponent) []wire.Row {
	rows, ok := wire.Rows(comps)
	if !ok {
		return nil
	}
	if rows == nil {
		rows = []wire.Row{}
	}
	for k := range rows {
		if rows[k].Components == nil {
			rows[k].Components = []wire.Button{}
		}
	}
	return rows
}

// fromPlain returns rows as discordgo components, or nil when one is not
// a row of buttons.
func fromPlain(rows []wire.Row) []discordgo.MessageComponent {
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
			btn := b.Discordgo()
			row.Components = append(row.Components, &btn)
		}
		out = append(out, row)
	}
	return out
}
