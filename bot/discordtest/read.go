package discordtest

import (
	"encoding/json"
	"fmt"

	"github.com/bwmarrin/discordgo"
)

// DecodeResponse reads the JSON of an interaction response, as a bot
// answers an Interactions Endpoint URL or POSTs it to the callback route,
// into a *discordgo.InteractionResponse with its components decoded
// (discordgo.MessageComponentFromJSON), which json.Unmarshal alone cannot
// do. It returns an error when body is not such JSON.
func DecodeResponse(body []byte) (*discordgo.InteractionResponse, error) {
	type data discordgo.InteractionResponseData
	var v struct {
		Type discordgo.InteractionResponseType `json:"type"`
		Data *struct {
			data
			Components []json.RawMessage `json:"components"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &v); err != nil {
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

// Buttons returns the buttons of the action rows in components, in order,
// whether the rows and buttons are values (as a bot builds them) or
// pointers (as DecodeResponse and discordgo decode them).
func Buttons(components []discordgo.MessageComponent) []*discordgo.Button {
	var out []*discordgo.Button
	for _, row := range components {
		var inner []discordgo.MessageComponent
		switch r := row.(type) {
		case discordgo.ActionsRow:
			inner = r.Components
		case *discordgo.ActionsRow:
			inner = r.Components
		}
		for _, c := range inner {
			switch b := c.(type) {
			case discordgo.Button:
				out = append(out, &b)
			case *discordgo.Button:
				out = append(out, b)
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
