package bot

import (
	"context"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot/internal/render"

	"github.com/connectn/connectn/sessions"
)

// leaderboardTop is how many members the leaderboard shows.
const leaderboardTop = 10

// stats is the feature of /connectn stats and /connectn leaderboard.
type stats struct {
	store statsStore
	// puzzles reads the members' puzzle records; nil: no puzzles.
	puzzles puzzleStatsStore
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
	msg := render.Stats(c.public(nil), c.i.GuildID == "", whoName, vsMembers, vsBot, pair, c.name, rated)
	if h.puzzles != nil {
		p, err := h.puzzles.PuzzlePlayer(ctx, who)
		if err != nil {
			return nil, err
		}
		render.AddPuzzleStats(c.public(nil), msg, p)
	}
	return newMessage(msg), nil
}

// leaderboardOptions are the options of /connectn leaderboard.
type leaderboardOptions struct {
	By optString
}

func (o *leaderboardOptions) declare(s *optionSet) {
	s.optChoice("by", &o.By, []choice{{value: "rating", label: "choice_by_rating"}, {value: "wins", label: "choice_by_wins"},
		{value: "puzzles", label: "choice_by_puzzles"}})
}

// leaderboard handles /connectn leaderboard: the top 10 of this server
// by rating (Glicko-2, members with sessions.MinRatedGames rated matches
// or more) where members have one, else, or with by:wins, by match wins
// between members; with by:puzzles, by puzzle rating (members with
// sessions.MinPuzzleAttempts rated puzzles or more who played one here);
// the ranking rule, short, under it.
func (h *stats) leaderboard(ctx context.Context, c *call, o *leaderboardOptions) (*discordgo.InteractionResponse, error) {
	l := c.public(nil)
	if o.By.v == "puzzles" {
		if h.puzzles == nil {
			return nil, sessions.Refuse(reasonPuzzlesOff)
		}
		top, err := h.puzzles.PuzzleLeaderboard(ctx, c.i.GuildID, leaderboardTop)
		if err != nil {
			return nil, err
		}
		return newMessage(render.PuzzleLeaderboard(l, top)), nil
	}
	if o.By.v != "wins" {
		rated, err := h.store.RatingLeaderboard(ctx, c.i.GuildID, leaderboardTop)
		if err != nil {
			return nil, err
		}
		if len(rated) > 0 || o.By.set {
			return newMessage(render.RatingLeaderboard(l, rated)), nil
		}
	}
	top, err := h.store.Leaderboard(ctx, c.i.GuildID, leaderboardTop)
	if err != nil {
		return nil, err
	}
	return newMessage(render.Leaderboard(l, c.i.GuildID == "", top)), nil
}
