package discordtest_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot/discordtest"
)

// fieldCodes flattens the field errors of a 50035 error: path → codes.
func fieldCodes(e *discordtest.APIError) map[string]string {
	out := map[string]string{}
	var walk func(path string, node map[string]any)
	walk = func(path string, node map[string]any) {
		for k, v := range node {
			if k == "_errors" {
				for _, fe := range v.([]any) {
					switch fe := fe.(type) {
					case map[string]string: // as the fake builds it
						out[path] += fe["code"] + " "
					case map[string]any: // as JSON decodes it
						out[path] += fe["code"].(string) + " "
					}
				}
				continue
			}
			p := k
			if path != "" {
				p = path + "." + k
			}
			walk(p, v.(map[string]any))
		}
	}
	walk("", e.Errors)
	for k, v := range out {
		out[k] = strings.TrimSpace(v)
	}
	return out
}

// limitCase is a message or a bulk overwrite at one of Discord's limits
// (ok) or just over it, and the field error that must come with the
// latter.
type limitCase struct {
	kind string // the limitTable row it tests; "" for a rule that is not a size
	name string
	ok   bool
	path string // the field of the error, for !ok
	code string
}

func text(n int) string { return strings.Repeat("é", n) } // counted in characters, not bytes

func rows(n, buttons int, button func(r, b int) discordgo.Button) []discordgo.MessageComponent {
	var out []discordgo.MessageComponent
	for r := range n {
		var row []discordgo.MessageComponent
		for b := range buttons {
			row = append(row, button(r, b))
		}
		out = append(out, discordgo.ActionsRow{Components: row})
	}
	return out
}

func plain(r, b int) discordgo.Button {
	return discordgo.Button{Label: fmt.Sprint(b), CustomID: fmt.Sprintf("r%db%d", r, b)}
}

