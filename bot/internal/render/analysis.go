package render

import (
	"bytes"
	"math"
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
func Position(l *locale.Localizer, cfg game.Config, moves []int, vals []ai.ColumnValue) *Message {
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

// Value says what a column is worth: win or loss in n discs, a draw, not
// settled, or full.
func Value(l *locale.Localizer, v ai.ColumnValue) string {
	switch {
	case !v.Legal:
		return l.T("value_full")
	case !v.Settled:
		return l.T("value_unsettled")
	case v.Score > 0:
		return l.N("value_win", v.In)
	case v.Score < 0:
		return l.N("value_loss", v.In)
	}
	return l.T("value_draw")
}

// Chart adds to msg the picture of analysis a of round r: the value of
// the position after each disc, as chess sites chart a game, above the
// middle line a win for the round's opener, below for the other player,
// each disc that gave the result away crossed.
func Chart(l *locale.Localizer, msg *Message, s *sessions.Session, r *game.Round, a *ai.Analysis) {
	if len(a.Moves) == 0 {
		return
	}
	opener := r.Opener()
	best := float64((s.Config.Rows*s.Config.Columns + 1) / 2)
	c := picture.Chart{Values: make([]float64, len(a.Moves)), Settled: make([]bool, len(a.Moves))}
	st := ThemeNamed(s.Theme).Picture
	c.Players[1], c.Players[2] = st.Discs[opener], st.Discs[opener.Other()]
	for i, mv := range a.Moves {
		if !mv.Settled {
			continue
		}
		v := float64(mv.After) // the mover's side
		if v != 0 {
			v = (0.5 + 0.5*math.Abs(v)/best) * math.Copysign(1, v)
		}
		if mv.Player != opener {
			v = -v
		}
		c.Values[i], c.Settled[i] = v, true
		if !mv.Kept {
			c.Mistakes = append(c.Mistakes, i)
		}
	}
	var png bytes.Buffer
	if err := picture.EncodeChart(&png, c, pictureScale); err != nil {
		return
	}
	file := "connectn-match-" + strconv.FormatInt(s.ID, 10) + "-round-" + strconv.Itoa(r.Number()) + "-chart.png"
	msg.Embeds = append(msg.Embeds, &discordgo.MessageEmbed{
		Description: l.T("chart_caption", "Round", r.Number(), "Player1", Name(l, s, opener), "Player2", Name(l, s, opener.Other())),
		Image:       &discordgo.MessageEmbedImage{URL: "attachment://" + file},
		Color:       ThemeNamed(s.Theme).ColorOf(opener),
	})
	msg.Files = append(msg.Files, &discordgo.File{Name: file, ContentType: "image/png", Reader: bytes.NewReader(png.Bytes())})
}

// pictureScale is how large the board picture is drawn: 50 pixels a cell.
const pictureScale = 2

// Picture draws the private message of the Picture button under the
// finished match s: the deciding round's final board as an image in the
// match's theme (the classroom canvas of seed 002), with its caption in
// l's language. It returns picture.Encode's error.
func Picture(l *locale.Localizer, s *sessions.Session) (*Message, error) {
	var png bytes.Buffer
	r := s.Match.Round()
	if err := picture.Encode(&png, r, ThemeNamed(s.Theme).Picture, pictureScale); err != nil {
		return nil, err
	}
	file := "connectn-match-" + strconv.FormatInt(s.ID, 10) + "-round-" + strconv.Itoa(r.Number()) + ".png"
	return &Message{
		Content: l.T("picture_caption", "Round", r.Number(),
			"Player1", EscapeName(l, s.Players[0].Name), "Player2", EscapeName(l, s.Players[1].Name)),
		AllowedMentions: NoMentions(),
		Embeds:          []*discordgo.MessageEmbed{{Image: &discordgo.MessageEmbedImage{URL: "attachment://" + file}, Color: ThemeNamed(s.Theme).ColorOf(s.Match.Winner())}},
		Components:      []discordgo.MessageComponent{},
		Files:           []*discordgo.File{{Name: file, ContentType: "image/png", Reader: bytes.NewReader(png.Bytes())}},
	}, nil
}
