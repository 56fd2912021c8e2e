package render

import (
	"strconv"
	"strings"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/locale"
	"github.com/connectn/connectn/sessions"
)

// Stats draws the record of the member called userName: their rating
// (rated, above the rest once they played a rated match), against
// members, against the member called asker who asked (pair, from the
// member's side; nil when they asked about themselves), and against the
// bot, the last two in one format, "Bob vs Alice: 0–2". With direct set,
// the record is the one of direct messages and group chats, titled so.
func Stats(l *locale.Localizer, direct bool, userName string, st, vsBot sessions.Stats, pair *sessions.PairRecord, asker string, rated sessions.MemberRating) *Message {
	var lines []string
	if st.Matches == 0 {
		lines = append(lines, l.T("stats_none"))
	} else {
		lines = append(lines,
			l.T("stats_matches", "Matches", st.Matches, "Wins", st.Wins, "Losses", st.Losses, "Rate", percent(l, st.WinRate())),
			l.T("stats_rounds", "Won", st.RoundsWon, "Lost", st.RoundsLost, "Drawn", st.RoundsDrawn),
			streak(l, st))
	}
	who := EscapeName(l, userName)
	if pair != nil {
		lines = append(lines, l.T("stats_versus", "Player", who, "Other", EscapeName(l, asker), "Wins", pair.Wins, "Losses", pair.Losses))
	}
	if vsBot.Matches > 0 {
		lines = append(lines, l.T("stats_versus", "Player", who, "Other", BotName, "Wins", vsBot.Wins, "Losses", vsBot.Losses))
	}
	desc := strings.Join(lines, "\n")
	if rated.Games > 0 {
		id := "stats_rating"
		if rated.Provisional() {
			id = "stats_rating_provisional"
		}
		desc = l.N(id, rated.Games, "Rating", ratingValue(rated.R), "RD", ratingValue(rated.RD), "Best", ratingValue(rated.Best)) +
			"\n" + desc
	}
	return &Message{
		AllowedMentions: NoMentions(),
		Embeds: []*discordgo.MessageEmbed{{
			Title:       l.T(scoped("stats_title", direct), "Name", EscapeName(l, userName)),
			Description: desc,
			Color:       Themes[0].ColorOf(0),
			Footer:      &discordgo.MessageEmbedFooter{Text: l.T(scoped("stats_footer", direct))},
		}},
		Components: []discordgo.MessageComponent{},
	}
}

// streak says st's current streak of match wins, a dash when there is
// none, and the best one when there has been one.
func streak(l *locale.Localizer, st sessions.Stats) string {
	switch {
	case st.Streak > 0:
		return l.N("stats_streak", st.Streak, "Best", st.BestStreak)
	case st.BestStreak > 0:
		return l.N("stats_streak_ended", st.BestStreak)
	}
	return l.T("stats_streak_none")
}

// scoped returns message id, or its variant for direct messages and group
// chats (id + "_dm"), whose matches count in a scope of their own apart
// from every server's.
func scoped(id string, direct bool) string {
	if direct {
		return id + "_dm"
	}
	return id
}

// percent formats a rate from 0 to 1 as a whole percentage.
func percent(l *locale.Localizer, rate float64) string {
	return l.T("percent", "Value", strconv.FormatFloat(rate*100, 'f', 0, 64))
}

// RatingLeaderboard draws the ranking by rating: "🥇 @Alice —
// 1612 ± 64", with the rule in the footer.
func RatingLeaderboard(l *locale.Localizer, top []sessions.MemberRating) *Message {
	var lines []string
	if len(top) == 0 {
		lines = append(lines, l.T("leaderboard_empty"))
	}
	for n, r := range top {
		rank := l.T("leaderboard_rank", "Rank", n+1)
		if n < len(medals) {
			rank = medals[n]
		}
		lines = append(lines, l.T("leaderboard_rating_row", "Rank", rank, "Member", Mention(r.UserID),
			"Rating", ratingValue(r.R), "RD", ratingValue(r.RD)))
	}
	return &Message{
		AllowedMentions: NoMentions(),
		Embeds: []*discordgo.MessageEmbed{{
			Title: l.T("leaderboard_rating_title"),
			// The rule quotes a command, which a footer would show with its
			// backticks: the last paragraph states it.
			Description: strings.Join(lines, "\n") + "\n\n" + l.T("leaderboard_rating_footer"),
			Color:       Themes[0].ColorOf(0),
		}},
		Components: []discordgo.MessageComponent{},
	}
}

// medals mark the first three places of the leaderboard.
var medals = []string{"🥇", "🥈", "🥉"}

// Leaderboard draws the ranked list, one member a compact line that
// stays on one line in a client 400 pixels wide, even with a long name and
// two-digit figures: "🥇 @Alice — 3–1 · 75%", match wins–losses and win
// rate, which the footer names with the ranking rule.
func Leaderboard(l *locale.Localizer, direct bool, top []sessions.Stats) *Message {
	var lines []string
	if len(top) == 0 {
		lines = append(lines, l.T(scoped("leaderboard_empty", direct)))
	}
	for n, st := range top {
		rank := l.T("leaderboard_rank", "Rank", n+1)
		if n < len(medals) {
			rank = medals[n]
		}
		lines = append(lines, l.T("leaderboard_row", "Rank", rank, "Member", Mention(st.UserID),
			"Wins", st.Wins, "Losses", st.Losses, "Rate", percent(l, st.WinRate())))
	}
	return &Message{
		AllowedMentions: NoMentions(),
		Embeds: []*discordgo.MessageEmbed{{
			Title:       l.T(scoped("leaderboard_title", direct)),
			Description: strings.Join(lines, "\n"),
			Color:       Themes[0].ColorOf(0),
			Footer:      &discordgo.MessageEmbedFooter{Text: l.T("leaderboard_footer")},
		}},
		Components: []discordgo.MessageComponent{},
	}
}
