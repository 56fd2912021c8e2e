package bot

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot/internal/outbox"
	"github.com/connectn/connectn/bot/internal/render"

	"github.com/connectn/connectn/bot/internal/customid"
	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/game/ai"
	"github.com/connectn/connectn/sessions"
)

// Budgets of the solver on demand.
const (
	// analyzeBudget is how long /connectn analyze lets the solver think,
	// after its deferred response.
	analyzeBudget = 2500 * time.Millisecond
	// replayBudget is how long a replay step lets the solver value its
	// position, inside the click's 3-second response window.
	replayBudget = 1200 * time.Millisecond
)

// Refusals of a moves string.
var (
	reasonMoveNotColumn = sessions.NewReason("move_not_column")
	reasonMoveFull      = sessions.NewReason("move_full")
	reasonMoveAfterWin  = sessions.NewReason("move_after_win")
	reasonNoReplay      = sessions.NewReason("no_replay")
	reasonReplayUnknown = sessions.NewReason("replay_unknown")
)

// solver is the feature of the exact solver on demand: /connectn analyze,
// /connectn replay and its buttons, and the Analysis button under a
// finished match (ai.go).
type solver struct {
	store     historyStore
	boards    *outbox.Boards
	log       *slog.Logger
	engine    engine
	messenger Messenger // nil: no Analysis (it is sent through the messenger)
}

// historyStore is what solver reads.
type historyStore interface {
	getter
	History(ctx context.Context, channelID string, limit int) ([]*sessions.Session, error)
}

func (h *solver) routes() []route {
	return []route{
		command("analyze", h.analyze, helpLine("help_analyze"),
			mayDefer(discordgo.InteractionResponseDeferredChannelMessageWithSource)),
		command("replay", h.replay, helpLine("help_analyze")),
		button("analysis", matchParts, h.analysis, mayDefer(discordgo.InteractionResponseDeferredChannelMessageWithSource)),
		button("replay", replayParts, h.replayButton),
	}
}

// parseMoves reads a moves string for a board of cfg (spaces ignored;
// letters in either case; game's moves notation), playing the moves by the game's rules. It
// refuses, naming the first bad move, a character that is no column, a
// disc in a full column and a move after the game was won.
func parseMoves(s string, cfg game.Config) ([]int, error) {
	b, err := game.NewBoard(cfg.Rows, cfg.Columns)
	if err != nil {
		return nil, err
	}
	var moves []int
	player, won := game.Player1, false
	for _, ch := range s {
		if ch == ' ' {
			continue
		}
		n := len(moves) + 1
		c, ok := game.ParseColumnCode(ch)
		if !ok || c >= cfg.Columns {
			last := string(game.ColumnCode(cfg.Columns - 1))
			return nil, sessions.Refuse(reasonMoveNotColumn, "Char", string(ch), "Move", n, "Columns", last)
		}
		if won {
			return nil, sessions.Refuse(reasonMoveAfterWin, "Move", n)
		}
		row, err := b.Drop(c, player)
		if err != nil {
			return nil, sessions.Refuse(reasonMoveFull, "Move", n, "Column", string(game.ColumnCode(c)))
		}
		won = len(b.LinesThrough(row, c, cfg.Connect)) > 0
		moves = append(moves, c)
		player = player.Other()
	}
	return moves, nil
}

// analyzeOptions are the options of /connectn analyze.
type analyzeOptions struct {
	Moves                  optString
	Rows, Columns, Connect optInt
}

func (o *analyzeOptions) declare(s *optionSet) {
	s.text("moves", &o.Moves)
	s.optInteger("rows", &o.Rows, minRows, maxRows, defaultRows)
	s.optInteger("columns", &o.Columns, minColumns, maxColumns, defaultColumns)
	s.optInteger("connect", &o.Connect, minConnect, maxConnect, defaultConnect)
}

