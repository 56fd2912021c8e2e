package bot

import (
	"context"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot/internal/render"

	"github.com/connectn/connectn/locale"
)

// help is the feature of /connectn help.
type help struct {
	turn time.Duration // the bot's time for a turn
}

func (h *help) routes() []route { return []route{command("help", h.help, helpLine("help_help"))} }

// help handles /connectn help: how to play and every command, privately,
// with this server's turn time.
func (h *help) help(_ context.Context, c *call, _ *noOptions) (*discordgo.InteractionResponse, error) {
	return renderHelp(c.reader, h.turn), nil
}

// renderHelp draws the private help message in l's language: the rules,
// how to play and the time a turn lasts, the symbols of the board
// (in the default theme), how to play the bot, what the buttons under a
// finished match do, where it plays, and every command.
func renderHelp(l *locale.Localizer, turn time.Duration) *discordgo.InteractionResponse {
	t := render.Themes[0]
	resp := render.Ephemeral("")
	resp.Data.Embeds = []*discordgo.MessageEmbed{{
		Title: l.T("help_title"),
		Description: strings.Join([]string{
			l.T("help_rules"),
			"",
			l.T("help_play", "Turn", render.Duration(l, turn)),
			l.T("help_symbols", "Disc1", t.Disc[1], "Disc2", t.Disc[2], "Empty", t.Empty, "Last", render.LastMark,
				"Win1", t.Win[1], "Win2", t.Win[2]),
			"",
			l.T("help_bot"),
			l.T("help_after"),
			l.T("help_places"),
			"",
			l.T("help_commands"),
			commandLines(l),
		}, "\n"),
		Color: t.ColorOf(0),
	}}
	return resp
}

// helpOrder is the order of the commands' lines in /connectn help: the
// catalog keys that the routes name (helpLine), each once. It is the one
// list of the routes kept by hand (the help reads better grouped than in
// the order Discord lists the subcommands); TestRoutesDocumented holds it
// to the routes.
var helpOrder = []string{
	"help_challenge", "help_forfeit", "help_board", "help_stats", "help_leaderboard", "help_open", "help_analyze",
	"help_puzzle", "help_forget_me", "help_tournament_leave", "help_tournament_standings", "help_admin", "help_daily_puzzle",
	"help_tournament_create", "help_tournament_manage", "help_help",
}

// helpArgs are the arguments of the lines of helpOrder that have some.
var helpArgs = map[string][]any{
	"help_challenge": {"MinSize", minRows, "MaxSize", maxRows, "MinConnect", minConnect, "MaxConnect", maxConnect,
		"MinWins", minWins, "MaxWins", maxWins},
	"help_leaderboard": {"Top", leaderboardTop},
}

// commandLines returns the commands' lines of the help in l's language,
// in helpOrder.
func commandLines(l *locale.Localizer) string {
	lines := make([]string, len(helpOrder))
	for k, key := range helpOrder {
		lines[k] = l.T(key, helpArgs[key]...)
	}
	return strings.Join(lines, "\n")
}
