package bot

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bwmarrin/discordgo"

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
	// botName is the bot's name on the board when it plays.
	botName = "ConnectN"
)

// aiSide is the bot's side in a match against it: it is always the
// opponent, game.Player2; `first` decides who opens.
const aiSide = game.Player2

// errNoAI means a match against the bot was asked for on a bot that runs
// without an AI.
var errNoAI = errors.New("playing the bot is not enabled")

// aiToMove reports whether it is the bot's turn in s.
func aiToMove(s *sessions.Session) bool {
	return s.AI != "" && s.Phase == sessions.PhasePlaying && s.Match.ToMove() == aiSide
}

// aiTurn plays the bot's moves while it is the bot's turn in s (one, or
// two when its move ends a round that it opens next... which alternating
// openers make impossible, but the loop does not rely on it), each within
// budget and ctx. It returns how many it played, and the engine's error
// when it could not move.
func (h *Handler) aiTurn(ctx context.Context, s *sessions.Session, budget time.Duration) (int, error) {
	if h.ai == nil {
		return 0, errNoAI
	}
	level, err := ai.ParseLevel(s.AI)
	if err != nil {
		return 0, err
	}
	n := 0
	for aiToMove(s) && !s.Match.Over() && n < 4 {
		mctx, cancel := context.WithTimeout(ctx, budget)
		start := time.Now()
		column, err := h.ai.Move(mctx, s.Match, level)
		cancel()
		h.metrics.AIMove(level.String(), time.Since(start))
		if err != nil {
			return n, fmt.Errorf("the AI's move: %w", err)
		}
		if _, err := s.Match.Play(aiSide, column); err != nil {
			return n, fmt.Errorf("the AI chose column %d: %w", column+1, err)
		}
		n++
	}
	return n, nil
}

// afterMoves brings s up to date after discs were dropped at now in a
// match that was in round `round`: the match's end, the next deadline (at
// once when it is the bot's turn, so the scheduler plays it), and, when a
// round ended and the match goes on, a new board to post. It reports
// whether a round ended without ending the match.
func (h *Handler) afterMoves(s *sessions.Session, round int, now time.Time) bool {
	if s.Match.Over() {
		s.Phase, s.End = sessions.PhaseFinished, sessions.EndWon
		return false
	}
	s.Deadline = now.Add(h.turnTimeout)
	if aiToMove(s) {
		s.Deadline = now
	}
	if s.Match.Round().Number() == round {
		return false
	}
	s.PostSeq++
	s.PostDue = now.Add(postGrace)
	s.MessageID = ""
	s.Webhook.Message = "" // the token posts the next board, as a follow-up
	return true
}

// aiSettle plays the bot's turn that is due in s (from the scheduler, or
// after a deferred response), edits the board message that hook and
// messageID name, and posts the next board when a round ended.
func (h *Handler) aiSettle(ctx context.Context, channelID string, match int64) {
	now := h.now()
	var (
		round      int
		roundEnded bool
		hook       sessions.Webhook
		messageID  string
	)
	s, err := h.store.Update(ctx, channelID, func(s *sessions.Session) error {
		if s.ID != match || !aiToMove(s) {
			return errNothingDue
		}
		hook, messageID, round = s.Webhook, s.MessageID, s.Match.Round().Number()
		if n, err := h.aiTurn(ctx, s, aiBackgroundBudget); n == 0 {
			return err
		}
		roundEnded = h.afterMoves(s, round, now)
		return nil
	})
	if err != nil {
		if !errors.Is(err, errNothingDue) {
			h.log.Warn("the bot's turn", "match", match, "channel", channelID, "err", err)
		}
		return
	}
	old := *s
	old.Webhook, old.MessageID = hook, messageID
	switch {
	case s.Phase == sessions.PhaseFinished:
		h.editBoard(ctx, &old, h.renderMatchOver(ctx, s, false))
	case roundEnded:
		h.editBoard(ctx, &old, renderRoundRecord(s, s.Match.Rounds()[round-1]))
	case s.PostDue.IsZero():
		h.editBoard(ctx, &old, renderBoard(s))
	}
	if !s.PostDue.IsZero() {
		h.postPending(ctx, s.ChannelID, s.ID) // the board to post shows the bot's move
	}
}

// solvable reports whether the exact solver settles boards of cfg: its
// bitboard, (rows + 1) × columns bits, fits in 64.
func solvable(cfg game.Config) bool { return (cfg.Rows+1)*cfg.Columns <= 64 }

// analysisOffered reports whether finished matches of s's settings get an
// Analysis button.
func (h *Handler) analysisOffered(s *sessions.Session) bool {
	return h.ai != nil && solvable(s.Config)
}

// renderMatchOver draws the finished match s with its players' record
// and the buttons this handler offers.
func (h *Handler) renderMatchOver(ctx context.Context, s *sessions.Session, rematched bool) *message {
	return renderMatchOver(s, h.pair(ctx, s), rematched, h.analysisOffered(s))
}

// analysisButton answers Analysis under the channel's last finished match:
// privately, move by move, whether each move of the deciding round kept the
// position's value or gave it away, after a deferred response.
func (h *Handler) analysisButton(ctx context.Context, i *discordgo.Interaction, r route) (*discordgo.InteractionResponse, error) {
	s, err := h.store.Get(ctx, i.ChannelID)
	if errors.Is(err, sessions.ErrNotFound) || (err == nil && s.ID != r.Match) {
		return nil, errStale
	}
	if err != nil {
		return nil, err
	}
	if s.Phase != sessions.PhaseFinished || h.messenger == nil || !h.analysisOffered(s) {
		return nil, errStale
	}
	h.afterResponse(i, func(ctx context.Context) { h.sendAnalysis(ctx, i, s) })
	return &discordgo.InteractionResponse{
		Type: discordgo.InteractionResponseDeferredChannelMessageWithSource,
		Data: &message{Flags: discordgo.MessageFlagsEphemeral},
	}, nil
}

// sendAnalysis analyses s's last round and puts it in the deferred private
// answer to i.
func (h *Handler) sendAnalysis(ctx context.Context, i *discordgo.Interaction, s *sessions.Session) {
	actx, cancel := context.WithTimeout(ctx, analysisBudget)
	defer cancel()
	r := s.Match.Round()
	a, err := h.ai.Analyze(actx, s.Config, r)
	msg := &message{AllowedMentions: noMentions(), Components: []discordgo.MessageComponent{}}
	if err != nil {
		h.log.Error("analysing a round", "match", s.ID, "err", err)
		msg.Content = "Sorry, I could not analyse this round."
	} else {
		msg.Embeds = []*discordgo.MessageEmbed{renderAnalysis(s, r, a)}
	}
	err = h.early(ctx, func() error {
		return h.messenger.EditWebhookMessage(ctx, i.AppID, i.Token, "@original", msg)
	}, discordgo.ErrCodeUnknownWebhook, discordgo.ErrCodeUnknownMessage)
	if err != nil {
		h.log.Warn("sending the analysis", "match", s.ID, "channel", s.ChannelID, "err", restErrorText(err))
	}
}
