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
			l.T("help_challenge", "MinSize", minRows, "MaxSize", maxRows, "MinConnect", minConnect, "MaxConnect", maxConnect,
				"MinWins", minWins, "MaxWins", maxWins),
			l.T("help_forfeit"),
			l.T("help_board"),
			l.T("help_stats"),
			l.T("help_leaderboard", "Top", leaderboardTop),
			l.T("help_open"),
			l.T("help_analyze"),
			l.T("help_forget_me"),
			l.T("help_tournament_leave"),
			l.T("help_tournament_standings"),
			l.T("help_admin"),
			l.T("help_tournament_create"),
			l.T("help_tournament_manage"),
			l.T("help_help"),
		}, "\n"),
		Color: t.ColorOf(0),
	}}
	return resp
}
