package bot

import (
	"context"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot/internal/customid"
	"github.com/connectn/connectn/bot/internal/render"

	"github.com/connectn/connectn/game/ai"
	"github.com/connectn/connectn/locale"
	"github.com/connectn/connectn/sessions"
)

// help is the feature of /connectn help and the buttons under it, which
// turn its pages.
type help struct {
	turn  time.Duration  // the bot's time for a turn, where a server sets none
	store settingsReader // the server's settings (its time for a turn); nil: none
}

func (h *help) routes() []route {
	return []route{
		command("help", h.help, helpLine("help_help")),
		button("help", helpParts, h.page),
	}
}

// helpPage is a page of /connectn help, numbered from 0 as its button's
// custom_id names it: "cn:help:<page>".
type helpPage int

// The pages of the help, in the order of their buttons.
const (
	pagePlay     helpPage = iota // how to play: the rules, a turn, how to start
	pageCommands                 // the members' commands, where the bot plays, the board's symbols
	pageBot                      // playing the bot: its levels, what comes after a match, the solver and puzzles
	pageRatings                  // rated matches, stats and the leaderboard
	pageAdmins                   // the admins' commands
	helpPages                    // how many pages there are
)

// helpParts are the parts of a help page button's custom_id: the page.
var helpParts = []customid.Part{{Name: "help page", Min: 0, Max: int64(helpPages) - 1}}

// label names the catalog key of page p's button, which is also the
// page's name in its title.
func (p helpPage) label() string {
	return [...]string{"button_help_play", "button_help_commands", "button_help_bot", "button_help_ratings", "button_help_admins"}[p]
}

// helpOrder lists, page by page, the commands' lines of /connectn help: the
// catalog keys that the routes name (helpLine), each once. It is the one
// list of the routes kept by hand (the help reads better grouped by what
// a player looks for than in the order Discord lists the subcommands);
// TestRoutesDocumented holds it to the routes.
var helpOrder = map[helpPage][]string{
	pageCommands: {"help_challenge", "help_open", "help_forfeit", "help_board", "help_tournament_leave", "help_tournament_standings",
		"help_forget_me", "help_help"},
	pageBot:     {"help_analyze", "help_puzzle"},
	pageRatings: {"help_stats", "help_leaderboard"},
	pageAdmins:  {"help_admin", "help_daily_puzzle", "help_tournament_create", "help_tournament_manage"},
}

// helpKeys returns the keys of helpOrder, page by page.
func helpKeys() []string {
	var out []string
	for p := range helpPages {
		out = append(out, helpOrder[p]...)
	}
	return out
}

// helpArgs are the arguments of the lines of helpOrder that have some.
var helpArgs = map[string][]any{
	"help_challenge": {"MinSize", minRows, "MaxSize", maxRows, "MinConnect", minConnect, "MaxConnect", maxConnect,
		"MinWins", minWins, "MaxWins", maxWins},
	"help_leaderboard": {"Top", leaderboardTop},
}

// help handles /connectn help: its first page, how to play, privately,
// with this server's turn time and the buttons of the other pages.
func (h *help) help(ctx context.Context, c *call, _ *noOptions) (*discordgo.InteractionResponse, error) {
	turn, err := h.turnHere(ctx, c)
	if err != nil {
		return nil, err
	}
	return renderHelp(c.reader, turn), nil
}

// turnHere returns how long a turn lasts where c was sent: the server's
// setting (settings set turn-timeout), else the bot's. It returns the
// store's error when the settings cannot be read.
func (h *help) turnHere(ctx context.Context, c *call) (time.Duration, error) {
	if c.i.GuildID == "" || h.store == nil {
		return h.turn, nil
	}
	gs, err := h.store.GuildSettings(ctx, c.i.GuildID)
	if err != nil {
		return 0, err
	}
	return or(gs.TurnTimeout, h.turn), nil
}

