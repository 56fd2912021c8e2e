package bot

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/sessions"
)

// The emoji a board is drawn with: one per cell.
const (
	emojiEmpty   = "⚪"
	emojiRed     = "🔴" // game.Player1
	emojiYellow  = "🟡" // game.Player2
	emojiRedWin  = "🟥" // a Player1 disc on the winning line
	emojiYelWin  = "🟨" // a Player2 disc on the winning line
	colorRed     = 0xDD2E44
	colorYellow  = 0xFDCB58
	colorNeutral = 0x5865F2
)

// columnHeaders are the header emoji of columns 1 to 12: keycaps 1 to 10,
// then the eleven and twelve o'clock faces, the only single emoji that read
// as 11 and 12.
var columnHeaders = [...]string{"1️⃣", "2️⃣", "3️⃣", "4️⃣", "5️⃣", "6️⃣", "7️⃣", "8️⃣", "9️⃣", "🔟", "🕚", "🕛"}

// disc returns the emoji of p's disc.
func disc(p game.Player) string {
	switch p {
	case game.Player1:
		return emojiRed
	case game.Player2:
		return emojiYellow
	}
	return emojiEmpty
}

// drawGrid draws the board of r as rows of emoji, a header row of column
// numbers first, the top row of the board next. Discs on the winning line
// are drawn as squares.
func drawGrid(r *game.Round) string {
	b := r.Board()
	var sb strings.Builder
	for c := 0; c < b.Columns(); c++ {
		if c < len(columnHeaders) {
			sb.WriteString(columnHeaders[c])
		} else {
			sb.WriteString("#️⃣")
		}
	}
	sb.WriteByte('\n')
	for row := b.Rows() - 1; row >= 0; row-- {
		for c := 0; c < b.Columns(); c++ {
			p := b.At(row, c)
			switch {
			case p == game.Player1 && r.InLine(game.Cell{Row: row, Column: c}):
				sb.WriteString(emojiRedWin)
			case p == game.Player2 && r.InLine(game.Cell{Row: row, Column: c}):
				sb.WriteString(emojiYelWin)
			default:
				sb.WriteString(disc(p))
			}
		}
		sb.WriteByte('\n')
	}
	return sb.String()
}

// escapeName makes a display name safe to show inside markdown: it drops
// line breaks, trims it to maxNameLength runes and escapes markdown
// characters.
func escapeName(name string) string {
	name = strings.Join(strings.Fields(name), " ")
	if r := []rune(name); len(r) > maxNameLength {
		name = string(r[:maxNameLength]) + "…"
	}
	if name == "" {
		name = "someone"
	}
	var sb strings.Builder
	for _, c := range name {
		if strings.ContainsRune("\\*_~|<>[]()@`", c) {
			sb.WriteByte('\\')
		}
		sb.WriteRune(c)
	}
	return sb.String()
}

func mention(userID string) string { return "<@" + userID + ">" }

// name returns the escaped display name of player p of s, with their disc.
func name(s *sessions.Session, p game.Player) string {
	return disc(p) + " **" + escapeName(s.Member(p).Name) + "**"
}

