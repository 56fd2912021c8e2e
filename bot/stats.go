package bot

import (
	"context"
	"strconv"
	"strings"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/locale"
	"github.com/connectn/connectn/sessions"
)

// leaderboardTop is how many members the leaderboard shows.
const leaderboardTop = 10

// stats is the feature of /connectn stats and /connectn leaderboard.
type stats struct {
	store statsStore
}

// statsStore is what stats reads.
type statsStore interface {
	Stats(ctx context.Context, guildID, userID string, vsAI bool) (sessions.Stats, error)
	Pair(ctx context.Context, guildID, userID, opponentID string) (sessions.PairRecord, error)
	Rating(ctx context.Context, guildID, userID string) (sessions.MemberRating, error)
	Leaderboard(ctx context.Context, guildID string, limit int) ([]sessions.Stats, error)
	RatingLeaderboard(ctx context.Context, guildID string, limit int) ([]sessions.MemberRating, error)
}

func (h *stats) routes() []route {
	return []route{
		command("stats", h.stats, helpLine("help_stats")),
		command("leaderboard", h.leaderboard, helpLine("help_leaderboard")),
	}
}

// statsOptions are the options of /connectn stats.
type statsOptions struct {
	User member
}

func (o *statsOptions) declare(s *optionSet) { s.user("user", &o.User) }

// stats handles /connectn stats [user]: a member's record in this
// server, each figure beside its word, with their record against the member
// asking and against the bot, both as "Bob vs Alice: 0–2" (the reply is
// public: nobody reads it as "you").
func (h *stats) stats(ctx context.Context, c *call, o *statsOptions) (*discordgo.InteractionResponse, error) {
	who, whoName := c.user, c.name
	if o.User.set {
		who, whoName = o.User.ID, o.User.Name
	}
	vsMembers, err := h.store.Stats(ctx, c.i.GuildID, who, false)
	if err != nil {
		return nil, err
	}
	vsBot, err := h.store.Stats(ctx, c.i.GuildID, who, true)
	if err != nil {
		return nil, err
	}
	rated, err := h.store.Rating(ctx, c.i.GuildID, who)
	if err != nil {
		return nil, err
	}
	var pair *sessions.PairRecord
	if who != c.user {
		rec, err := h.store.Pair(ctx, c.i.GuildID, who, c.user)
		if err != nil {
			return nil, err
		}
		pair = &rec
	}
	msg := renderStats(c.public(nil), c.i.GuildID == "", whoName, vsMembers, vsBot, pair, c.name)
	if rated.Games > 0 {
		l := c.public(nil)
		id := "stats_rating"
		if rated.Provisional() {
			id = "stats_rating_provisional"
		}
		e := msg.Embeds[0]
		e.Description = l.N(id, rated.Games, "Rating", ratingValue(rated.R), "RD", ratingValue(rated.RD), "Best", ratingValue(rated.Best)) +
			"\n" + e.Description
	}
	return newMessage(msg), nil
}