func TestMessageLimits(t *testing.T) {
	srv := newServer(t)
	var mu sync.Mutex
	var answer *discordgo.InteractionResponseData
	pub, priv := newKey(0)
	url, _ := startEndpoint(t, pub, func(i *discordgo.Interaction) (int, string) {
		mu.Lock()
		defer mu.Unlock()
		return answerJSON(discordgo.InteractionResponse{Type: discordgo.InteractionResponseChannelMessageWithSource, Data: answer})(i)
	})
	embeds := func(n int, e discordgo.MessageEmbed) []*discordgo.MessageEmbed {
		var out []*discordgo.MessageEmbed
		for range n {
			cp := e
			out = append(out, &cp)
		}
		return out
	}
	button := func(b discordgo.Button) []discordgo.MessageComponent {
		return []discordgo.MessageComponent{discordgo.ActionsRow{Components: []discordgo.MessageComponent{b}}}
	}
	tests := []struct {
		limitCase
		data discordgo.InteractionResponseData
	}{
		{limitCase{"content", "2000 characters", true, "", ""}, discordgo.InteractionResponseData{Content: text(2000)}},
		{limitCase{"content", "2001 characters", false, "data.content", "BASE_TYPE_MAX_LENGTH"}, discordgo.InteractionResponseData{Content: text(2001)}},
		{limitCase{"embeds", "10 embeds", true, "", ""}, discordgo.InteractionResponseData{Embeds: embeds(10, discordgo.MessageEmbed{Title: "x"})}},
		{limitCase{"embeds", "11 embeds", false, "data.embeds", "BASE_TYPE_MAX_LENGTH"}, discordgo.InteractionResponseData{Embeds: embeds(11, discordgo.MessageEmbed{Title: "x"})}},
		{limitCase{"embed.title", "title of 256", true, "", ""}, discordgo.InteractionResponseData{Embeds: embeds(1, discordgo.MessageEmbed{Title: text(256)})}},
		{limitCase{"embed.title", "title of 257", false, "data.embeds.0.title", "BASE_TYPE_MAX_LENGTH"}, discordgo.InteractionResponseData{Embeds: embeds(1, discordgo.MessageEmbed{Title: text(257)})}},
		{limitCase{"embed.description", "description of 4096", true, "", ""}, discordgo.InteractionResponseData{Embeds: embeds(1, discordgo.MessageEmbed{Description: text(4096)})}},
		{limitCase{"embed.description", "description of 4097", false, "data.embeds.0.description", "BASE_TYPE_MAX_LENGTH"}, discordgo.InteractionResponseData{Embeds: embeds(1, discordgo.MessageEmbed{Description: text(4097)})}},
		{limitCase{"embed.footer.text", "footer of 2048", true, "", ""}, discordgo.InteractionResponseData{Embeds: embeds(1, discordgo.MessageEmbed{Footer: &discordgo.MessageEmbedFooter{Text: text(2048)}})}},
		{limitCase{"embed.footer.text", "footer of 2049", false, "data.embeds.0.footer.text", "BASE_TYPE_MAX_LENGTH"}, discordgo.InteractionResponseData{Embeds: embeds(1, discordgo.MessageEmbed{Footer: &discordgo.MessageEmbedFooter{Text: text(2049)}})}},
		{limitCase{"embeds.characters", "6000 characters in all embeds", true, "", ""}, discordgo.InteractionResponseData{Embeds: []*discordgo.MessageEmbed{
			{Description: text(4096)}, {Description: text(1900), Footer: &discordgo.MessageEmbedFooter{Text: text(4)}}}}},
		{limitCase{"embeds.characters", "6001 characters in all embeds", false, "data.embeds", "MAX_EMBED_SIZE_EXCEEDED"}, discordgo.InteractionResponseData{Embeds: []*discordgo.MessageEmbed{
			{Description: text(4096)}, {Description: text(1900), Footer: &discordgo.MessageEmbedFooter{Text: text(5)}}}}},
		{limitCase{"components", "5 rows", true, "", ""}, discordgo.InteractionResponseData{Components: rows(5, 5, plain)}},
		{limitCase{"components", "6 rows", false, "data.components", "BASE_TYPE_MAX_LENGTH"}, discordgo.InteractionResponseData{Components: rows(6, 1, plain)}},
		{limitCase{"row.components", "5 buttons in a row", true, "", ""}, discordgo.InteractionResponseData{Components: rows(1, 5, plain)}},
		{limitCase{"row.components", "6 buttons in a row", false, "data.components.0.components", "BASE_TYPE_BAD_LENGTH"}, discordgo.InteractionResponseData{Components: rows(1, 6, plain)}},
		{limitCase{"row.components", "an empty row", false, "data.components.0.components", "BASE_TYPE_BAD_LENGTH"}, discordgo.InteractionResponseData{Content: "x", Components: rows(1, 0, plain)}},
		{limitCase{"button.custom_id", "custom_id of 100", true, "", ""}, discordgo.InteractionResponseData{Components: button(discordgo.Button{Label: "1", CustomID: text(100)})}},
		{limitCase{"button.custom_id", "custom_id of 101", false, "data.components.0.components.0.custom_id", "BASE_TYPE_BAD_LENGTH"}, discordgo.InteractionResponseData{Components: button(discordgo.Button{Label: "1", CustomID: text(101)})}},
		{limitCase{"button.custom_id", "no custom_id", false, "data.components.0.components.0.custom_id", "BASE_TYPE_BAD_LENGTH"}, discordgo.InteractionResponseData{Components: button(discordgo.Button{Label: "1"})}},
		{limitCase{"button.label", "label of 80", true, "", ""}, discordgo.InteractionResponseData{Components: button(discordgo.Button{Label: text(80), CustomID: "x"})}},
		{limitCase{"button.label", "label of 81", false, "data.components.0.components.0.label", "BASE_TYPE_MAX_LENGTH"}, discordgo.InteractionResponseData{Components: button(discordgo.Button{Label: text(81), CustomID: "x"})}},
		{limitCase{"", "a custom_id twice", false, "data.components.1.components.0.custom_id", "COMPONENT_CUSTOM_ID_DUPLICATED"}, discordgo.InteractionResponseData{Components: rows(2, 1, func(r, b int) discordgo.Button { return discordgo.Button{Label: "x", CustomID: "same"} })}},
		{limitCase{"", "a button without label or emoji", false, "data.components.0.components.0", "BUTTON_COMPONENT_LABEL_OR_EMOJI_REQUIRED"}, discordgo.InteractionResponseData{Components: button(discordgo.Button{CustomID: "x"})}},
		{limitCase{"", "an emoji for a label", true, "", ""}, discordgo.InteractionResponseData{Components: button(discordgo.Button{CustomID: "x", Emoji: &discordgo.ComponentEmoji{Name: "🔴"}})}},
		{limitCase{"", "a link button", false, "data.components.0.components.0.type", "UNION_TYPE_CHOICES"}, discordgo.InteractionResponseData{Components: button(discordgo.Button{Label: "site", Style: discordgo.LinkButton, URL: "https://example.com"})}},
		{limitCase{"", "a select menu", false, "data.components.0.components.0.type", "UNION_TYPE_CHOICES"}, discordgo.InteractionResponseData{Components: []discordgo.MessageComponent{
			discordgo.ActionsRow{Components: []discordgo.MessageComponent{discordgo.SelectMenu{CustomID: "m", Options: []discordgo.SelectMenuOption{{Label: "a", Value: "a"}}}}}}}},
		{limitCase{"", "nothing at all", false, "", ""}, discordgo.InteractionResponseData{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mu.Lock()
			answer = &tt.data
			mu.Unlock()
			_, err := srv.DeliverJSON(waitCtx(t), url, priv, discordtest.Slash(envelope(), "play", ""))
			checkLimit(t, tt.limitCase, err)
		})
	}
	coverKinds(t, "message", tests, func(k int) limitCase { return tests[k].limitCase })
}