// settingsLine describes a match's configuration in one line.
func settingsLine(cfg game.Config) string {
	return fmt.Sprintf("Connect %d · %d rows × %d columns · first to %d round %s",
		cfg.Connect, cfg.Rows, cfg.Columns, cfg.Wins, plural(cfg.Wins, "win", "wins"))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// renderChallenge draws the challenge message: both players mentioned, the
// settings, and Accept and Decline buttons.
func renderChallenge(s *sessions.Session) *discordgo.InteractionResponseData {
	challenger, opponent := s.Players[0], s.Players[1]
	return &discordgo.InteractionResponseData{
		Content: fmt.Sprintf("%s, %s challenges you to a match of Connect %d!",
			mention(opponent.ID), mention(challenger.ID), s.Config.Connect),
		AllowedMentions: &discordgo.MessageAllowedMentions{Parse: []discordgo.AllowedMentionType{}, Users: []string{opponent.ID}},
		Embeds: []*discordgo.MessageEmbed{{
			Title: "Connect " + strconv.Itoa(s.Config.Connect) + " challenge",
			Description: fmt.Sprintf("%s vs %s\n%s\n\n%s may accept; either player may decline.",
				name(s, game.Player1), name(s, game.Player2), settingsLine(s.Config), mention(opponent.ID)),
			Color: colorNeutral,
		}},
		Components: []discordgo.MessageComponent{discordgo.ActionsRow{Components: []discordgo.MessageComponent{
			discordgo.Button{Label: "Accept", Style: discordgo.SuccessButton, CustomID: route{Action: actAccept, Match: s.ID}.String()},
			discordgo.Button{Label: "Decline", Style: discordgo.DangerButton, CustomID: route{Action: actDecline, Match: s.ID}.String()},
		}}},
	}
}

// renderCancelled draws a challenge that was declined or withdrawn by the
// player with userID: the text says so and no button is left.
func renderCancelled(s *sessions.Session, userID string) *discordgo.InteractionResponseData {
	text := fmt.Sprintf("%s declined the challenge from %s.", mention(s.Players[1].ID), mention(s.Players[0].ID))
	if userID == s.Players[0].ID {
		text = fmt.Sprintf("%s withdrew the challenge to %s.", mention(s.Players[0].ID), mention(s.Players[1].ID))
	}
	return &discordgo.InteractionResponseData{
		Content:         text,
		AllowedMentions: noMentions(),
		Embeds: []*discordgo.MessageEmbed{{
			Title:       "Connect " + strconv.Itoa(s.Config.Connect) + " challenge",
			Description: fmt.Sprintf("%s vs %s\n%s\n\nNo match.", name(s, game.Player1), name(s, game.Player2), settingsLine(s.Config)),
		}},
		Components: []discordgo.MessageComponent{},
	}
}

// roundResult describes how round r ended.
func roundResult(s *sessions.Session, r *game.Round) string {
	switch r.Outcome() {
	case game.Won:
		return fmt.Sprintf("%s wins round %d with %d in a row!", name(s, r.Winner()), r.Number(), s.Config.Connect)
	case game.Drawn:
		return fmt.Sprintf("Round %d is a draw: the board is full.", r.Number())
	case game.Forfeited:
		return fmt.Sprintf("%s forfeited round %d.", name(s, r.Winner().Other()), r.Number())
	}
	return ""
}

// renderBoard draws a match in progress or finished: the players with their
// discs, the score, the board as emoji rows, whose turn it is, and below it
// one button per column (disabled when full) and a Forfeit button. When a
// round has just ended, its final board is shown, winning line highlighted,
// until the next round's first disc. Once the match is over the message keeps
// the final board and the result and has no buttons.
func renderBoard(s *sessions.Session) *discordgo.InteractionResponseData {
	m := s.Match
	cfg := m.Config()
	shown := m.Round()
	var status []string
	color := colorNeutral
	if m.Over() {
		winner := m.Winner()
		if m.Forfeited() {
			status = append(status, fmt.Sprintf("%s forfeited the match.", name(s, winner.Other())))
		} else if res := roundResult(s, shown); res != "" {
			status = append(status, res)
		}
		status = append(status, fmt.Sprintf("🏆 %s wins the match %d–%d!", name(s, winner), m.Score(winner), m.Score(winner.Other())))
		color = colorOf(winner)
	} else {
		if prev := m.Previous(); prev != nil && len(shown.Moves()) == 0 {
			shown = prev
			status = append(status, roundResult(s, prev))
			status = append(status, fmt.Sprintf("Round %d: %s opens. Pick a column.", m.Round().Number(), name(s, m.ToMove())))
		} else {
			status = append(status, fmt.Sprintf("Round %d: %s to play.", shown.Number(), name(s, m.ToMove())))
		}
		color = colorOf(m.ToMove())
	}

	var desc strings.Builder
	fmt.Fprintf(&desc, "%s vs %s\n", name(s, game.Player1), name(s, game.Player2))
	fmt.Fprintf(&desc, "Score: **%d – %d**", m.Score(game.Player1), m.Score(game.Player2))
	if d := m.Draws(); d > 0 {
		fmt.Fprintf(&desc, " · %d %s", d, plural(d, "draw", "draws"))
	}
	desc.WriteString("\n\n")
	desc.WriteString(drawGrid(shown))
	desc.WriteString("\n")
	desc.WriteString(strings.Join(status, "\n"))

	title := fmt.Sprintf("Connect %d · Round %d", cfg.Connect, m.Round().Number())
	if m.Over() {
		title = fmt.Sprintf("Connect %d · Match over", cfg.Connect)
	}
	content := fmt.Sprintf("%s vs %s", mention(s.Players[0].ID), mention(s.Players[1].ID))
	if !m.Over() {
		content = fmt.Sprintf("%s, your move.", mention(s.Member(m.ToMove()).ID))
	}
	data := &discordgo.InteractionResponseData{
		Content:         content,
		AllowedMentions: noMentions(),
		Embeds: []*discordgo.MessageEmbed{{
			Title:       title,
			Description: desc.String(),
			Color:       color,
			Footer:      &discordgo.MessageEmbedFooter{Text: settingsLine(cfg)},
		}},
		Components: []discordgo.MessageComponent{},
	}
	if !m.Over() {
		data.Components = boardButtons(s)
	}
	return data
}

func colorOf(p game.Player) int {
	switch p {
	case game.Player1:
		return colorRed
	case game.Player2:
		return colorYellow
	}
	return colorNeutral
}

// boardButtons returns one button per column, labelled 1 to columns and
// disabled when the column is full, five to an action row, and a Forfeit
// button after them. With at most 12 columns that is at most 3 rows.
func boardButtons(s *sessions.Session) []discordgo.MessageComponent {
	m := s.Match
	b := m.Round().Board()
	var buttons []discordgo.MessageComponent
	for c := 0; c < b.Columns(); c++ {
		buttons = append(buttons, discordgo.Button{
			Label:    strconv.Itoa(c + 1),
			Style:    discordgo.SecondaryButton,
			CustomID: route{Action: actDrop, Match: s.ID, Ply: m.Plies(), Column: c + 1}.String(),
			Disabled: !b.CanDrop(c),
		})
	}
	buttons = append(buttons, discordgo.Button{
		Label:    "Forfeit",
		Style:    discordgo.DangerButton,
		CustomID: route{Action: actForfeit, Match: s.ID}.String(),
	})
	var rows []discordgo.MessageComponent
	for len(buttons) > 0 {
		n := min(5, len(buttons))
		rows = append(rows, discordgo.ActionsRow{Components: buttons[:n]})
		buttons = buttons[n:]
	}
	return rows
}

// ephemeral returns a private reply with text, seen only by the user who
// clicked or typed, that mentions no one.
func ephemeral(text string) *discordgo.InteractionResponse {
	return &discordgo.InteractionResponse{
		Type: discordgo.InteractionResponseChannelMessageWithSource,
		Data: &discordgo.InteractionResponseData{
			Content:         text,
			Flags:           discordgo.MessageFlagsEphemeral,
			AllowedMentions: noMentions(),
		},
	}
}

// noMentions allows no mention to ping anyone. Parse is an empty list, not
// null, as Discord's documentation shows it.
func noMentions() *discordgo.MessageAllowedMentions {
	return &discordgo.MessageAllowedMentions{Parse: []discordgo.AllowedMentionType{}}
}