// renderStats draws the record of the member called userName: against
// members, against the member called asker who asked (pair, from the
// member's side; nil when they asked about themselves), and against the
// bot, the last two in one format, "Bob vs Alice: 0–2". With direct set,
// the record is the one of direct messages and group chats, titled so.
func renderStats(l *locale.Localizer, direct bool, userName string, st, vsBot sessions.Stats, pair *sessions.PairRecord, asker string) *message {
	var lines []string
	if st.Matches == 0 {
		lines = append(lines, l.T("stats_none"))
	} else {
		lines = append(lines,
			l.T("stats_matches", "Matches", st.Matches, "Wins", st.Wins, "Losses", st.Losses, "Rate", percent(l, st.WinRate())),
			l.T("stats_rounds", "Won", st.RoundsWon, "Lost", st.RoundsLost, "Drawn", st.RoundsDrawn),
			streak(l, st))
	}
	who := escapeName(l, userName)
	if pair != nil {
		lines = append(lines, l.T("stats_versus", "Player", who, "Other", escapeName(l, asker), "Wins", pair.Wins, "Losses", pair.Losses))
	}
	if vsBot.Matches > 0 {
		lines = append(lines, l.T("stats_versus", "Player", who, "Other", botName, "Wins", vsBot.Wins, "Losses", vsBot.Losses))
	}
	return &message{
		AllowedMentions: noMentions(),
		Embeds: []*discordgo.MessageEmbed{{
			Title:       l.T(scoped("stats_title", direct), "Name", escapeName(l, userName)),
			Description: strings.Join(lines, "\n"),
			Color:       themes[0].color(0),
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

// leaderboardOptions are the options of /connectn leaderboard.
type leaderboardOptions struct {
	By optString
}

func (o *leaderboardOptions) declare(s *optionSet) {
	s.optChoice("by", &o.By, []choice{{value: "rating", label: "choice_by_rating"}, {value: "wins", label: "choice_by_wins"}})
}

// leaderboard handles /connectn leaderboard: the top 10 of this server
// by rating (Glicko-2, members with sessions.MinRatedGames rated matches
// or more) where members have one, else, or with by:wins, by match wins
// between members; the ranking rule, short, under it.
func (h *stats) leaderboard(ctx context.Context, c *call, o *leaderboardOptions) (*discordgo.InteractionResponse, error) {
	l := c.public(nil)
	if o.By.v != "wins" {
		rated, err := h.store.RatingLeaderboard(ctx, c.i.GuildID, leaderboardTop)
		if err != nil {
			return nil, err
		}
		if len(rated) > 0 || o.By.set {
			return newMessage(renderRatingLeaderboard(l, rated)), nil
		}
	}
	top, err := h.store.Leaderboard(ctx, c.i.GuildID, leaderboardTop)
	if err != nil {
		return nil, err
	}
	return newMessage(renderLeaderboard(l, c.i.GuildID == "", top)), nil
}

// renderRatingLeaderboard draws the ranking by rating: "🥇 @Alice —
// 1612 ± 64", with the rule in the footer.
func renderRatingLeaderboard(l *locale.Localizer, top []sessions.MemberRating) *message {
	var lines []string
	if len(top) == 0 {
		lines = append(lines, l.T("leaderboard_empty"))
	}
	for n, r := range top {
		rank := l.T("leaderboard_rank", "Rank", n+1)
		if n < len(medals) {
			rank = medals[n]
		}
		lines = append(lines, l.T("leaderboard_rating_row", "Rank", rank, "Member", mention(r.UserID),
			"Rating", ratingValue(r.R), "RD", ratingValue(r.RD)))
	}
	return &message{
		AllowedMentions: noMentions(),
		Embeds: []*discordgo.MessageEmbed{{
			Title: l.T("leaderboard_rating_title"),
			// The rule quotes a command, which a footer would show with its
			// backticks: the last paragraph states it.
			Description: strings.Join(lines, "\n") + "\n\n" + l.T("leaderboard_rating_footer"),
			Color:       themes[0].color(0),
		}},
		Components: []discordgo.MessageComponent{},
	}
}

// medals mark the first three places of the leaderboard.
var medals = []string{"🥇", "🥈", "🥉"}

// renderLeaderboard draws the ranked list, one member a compact line that
// stays on one line in a client 400 pixels wide, even with a long name and
// two-digit figures: "🥇 @Alice — 3–1 · 75%", match wins–losses and win
// rate, which the footer names with the ranking rule.
func renderLeaderboard(l *locale.Localizer, direct bool, top []sessions.Stats) *message {
	var lines []string
	if len(top) == 0 {
		lines = append(lines, l.T(scoped("leaderboard_empty", direct)))
	}
	for n, st := range top {
		rank := l.T("leaderboard_rank", "Rank", n+1)
		if n < len(medals) {
			rank = medals[n]
		}
		lines = append(lines, l.T("leaderboard_row", "Rank", rank, "Member", mention(st.UserID),
			"Wins", st.Wins, "Losses", st.Losses, "Rate", percent(l, st.WinRate())))
	}
	return &message{
		AllowedMentions: noMentions(),
		Embeds: []*discordgo.MessageEmbed{{
			Title:       l.T(scoped("leaderboard_title", direct)),
			Description: strings.Join(lines, "\n"),
			Color:       themes[0].color(0),
			Footer:      &discordgo.MessageEmbedFooter{Text: l.T("leaderboard_footer")},
		}},
		Components: []discordgo.MessageComponent{},
	}
}
