package render

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/game/ai"
	"github.com/connectn/connectn/locale"
	"github.com/connectn/connectn/picture"
	"github.com/connectn/connectn/sessions"
)

// PositionRound returns the round that moves (legal, zero-based) make
// from the empty board of cfg, opener opening.
func PositionRound(cfg game.Config, opener game.Player, moves []int) *game.Round {
	cfg.Wins, cfg.Openers, cfg.FirstOpener = 1, game.AlwaysFirst, opener
	m, err := game.NewMatch(cfg)
	if err != nil {
		return nil
	}
	for _, c := range moves {
		if _, err := m.Play(m.ToMove(), c); err != nil {
			break
		}
	}
	return m.Round()
}

// Position draws the position moves make on a board of cfg, and the
// Value of each column for the player to move.
func Position(l *locale.Localizer, cfg game.Config, moves []int, vals []ai.Verdict) *Message {
	t := Themes[0]
	r := PositionRound(cfg, game.Player1, moves)
	title := l.T("analyze_title_empty")
	if len(moves) > 0 {
		title = l.N("analyze_title", len(moves))
	}
	var lines []string
	switch {
	case r.Outcome() == game.Won:
		lines = append(lines, l.T("analyze_over", "Player", t.Disc[r.Winner()]))
	case r.Outcome() == game.Drawn:
		lines = append(lines, l.T("analyze_full"))
	default:
		lines = append(lines, l.T("analyze_to_move", "Player", t.Disc[r.ToMove()]))
		for _, v := range vals {
			lines = append(lines, l.T("analyze_column", "Column", HeaderLabel(v.Column, cfg.Columns), "Value", Value(l, v)))
		}
	}
	desc := Grid(t, r) + "\n" + strings.Join(lines, "\n")
	if len(moves) > 0 {
		desc = "`" + game.MovesCode(moves) + "`\n\n" + desc
	}
	return &Message{
		AllowedMentions: NoMentions(),
		Components:      []discordgo.MessageComponent{},
		Embeds: []*discordgo.MessageEmbed{{
			Title: title, Description: desc, Color: t.ColorOf(game.NoPlayer),
			Footer: &discordgo.MessageEmbedFooter{Text: l.T("settings_size", "Rows", l.N("settings_rows", cfg.Rows),
				"Columns", l.N("settings_columns", cfg.Columns)) + " · Connect " + strconv.Itoa(cfg.Connect) + " · " + l.T("analyze_footer")},
		}},
	}
}

// HeaderLabel returns column c's label as the board's header shows it:
// a keycap up to 10 columns, a regional letter beyond.
func HeaderLabel(c, columns int) string {
	if usesLetters(columns) {
		return string(rune(0x1F1E6 + c))
	}
	return keycaps[c]
}

// Value says what is proved of a column or a position: a win or a loss in
// n discs, a win in at most n, a win or a loss (the distance not settled),
// a draw, not settled, or full.
func Value(l *locale.Localizer, v ai.Verdict) string {
	switch {
	case !v.Legal:
		return l.T("value_full")
	case v.Outcome == ai.Win && v.Exact:
		return l.N("value_win", v.In)
	case v.Outcome == ai.Win && v.In > 0:
		return l.N("value_win_at_most", v.In)
	case v.Outcome == ai.Win:
		return l.T("value_wins")
	case v.Outcome == ai.Loss && v.Exact:
		return l.N("value_loss", v.In)
	case v.Outcome == ai.Loss:
		return l.T("value_loses")
	case v.Outcome == ai.Draw:
		return l.T("value_draw")
	}
	return l.T("value_unsettled")
}

// Chart adds to msg the evaluation chart of analysis a of round r
// (picture.EvalChart, drawn with gonum/plot): the move numbers across, the
// verdict on the position each disc left up the side (Player 1's wins at
// the top, the quicker the higher, a draw in the middle, Player 2's wins
// at the bottom), in the players' colours of the match's theme, the moves
// not settled in time as gaps, and each move that gave the result away
// ringed and labelled with its number, as the analysis lists it. Its
// description (the embed's text, read out by screen readers) says what it
// shows (ChartAlt), which is also the attachment's description (Attach).
// A round with no move, or one the chart cannot draw, adds nothing.
func Chart(l *locale.Localizer, msg *Message, s *sessions.Session, r *game.Round, a *ai.Analysis) {
	c, ok := EvalChart(l, s, r, a)
	if !ok {
		return
	}
	var png bytes.Buffer
	if err := picture.EncodeEvalChart(&png, c); err != nil {
		return
	}
	file := "connectn-match-" + strconv.FormatInt(s.ID, 10) + "-round-" + strconv.Itoa(r.Number()) + "-chart.png"
	alt := ChartAlt(l, s, r, c)
	msg.Embeds = append(msg.Embeds, &discordgo.MessageEmbed{
		Description: alt,
		Image:       &discordgo.MessageEmbedImage{URL: Attach(msg, file, png.Bytes(), alt)},
		Color:       ThemeNamed(s.Theme).ColorOf(r.Opener()),
	})
}