// page handles a help page button: the help message turns to the page its
// custom_id names, in place (UPDATE_MESSAGE), in the clicker's language.
// A custom_id naming no page is refused by the router (bad_custom_id)
// before it gets here, and changes nothing.
func (h *help) page(ctx context.Context, c *call) (*discordgo.InteractionResponse, error) {
	p := helpPage(c.id.Part(0)) // from 0 to helpPages-1: helpParts bounds it
	turn, err := h.turnHere(ctx, c)
	if err != nil {
		return nil, err
	}
	return &discordgo.InteractionResponse{Type: discordgo.InteractionResponseUpdateMessage, Data: helpMessage(c.reader, turn, p)}, nil
}

// renderHelp draws /connectn help as it first shows, privately, in l's
// language: its first page (helpMessage).
func renderHelp(l *locale.Localizer, turn time.Duration) *discordgo.InteractionResponse {
	resp := render.Ephemeral("")
	resp.Data = helpMessage(l, turn, pagePlay)
	return resp
}

// helpMessage draws page p of the help in l's language, private and
// mentioning no one, with one button per page under it, in rows of three
// and two (the page shown disabled, so that each button turns to another
// page):
//
//   - how to play, about five lines: the rules, how a turn is played and
//     how long it lasts (turn), and how to start a match;
//   - commands: the members' commands, where the bot plays, and the
//     symbols of the board in the default theme;
//   - playing the bot: how to challenge it, its levels, what the buttons
//     under a finished match do, the solver's commands and puzzles;
//   - ratings: what is rated and how, stats and the leaderboard;
//   - admins: the admins' commands.
func helpMessage(l *locale.Localizer, turn time.Duration, p helpPage) *render.Message {
	t := render.Themes[0]
	var lines []string
	title := l.T("help_page_title", "Page", l.T(p.label()))
	switch p {
	case pagePlay:
		title = l.T("help_title")
		lines = []string{l.T("help_rules"), l.T("help_play", "Turn", render.Duration(l, turn)), l.T("help_start")}
	case pageCommands:
		lines = append(commandLines(l, p), "", l.T("help_places"),
			l.T("help_symbols", "Disc1", t.Disc[1], "Disc2", t.Disc[2], "Empty", t.Empty, "Last", render.LastMark,
				"Win1", t.Win[1], "Win2", t.Win[2]))
	case pageBot:
		lines = []string{l.T("help_bot")}
		for _, lv := range ai.Levels() {
			lines = append(lines, "- "+l.T("choice_level_"+lv.String()))
		}
		lines = append(append(append(lines, ""), l.T("help_after"), ""), commandLines(l, p)...)
	case pageRatings:
		lines = append([]string{l.T("help_ratings", "Games", sessions.MinRatedGames, "PerDay", sessions.RatedPerDay), ""},
			commandLines(l, p)...)
	case pageAdmins:
		lines = commandLines(l, p)
	}
	row := make([]discordgo.MessageComponent, helpPages)
	for k := range helpPages {
		row[k] = discordgo.Button{Label: l.T(k.label()), Style: discordgo.SecondaryButton, Disabled: k == p,
			CustomID: customid.New("help", int64(k)).String()}
	}
	// Three and two: five buttons of a page's name each wrap untidily in
	// one row of a phone's client, and in some languages of a desktop's.
	return &render.Message{
		Flags:           discordgo.MessageFlagsEphemeral,
		AllowedMentions: render.NoMentions(),
		Embeds: []*discordgo.MessageEmbed{{
			Title:       title,
			Description: strings.Join(lines, "\n"),
			Color:       t.ColorOf(0),
		}},
		Components: []discordgo.MessageComponent{discordgo.ActionsRow{Components: row[:3]}, discordgo.ActionsRow{Components: row[3:]}},
	}
}

// commandLines returns the commands' lines of page p of the help in l's
// language, in helpOrder.
func commandLines(l *locale.Localizer, p helpPage) []string {
	lines := make([]string, len(helpOrder[p]))
	for k, key := range helpOrder[p] {
		lines[k] = l.T(key, helpArgs[key]...)
	}
	return lines
}