// checkLimit checks err against tc.
func checkLimit(t *testing.T, tc limitCase, err error) {
	t.Helper()
	var apiErr *discordtest.APIError
	switch {
	case tc.ok && err != nil:
		t.Fatalf("refused: %v", err)
	case tc.ok:
	case !errors.As(err, &apiErr):
		t.Fatalf("accepted (%v), want a Discord error", err)
	case tc.path == "" && tc.code == "":
		if apiErr.Code != 50006 {
			t.Errorf("code %d, want 50006 (empty message)", apiErr.Code)
		}
	case apiErr.Code != 50035 || apiErr.Status != http.StatusBadRequest:
		t.Errorf("%d, code %d, want 400 and 50035", apiErr.Status, apiErr.Code)
	default:
		if got := fieldCodes(apiErr); len(got) != 1 || got[tc.path] != tc.code {
			t.Errorf("field errors %v, want only %s: %s", got, tc.path, tc.code)
		}
	}
}

// limitGroup is the group of tests that covers a kind of limitTable:
// "command" (bulk overwrites of commands), "thread" (the thread routes) or
// "message".
func limitGroup(kind string) string {
	switch {
	case kind == "commands" || kind == "options" || strings.HasPrefix(kind, "command.") || strings.HasPrefix(kind, "option.") ||
		strings.HasPrefix(kind, "choice."):
		return "command"
	case strings.HasPrefix(kind, "thread."):
		return "thread"
	}
	return "message"
}

// coverKinds fails unless the cases test every kind of limitTable of
// their group (see limitGroup) at the limit and over it.
func coverKinds[T any](t *testing.T, group string, tests []T, get func(int) limitCase) {
	t.Helper()
	seen := map[string]int{}
	for k := range tests {
		if c := get(k); c.kind != "" {
			if c.ok {
				seen[c.kind] |= 1
			} else {
				seen[c.kind] |= 2
			}
		}
	}
	kinds := discordtest.LimitKinds()
	sort.Strings(kinds)
	for _, k := range kinds {
		if limitGroup(k) == group && seen[k] != 3 {
			t.Errorf("limit %s is not tested both at the limit and over it", k)
		}
	}
}

