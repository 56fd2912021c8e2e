package bot

import (
	"context"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot/internal/render"
	"github.com/connectn/connectn/internal/clock"

	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/game/ai"
	"github.com/connectn/connectn/sessions"
)

// AI chooses the bot's moves and reviews finished rounds; *ai.Engine
// satisfies it.
type AI interface {
	// Move returns the column (zero-based) the bot plays at level for the
	// player to move in m, within ctx's deadline.
	Move(ctx context.Context, m *game.Match, level ai.Level) (int, error)
	// Analyze reviews round r of a match played with cfg; it returns an
	// error wrapping ai.ErrBoardTooLarge for a board the solver cannot
	// settle.
	Analyze(ctx context.Context, cfg game.Config, r *game.Round) (*ai.Analysis, error)
	// Evaluate values every column of the position moves (zero-based,
	// from the empty board, Player1 first) reach on a board of cfg, for the
	// player to move, until ctx ends; see ai.Engine.Evaluate.
	Evaluate(ctx context.Context, cfg game.Config, moves []int) ([]ai.ColumnValue, error)
}

// WithAI lets members play against the bot, which chooses its moves with a,
// and offers the Analysis of finished matches on boards the solver settles.
func WithAI(a AI) Option {
	return func(h *Handler) { h.ai = a }
}

// The bot's time to think.
const (
	// aiInlineBudget bounds the bot's move inside an interaction's
	// response, which must reach Discord within 3 seconds.
	aiInlineBudget = 1200 * time.Millisecond
	// aiBackgroundBudget bounds a move made after a deferred response or
	// by the scheduler.
	aiBackgroundBudget = 5 * time.Second
	// analysisBudget bounds the analysis of a round; the interaction
	// token it answers through lives 15 minutes.
	analysisBudget = 20 * time.Second
)

// reasonNoAI refuses a match against the bot on a bot that runs without
// an AI.
var reasonNoAI = sessions.NewReason("no_ai")

// engine is the bot as a player: its AI (nil: the bot does not play) and
// where the time of its moves is reported.
type engine struct {
	ai      AI
	metrics Metrics
	clock   clock.Clock
}

// turns returns how the bot takes its turns: the engine at the session's
// level, each move within budget, its time measured.
func (h engine) turns(budget time.Duration) sessions.Bot {
	if h.ai == nil {
		return sessions.Bot{}
	}
	return sessions.Bot{Budget: budget, Move: func(ctx context.Context, m *game.Match, level string) (int, error) {
		l, err := ai.ParseLevel(level)
		if err != nil {
			return 0, err
		}
		start := h.clock.Now()
		column, err := h.ai.Move(ctx, m, l)
		h.metrics.AIMove(l.String(), clock.Since(h.clock, start))
		return column, err
	}}
}

// analysis answers Analysis under the channel's last finished match:
// privately, move by move, whether each move of the deciding round kept the
// position's value or gave it away, after a deferred response.
func (h *solver) analysis(ctx context.Context, c *call) (*discordgo.InteractionResponse, error) {
	s, err := finishedMatch(ctx, h.store, c)
	if err != nil {
		return nil, err
	}
	if h.messenger == nil || !h.engine.offersAnalysis(s) {
		return nil, sessions.Refuse(sessions.ReasonStale)
	}
	return c.deferPrivate(func(ctx context.Context) *message {
		actx, cancel := context.WithTimeout(ctx, analysisBudget)
		defer cancel()
		r := s.Match.Round()
		a, err := h.engine.ai.Analyze(actx, s.Config, r)
		msg := &message{AllowedMentions: render.NoMentions(), Components: []discordgo.MessageComponent{}}
		if err != nil {
			h.log.Error("analysing a round", "match", s.ID, "err", err)
			msg.Content = c.reader.T("analysis_failed")
		} else {
			msg.Embeds = []*discordgo.MessageEmbed{render.Analysis(c.reader, s, r, a)}
			render.Chart(c.reader, msg, s, r, a)
		}
		return msg
	}), nil
}

// offersAnalysis reports whether finished matches of s's settings get an
// Analysis button: the bot has an AI and the solver settles such boards.
func (h engine) offersAnalysis(s *sessions.Session) bool {
	return h.ai != nil && ai.Solvable(s.Config)
}
