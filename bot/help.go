package bot

import (
	"context"
	"fmt"

	"github.com/bwmarrin/discordgo"
)

// helpCommand handles /connectn help: how to play and every command,
// privately.
func (h *Handler) helpCommand(context.Context, *discordgo.Interaction, []*discordgo.ApplicationCommandInteractionDataOption) (*discordgo.InteractionResponse, error) {
	resp := ephemeral("")
	resp.Data.Content = ""
	resp.Data.Embeds = []*discordgo.MessageEmbed{{
		Title: "How to play Connect N",
		Description: fmt.Sprintf(`Drop discs into the columns in turn; a disc falls to the lowest empty cell. Line up `+
			"**connect** of your discs in a row, a column or a diagonal to win the round. A full board with no line is a draw. "+
			"The first to win **wins** rounds takes the match; the opener alternates every round.\n\n"+
			"Click a column's button to drop your disc there. The header over the board reads like the buttons. "+
			"Each turn has a deadline (shown on the board); letting it pass forfeits the match.\n\n"+
			"**Commands**\n"+
			"`/connectn challenge opponent:@member` — challenge a member; options `rows` and `columns` (%d–%d), `connect` (%d–%d), "+
			"`wins` (%d–%d), `first` (who opens round 1) and `theme` (colours).\n"+
			"`/connectn forfeit` — give up your match in this channel (asks first).\n"+
			"`/connectn board` — post the live board again at the bottom of the channel.\n"+
			"`/connectn stats [user]` — a member's record in this server.\n"+
			"`/connectn leaderboard` — the top %d of this server.\n"+
			"`/connectn help` — this message.",
			minRows, maxRows, minConnect, maxConnect, minWins, maxWins, leaderboardTop),
		Color: themes[0].color(0),
	}}
	return resp, nil
}