func TestCommandLimits(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	bot := session(t, srv, srv.Token())
	cmd := func(name, description string, opts ...*discordgo.ApplicationCommandOption) []*discordgo.ApplicationCommand {
		return []*discordgo.ApplicationCommand{{Name: name, Description: description, Options: opts}}
	}
	opt := func(name string, required bool, choices int) *discordgo.ApplicationCommandOption {
		o := &discordgo.ApplicationCommandOption{Type: discordgo.ApplicationCommandOptionString, Name: name, Description: "d", Required: required}
		for c := range choices {
			o.Choices = append(o.Choices, &discordgo.ApplicationCommandOptionChoice{Name: fmt.Sprint(c), Value: fmt.Sprint(c)})
		}
		return o
	}
	many := func(n int) []*discordgo.ApplicationCommandOption {
		var out []*discordgo.ApplicationCommandOption
		for k := range n {
			out = append(out, opt(fmt.Sprint("o", k), false, 0))
		}
		return out
	}
	commands := func(n int) []*discordgo.ApplicationCommand {
		var out []*discordgo.ApplicationCommand
		for k := range n {
			out = append(out, cmd(fmt.Sprint("c", k), "d")...)
		}
		return out
	}
	sub := func(t discordgo.ApplicationCommandOptionType, opts ...*discordgo.ApplicationCommandOption) *discordgo.ApplicationCommandOption {
		return &discordgo.ApplicationCommandOption{Type: t, Name: "s", Description: "d", Options: opts}
	}
	type locs = map[discordgo.Locale]string
	subLoc := func(name string, names locs) *discordgo.ApplicationCommandOption {
		return &discordgo.ApplicationCommandOption{Type: discordgo.ApplicationCommandOptionSubCommand, Name: name, Description: "d", NameLocalizations: names}
	}
	choice := func(name string, names locs) *discordgo.ApplicationCommandOption {
		o := opt("o", false, 0)
		o.Choices = []*discordgo.ApplicationCommandOptionChoice{{Name: name, NameLocalizations: names, Value: "v"}}
		return o
	}
	// localize sets the localizations of the first command and of its
	// first option.
	localize := func(cmds []*discordgo.ApplicationCommand, names, descriptions, optionNames locs) []*discordgo.ApplicationCommand {
		if names != nil {
			cmds[0].NameLocalizations = &names
		}
		if descriptions != nil {
			cmds[0].DescriptionLocalizations = &descriptions
		}
		if optionNames != nil {
			cmds[0].Options[0].NameLocalizations = optionNames
		}
		return cmds
	}
	everyLocale := func(v string) locs {
		out := locs{}
		for _, l := range strings.Fields("id da de en-GB en-US es-ES es-419 fr hr it lt hu nl no pl pt-BR ro fi sv-SE vi tr cs el bg ru uk hi th zh-CN ja zh-TW ko") {
			out[discordgo.Locale(l)] = v
		}
		return out
	}
	installed := func(cmds []*discordgo.ApplicationCommand, types, contexts []int) []*discordgo.ApplicationCommand {
		if types != nil {
			var it []discordgo.ApplicationIntegrationType
			for _, v := range types {
				it = append(it, discordgo.ApplicationIntegrationType(v))
			}
			cmds[0].IntegrationTypes = &it
		}
		if contexts != nil {
			var ct []discordgo.InteractionContextType
			for _, v := range contexts {
				ct = append(ct, discordgo.InteractionContextType(v))
			}
			cmds[0].Contexts = &ct
		}
		return cmds
	}
	tests := []struct {
		limitCase
		cmds []*discordgo.ApplicationCommand
	}{
		{limitCase{"commands", "100 commands", true, "", ""}, commands(100)},
		{limitCase{"commands", "101 commands", false, "", "BASE_TYPE_MAX_LENGTH"}, commands(101)},
		{limitCase{"command.name", "a name of 32", true, "", ""}, cmd(text(32), "d")},
		{limitCase{"command.name", "a name of 33", false, "0.name", "BASE_TYPE_BAD_LENGTH"}, cmd(text(33), "d")},
		{limitCase{"", "an upper-case name", false, "0.name", "APPLICATION_COMMAND_INVALID_NAME"}, cmd("Play", "d")},
		{limitCase{"command.description", "a description of 100", true, "", ""}, cmd("play", text(100))},
		{limitCase{"command.description", "no description", false, "0.description", "BASE_TYPE_BAD_LENGTH"}, cmd("play", "")},
		{limitCase{"options", "25 options", true, "", ""}, cmd("play", "d", many(25)...)},
		{limitCase{"options", "26 options", false, "0.options", "BASE_TYPE_MAX_LENGTH"}, cmd("play", "d", many(26)...)},
		{limitCase{"option.choices", "25 choices", true, "", ""}, cmd("play", "d", opt("o", false, 25))},
		{limitCase{"option.choices", "26 choices", false, "0.options.0.choices", "BASE_TYPE_MAX_LENGTH"}, cmd("play", "d", opt("o", false, 26))},
		{limitCase{"", "required after optional", false, "0.options.1.required", "APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID"}, cmd("play", "d", opt("a", false, 0), opt("b", true, 0))},
		{limitCase{"", "an option name twice", false, "0.options.1.name", "APPLICATION_COMMAND_OPTION_NAME_ALREADY_EXISTS"}, cmd("play", "d", opt("a", false, 0), opt("a", false, 0))},
		{limitCase{"", "a group in a subcommand", false, "0.options.0.options.0.type", "APPLICATION_COMMAND_OPTION_TYPE_INVALID"},
			cmd("play", "d", sub(discordgo.ApplicationCommandOptionSubCommand, sub(discordgo.ApplicationCommandOptionSubCommandGroup)))},
		{limitCase{"", "a command name twice", false, "1.name", "APPLICATION_COMMANDS_DUPLICATE_NAME"}, append(cmd("play", "d"), cmd("play", "e")...)},
		{limitCase{"choice.name", "a choice name of 100", true, "", ""}, cmd("play", "d", choice(text(100), nil))},
		{limitCase{"choice.name", "a choice name of 101", false, "0.options.0.choices.0.name", "BASE_TYPE_BAD_LENGTH"}, cmd("play", "d", choice(text(101), nil))},
		{limitCase{"choice.name", "an empty choice name", false, "0.options.0.choices.0.name", "BASE_TYPE_BAD_LENGTH"}, cmd("play", "d", choice("", nil))},
		{limitCase{"choice.name", "a localized choice name of 101", false, "0.options.0.choices.0.name_localizations.fr", "BASE_TYPE_BAD_LENGTH"},
			cmd("play", "d", choice("x", locs{"fr": text(101)}))},
		{limitCase{"", "a localized choice name in no known locale", false, "0.options.0.choices.0.name_localizations", "ENUM_TYPE_COERCE"},
			cmd("play", "d", choice("x", locs{"fr-FR": "x"}))},
		// Localizations (https://discord.com/developers/docs/reference#locales).
		{limitCase{"", "names and descriptions in every locale", true, "", ""}, localize(cmd("play", "d", opt("rows", false, 0)), everyLocale("jouer"), everyLocale("Jouer"), everyLocale("lignes"))},
		{limitCase{"", "Devanagari, Thai and a modifier apostrophe", true, "", ""}, localize(cmd("play", "d"), locs{"hi": "खेलें", "th": "เล่น", "fr": "lʼheure"}, nil, nil)},
		{limitCase{"", "a locale Discord does not know", false, "0.name_localizations", "ENUM_TYPE_COERCE"}, localize(cmd("play", "d"), locs{"en": "play"}, nil, nil)},
		{limitCase{"", "a description in a locale Discord does not know", false, "0.description_localizations", "ENUM_TYPE_COERCE"},
			localize(cmd("play", "d"), nil, locs{"pt-PT": "Jogar"}, nil)},
		{limitCase{"", "an upper-case localized command name", false, "0.name_localizations", "APPLICATION_COMMAND_INVALID_NAME"},
			localize(cmd("play", "d"), locs{"de": "Spielen"}, nil, nil)},
		{limitCase{"", "an ASCII apostrophe", false, "0.name", "APPLICATION_COMMAND_INVALID_NAME"}, cmd("isn't", "d")},
		{limitCase{"", "a localized option name with a space", false, "0.options.0.name_localizations.de", "APPLICATION_COMMAND_INVALID_NAME"},
			localize(cmd("play", "d", opt("rows", false, 0)), nil, nil, locs{"de": "anzahl zeilen"})},
		{limitCase{"command.name", "a localized name of 33", false, "0.name_localizations.fr", "BASE_TYPE_BAD_LENGTH"}, localize(cmd("play", "d"), locs{"fr": text(33)}, nil, nil)},
		{limitCase{"command.description", "a localized description of 101", false, "0.description_localizations.fr", "BASE_TYPE_BAD_LENGTH"},
			localize(cmd("play", "d"), nil, locs{"fr": text(101)}, nil)},
		{limitCase{"command.description", "an empty localized description", false, "0.description_localizations.fr", "BASE_TYPE_BAD_LENGTH"},
			localize(cmd("play", "d"), nil, locs{"fr": ""}, nil)},
		{limitCase{"", "two subcommands with one German name", false, "0.options.1.name_localizations.de", "APPLICATION_COMMAND_OPTION_NAME_ALREADY_EXISTS"},
			cmd("play", "d", subLoc("one", locs{"de": "spiel"}), subLoc("two", locs{"de": "spiel"}))},
		{limitCase{"", "a German name that is another option's name", false, "0.options.0.name_localizations.de", "APPLICATION_COMMAND_OPTION_NAME_ALREADY_EXISTS"},
			cmd("play", "d", subLoc("rows", locs{"de": "columns"}), subLoc("columns", nil))},
		{limitCase{"", "one name in two locales", true, "", ""}, cmd("play", "d", subLoc("one", locs{"de": "eins"}), subLoc("two", locs{"fr": "eins"}))},
		{limitCase{"", "two commands with one French name", false, "1.name_localizations.fr", "APPLICATION_COMMANDS_DUPLICATE_NAME"},
			append(localize(cmd("play", "d"), locs{"fr": "jouer"}, nil, nil), localize(cmd("game", "d"), locs{"fr": "jouer"}, nil, nil)...)},
		// Installation and interaction contexts.
		{limitCase{"", "every integration type and context", true, "", ""}, installed(cmd("play", "d"), []int{0, 1}, []int{0, 1, 2})},
		{limitCase{"", "integration type 2", false, "0.integration_types.1", "ENUM_TYPE_COERCE"}, installed(cmd("play", "d"), []int{0, 2}, nil)},
		{limitCase{"", "context 3", false, "0.contexts.0", "ENUM_TYPE_COERCE"}, installed(cmd("play", "d"), nil, []int{3})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := bot.ApplicationCommandBulkOverwrite(srv.ApplicationID(), "", tt.cmds)
			var re *discordgo.RESTError
			if err != nil && !errors.As(err, &re) {
				t.Fatal(err)
			}
			if err != nil {
				apiErr := &discordtest.APIError{Status: re.Response.StatusCode}
				if err := json.Unmarshal(re.ResponseBody, apiErr); err != nil {
					t.Fatal(err)
				}
				err = apiErr
			}
			checkLimit(t, tt.limitCase, err)
		})
	}
	coverKinds(t, "command", tests, func(k int) limitCase { return tests[k].limitCase })
}