// EvalChart returns the evaluation chart of analysis a of round r of s, in
// l's words, and false when the round has no move or more than the chart
// draws. A move whose result is known but not its distance
// (ai.MoveReview.AfterExact false) is drawn as the slowest win its side
// can have, the bound it is known to keep.
func EvalChart(l *locale.Localizer, s *sessions.Session, r *game.Round, a *ai.Analysis) (picture.EvalChart, bool) {
	n := len(a.Moves)
	if n == 0 || n > picture.MaxChartPlies {
		return picture.EvalChart{}, false
	}
	cells := s.Config.Rows * s.Config.Columns
	st := ThemeNamed(s.Theme).Picture
	c := picture.EvalChart{Plies: make([]picture.Verdict, n), Opener: r.Opener(), Cells: cells}
	for _, p := range []game.Player{game.Player1, game.Player2} {
		c.Sides[p] = st.Side(p, memberName(s, p))
		c.Text.Outcomes[p] = l.T("chart_wins", "Player", memberName(s, p))
	}
	c.Text.Outcomes[game.NoPlayer] = l.T("chart_draw")
	c.Text.Move, c.Text.Mistake, c.Text.Unsettled = l.T("chart_move"), l.T("chart_mistake"), l.T("chart_unsettled")
	for i, mv := range a.Moves {
		if !mv.Settled {
			continue
		}
		v := picture.Verdict{Settled: true}
		if mv.After != 0 {
			v.Winner, v.Distance = chartWin(cells, r.Opener(), mv)
		}
		c.Plies[i] = v
		if !mv.Kept {
			c.Mistakes = append(c.Mistakes, picture.Mistake{Ply: i, Label: strconv.Itoa(mv.Ply + 1)})
		}
	}
	return c, true
}

// chartWin returns who wins after move mv (whose After is not 0) of a
// round on a board of cells cells opened by opener, and how many plies
// after mv their winning disc falls: from the exact score, or, when After
// is not exact, the latest that player's disc can fall.
func chartWin(cells int, opener game.Player, mv ai.MoveReview) (game.Player, int) {
	winner, score := mv.Player, mv.After
	if score < 0 {
		winner, score = mv.Player.Other(), -score
	}
	parity := 0 // the winner's discs fall on even plies (0, 2, ...) when they opened
	if winner != opener {
		parity = 1
	}
	// Pons' score (cells + 1 - n)/2 for the winning disc at ply n (from 0).
	at := cells + 1 - 2*score
	if !mv.AfterExact {
		at = cells - 1
	}
	for at%2 != parity {
		at--
	}
	if at < mv.Ply {
		at = mv.Ply
	}
	return winner, at - mv.Ply
}

// memberName is player p's name as a picture or an alt text says it: on one
// line, no markdown.
func memberName(s *sessions.Session, p game.Player) string {
	name := strings.Join(strings.Fields(s.Member(p).Name), " ")
	if r := []rune(name); len(r) > maxNameLength {
		name = string(r[:maxNameLength]) + "…"
	}
	return name
}

// ChartAlt returns the description of evaluation chart c of round r of s
// in l's language: what the chart shows and for whom, the moves that gave
// the result away, and how many moves were not settled in time.
func ChartAlt(l *locale.Localizer, s *sessions.Session, r *game.Round, c picture.EvalChart) string {
	f := c.Facts()
	parts := []string{l.N("chart_alt", f.Plies, "Round", r.Number(),
		"Player1", memberName(s, game.Player1), "Player2", memberName(s, game.Player2))}
	if len(f.Mistakes) > 0 {
		moves := make([]string, len(f.Mistakes))
		for i, m := range f.Mistakes {
			moves[i] = m.Label
		}
		parts = append(parts, l.T("chart_alt_mistakes", "Moves", strings.Join(moves, ", ")))
	}
	if unsettled := f.Plies - f.Settled; unsettled > 0 {
		parts = append(parts, l.N("chart_alt_unsettled", unsettled))
	}
	return Sentences(l, parts...)
}