// analyze handles /connectn analyze: it reads the moves (refusing,
// privately, the first that cannot be played), answers "thinking…" in
// public, and after the response shows the position and each column's
// verdict (ai.Engine.ColumnVerdicts): what is known at once (on 7x6 the
// table of weak results and the opening book: win, draw or loss), with
// the distances the solver settles within analyzeBudget: win or loss in n
// discs, a win in at most n, draw, or not settled in time.
func (h *solver) analyze(ctx context.Context, c *call, o *analyzeOptions) (*discordgo.InteractionResponse, error) {
	if h.engine.ai == nil {
		return nil, sessions.Refuse(reasonNoAI)
	}
	cfg := game.Config{Rows: o.Rows.or(nil, defaultRows), Columns: o.Columns.or(nil, defaultColumns),
		Connect: o.Connect.or(nil, defaultConnect), Wins: 1}
	if err := sessions.CheckBoard(cfg.Rows, cfg.Columns, cfg.Connect); err != nil {
		return nil, err
	}
	moves, err := parseMoves(o.Moves.v, cfg)
	if err != nil {
		return nil, err
	}
	l := c.public(nil)
	c.afterResponse(func(ctx context.Context) {
		actx, cancel := context.WithTimeout(ctx, analyzeBudget)
		defer cancel()
		vals, err := h.engine.ai.ColumnVerdicts(actx, cfg, moves)
		if err != nil && !errors.Is(err, ai.ErrBoardTooLarge) {
			h.log.Error("analysing a position", "err", err)
			h.boards.EditOriginal(ctx, c.out(), &message{Content: l.T("analysis_failed"), AllowedMentions: render.NoMentions()})
			return
		}
		h.boards.EditOriginal(ctx, c.out(), render.Position(l, cfg, moves, vals))
	})
	return &discordgo.InteractionResponse{Type: discordgo.InteractionResponseDeferredChannelMessageWithSource}, nil
}

// replayOptions are the options of /connectn replay.
type replayOptions struct {
	Match optInt
}

func (o *replayOptions) declare(s *optionSet) {
	s.number("match", &o.Match, 1, 1<<30)
}

// replayParts are the custom_id parts of a replay's buttons: the match,
// which button (0 to 3: ⏮ ◀ ▶ ⏭, so that two buttons going to one step
// still have custom_ids of their own, as Discord wants) and the step it
// shows (from 0 before the first disc of the first round, over every
// round).
var replayParts = []customid.Part{partMatch, partPost, partPly}

// replay handles /connectn replay: the channel's last finished match (or
// the one numbered match, in this channel), privately, at its first step.
func (h *solver) replay(ctx context.Context, c *call, o *replayOptions) (*discordgo.InteractionResponse, error) {
	s, err := h.replayed(ctx, c.i.ChannelID, int64(o.Match.v), o.Match.set)
	if err != nil {
		return nil, err
	}
	return h.replayStep(ctx, c, s, 0, false), nil
}

// replayButton answers a replay's ⏮ ◀ ▶ ⏭ buttons: the step the button
// names (int(c.id.Part(2))), in place of the private message.
func (h *solver) replayButton(ctx context.Context, c *call) (*discordgo.InteractionResponse, error) {
	s, err := h.replayed(ctx, c.i.ChannelID, c.match(), true)
	if err != nil {
		return nil, err
	}
	return h.replayStep(ctx, c, s, int(c.id.Part(2)), true), nil
}

// replayed returns the finished match of channel numbered match (any
// when !numbered: the newest), from the channel's history.
func (h *solver) replayed(ctx context.Context, channelID string, match int64, numbered bool) (*sessions.Session, error) {
	list, err := h.store.History(ctx, channelID, 50)
	if err != nil {
		return nil, err
	}
	for _, s := range list {
		if s.Phase == sessions.PhaseFinished && (!numbered || s.ID == match) {
			return s, nil
		}
	}
	if numbered {
		return nil, sessions.Refuse(reasonReplayUnknown, "Match", match)
	}
	return nil, sessions.Refuse(reasonNoReplay)
}

