package bot

import (
	"context"
	"fmt"
	"strings"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/sessions"
)

// statsCommand handles /connectn stats [user]: a member's record in this
// server, each figure beside its word, with their record against the member
// asking and, apart, against the bot.
func (h *Handler) statsCommand(ctx context.Context, i *discordgo.Interaction, opts []*discordgo.ApplicationCommandInteractionDataOption) (*discordgo.InteractionResponse, error) {
	me := userID(i)
	who, whoName := me, userName(i)
	for _, o := range opts {
		id, ok := o.Value.(string)
		if o == nil || o.Name != optUser || o.Type != discordgo.ApplicationCommandOptionUser || !ok || id == "" {
			return nil, fmt.Errorf("stats option: %w", errMalformed)
		}
		data, _ := i.Data.(discordgo.ApplicationCommandInteractionData)
		if data.Resolved == nil || data.Resolved.Users[id] == nil {
			return nil, fmt.Errorf("stats user %s not in resolved users: %w", id, errMalformed)
		}
		u := data.Resolved.Users[id]
		who, whoName = id, u.DisplayName()
		if m := data.Resolved.Members[id]; m != nil && m.Nick != "" {
			whoName = m.Nick
		}
	}
	vsMembers, err := h.store.Stats(ctx, i.GuildID, who, false)
	if err != nil {
		return nil, err
	}
	vsBot, err := h.store.Stats(ctx, i.GuildID, who, true)
	if err != nil {
		return nil, err
	}
	var pair *sessions.PairRecord
	if who != me {
		rec, err := h.store.Pair(ctx, i.GuildID, who, me)
		if err != nil {
			return nil, err
		}
		pair = &rec
	}
	return newMessage(renderStats(who, whoName, vsMembers, vsBot, pair)), nil
}

// renderStats draws a member's record: against members, against the asker
// (pair, from the member's side; nil when they asked about themselves), and
// against the bot.
func renderStats(userID, userName string, st, vsBot sessions.Stats, pair *sessions.PairRecord) *message {
	var d strings.Builder
	fmt.Fprintf(&d, "%s\n\n", mention(userID))
	if st.Matches == 0 {
		d.WriteString("No match against members finished yet.\n")
	} else {
		fmt.Fprintf(&d, "**Matches:** %d · **Wins:** %d · **Losses:** %d · **Win rate:** %s\n",
			st.Matches, st.Wins, st.Losses, percent(st.WinRate()))
		fmt.Fprintf(&d, "**Rounds won:** %d · **Rounds lost:** %d · **Rounds drawn:** %d\n",
			st.RoundsWon, st.RoundsLost, st.RoundsDrawn)
		fmt.Fprintf(&d, "**Current streak:** %d %s won in a row · **Best streak:** %d\n",
			st.Streak, plural(st.Streak, "match", "matches"), st.BestStreak)
	}
	if pair != nil {
		fmt.Fprintf(&d, "**Against you:** %d %s · %d %s\n",
			pair.Wins, plural(pair.Wins, "win", "wins"), pair.Losses, plural(pair.Losses, "loss", "losses"))
	}
	if vsBot.Matches > 0 {
		fmt.Fprintf(&d, "**Against the bot:** %d %s · **Wins:** %d · **Losses:** %d\n",
			vsBot.Matches, plural(vsBot.Matches, "match", "matches"), vsBot.Wins, vsBot.Losses)
	}
	return &message{
		AllowedMentions: noMentions(),
		Embeds: []*discordgo.MessageEmbed{{
			Title:       "Connect N record of " + escapeName(userName),
			Description: strings.TrimSuffix(d.String(), "\n"),
			Color:       themes[0].color(0),
			Footer:      &discordgo.MessageEmbedFooter{Text: "Matches in this server; forfeits and timeouts count as losses."},
		}},
		Components: []discordgo.MessageComponent{},
	}
}

// percent formats a rate from 0 to 1 as a whole percentage.
func percent(rate float64) string { return fmt.Sprintf("%.0f%%", rate*100) }

// leaderboardCommand handles /connectn leaderboard: the top 10 of this
// server in matches between members, with the ranking rule under it.
func (h *Handler) leaderboardCommand(ctx context.Context, i *discordgo.Interaction, _ []*discordgo.ApplicationCommandInteractionDataOption) (*discordgo.InteractionResponse, error) {
	top, err := h.store.Leaderboard(ctx, i.GuildID, leaderboardTop)
	if err != nil {
		return nil, err
	}
	return newMessage(renderLeaderboard(top)), nil
}

// renderLeaderboard draws the ranked list, one member a line.
func renderLeaderboard(top []sessions.Stats) *message {
	var d strings.Builder
	if len(top) == 0 {
		d.WriteString("No match has finished in this server yet. Start one with `/connectn challenge`.")
	}
	medals := []string{"🥇", "🥈", "🥉"}
	for n, st := range top {
		rank := fmt.Sprintf("**%d.**", n+1)
		if n < len(medals) {
			rank = medals[n]
		}
		fmt.Fprintf(&d, "%s %s · **Wins:** %d · **Win rate:** %s · **Played:** %d · **Rounds:** %d–%d\n",
			rank, mention(st.UserID), st.Wins, percent(st.WinRate()), st.Matches, st.RoundsWon, st.RoundsLost)
	}
	return &message{
		AllowedMentions: noMentions(),
		Embeds: []*discordgo.MessageEmbed{{
			Title:       "Connect N leaderboard",
			Description: strings.TrimSuffix(d.String(), "\n"),
			Color:       themes[0].color(0),
			Footer:      &discordgo.MessageEmbedFooter{Text: "Ranked by " + sessions.LeaderboardRule + ". Matches against the bot do not count."},
		}},
		Components: []discordgo.MessageComponent{},
	}
}
