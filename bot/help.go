package bot

import (
	"context"
	"strings"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/locale"
)

// help handles /connectn help: how to play and every command, privately.
func (h *Handler) help(_ context.Context, c *call, _ *noOptions) (*discordgo.InteractionResponse, error) {
	return renderHelp(c.reader), nil
}

// renderHelp draws the private help message in l's language.
func renderHelp(l *locale.Localizer) *discordgo.InteractionResponse {
	resp := ephemeral("")
	resp.Data.Embeds = []*discordgo.MessageEmbed{{
		Title: l.T("help_title"),
		Description: strings.Join([]string{
			l.T("help_rules"),
			"",
			l.T("help_play"),
			"",
			l.T("help_commands"),
			l.T("help_challenge", "MinSize", minRows, "MaxSize", maxRows, "MinConnect", minConnect, "MaxConnect", maxConnect,
				"MinWins", minWins, "MaxWins", maxWins),
			l.T("help_forfeit"),
			l.T("help_board"),
			l.T("help_stats"),
			l.T("help_leaderboard", "Top", leaderboardTop),
			l.T("help_help"),
		}, "\n"),
		Color: themes[0].color(0),
	}}
	return resp
}