// step is one disc of a match, over its rounds.
type step struct {
	round int // index in Rounds
	ply   int // discs of the round shown
}

// steps lists a match's steps: before the first disc, then each disc of
// each round (a round's last board is the first step of the next round's
// list only once: a round starts at its first disc).
func steps(m *game.Match) []step {
	out := []step{{0, 0}}
	for k, r := range m.Rounds() {
		for p := 1; p <= len(r.Moves()); p++ {
			out = append(out, step{k, p})
		}
	}
	return out
}

// replayStep draws step k of s's match (clamped to its steps) with the
// verdict on the position for the player to move (ai.Engine.PositionVerdict:
// what is known at once, and what the solver settles within replayBudget),
// and the buttons to the first, previous, next and last steps: a new
// private message, or (update) in place of the one clicked.
func (h *solver) replayStep(ctx context.Context, c *call, s *sessions.Session, k int, update bool) *discordgo.InteractionResponse {
	l := c.reader
	all := steps(s.Match)
	k = max(0, min(k, len(all)-1))
	st := all[k]
	rounds := s.Match.Rounds()
	played := rounds[st.round]
	moves := played.Moves()[:st.ply]
	cfg := s.Config
	r := render.PositionRound(cfg, played.Opener(), moves) // the round as it stood
	t := render.ThemeNamed(s.Theme)
	lines := []string{l.T("replay_start")}
	if last, ok := r.LastMove(); ok {
		lines[0] = l.T("replay_step", "Step", st.ply, "Steps", len(played.Moves()), "Disc", t.Disc[r.At(last.Row, last.Column)],
			"Column", render.ColumnLabel(last.Column, cfg.Columns))
	}
	if !r.Over() && h.engine.ai != nil {
		actx, cancel := context.WithTimeout(ctx, replayBudget)
		v, err := h.engine.ai.PositionVerdict(actx, cfg, moves)
		cancel()
		if err != nil {
			v = ai.Verdict{Column: -1, Legal: true}
		}
		lines = append(lines, l.T("replay_value", "Player", render.Name(l, s, r.ToMove()), "Value", render.Value(l, v)))
	} else if r.Over() {
		lines = append(lines, render.RoundResult(l, s, r))
	}
	nav := func(which int, label string, to int) discordgo.Button {
		return discordgo.Button{Label: label, Style: discordgo.SecondaryButton, Disabled: to == k || to < 0 || to >= len(all),
			CustomID: customid.New("replay", s.ID, int64(which), int64(max(0, min(to, len(all)-1)))).String()}
	}
	msg := &message{
		Flags:           discordgo.MessageFlagsEphemeral,
		AllowedMentions: render.NoMentions(),
		Embeds: []*discordgo.MessageEmbed{{
			Title:       l.T("replay_title", "Match", s.ID, "Round", st.round+1),
			Description: render.Grid(t, r) + "\n" + strings.Join(lines, "\n"),
			Color:       t.ColorOf(game.NoPlayer),
			Footer: &discordgo.MessageEmbedFooter{Text: l.T("replay_footer", "Player1", t.Disc[game.Player1]+" "+render.EscapeName(l, s.Players[0].Name),
				"Player2", t.Disc[game.Player2]+" "+render.EscapeName(l, s.Players[1].Name))},
		}},
		Components: []discordgo.MessageComponent{discordgo.ActionsRow{Components: []discordgo.MessageComponent{
			nav(0, "⏮", 0), nav(1, "◀", k-1), nav(2, "▶", k+1), nav(3, "⏭", len(all)-1),
		}}},
	}
	if update {
		return updateMessage(msg)
	}
	return &discordgo.InteractionResponse{Type: discordgo.InteractionResponseChannelMessageWithSource, Data: msg}
}
