package bot

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/game/ai"
	"github.com/connectn/connectn/sessions"
)

// keycaps are the header emoji of columns 1 to 10, matching buttons "1" to
// "10".
var keycaps = [...]string{"1️⃣", "2️⃣", "3️⃣", "4️⃣", "5️⃣", "6️⃣", "7️⃣", "8️⃣", "9️⃣", "🔟"}

// zwsp keeps regional indicator symbols apart: two in a row would otherwise
// join into a flag (🇨🇩) and shift every column after them.
const zwsp = "\u200b"

// tallRows is the height from which the header row is repeated under the
// board, so that the bottom rows need no scrolling back to read a column.
const tallRows = 8

// usesLetters reports whether a board of columns columns labels them with
// letters: numbers up to 10 columns (keycaps 1️⃣ to 🔟), letters beyond,
// where no keycap exists.
func usesLetters(columns int) bool { return columns > len(keycaps) }

// columnLabel returns the label of column c (zero-based) on a board of
// columns columns, as on its button: "1" to "10", or "A" to "Z".
func columnLabel(c, columns int) string {
	if usesLetters(columns) {
		return string(rune('A' + c))
	}
	return strconv.Itoa(c + 1)
}

// headerRow returns the row of column headers, each reading as its
// button's label: keycaps, or regional indicator letters kept apart by
// zero-width spaces.
func headerRow(columns int) string {
	var sb strings.Builder
	for c := 0; c < columns; c++ {
		if !usesLetters(columns) {
			sb.WriteString(keycaps[c])
			continue
		}
		if c > 0 {
			sb.WriteString(zwsp)
		}
		sb.WriteRune(rune(0x1F1E6 + c)) // 🇦 + c
	}
	return sb.String()
}

// drawGrid draws round r in theme t: the header row, the board's rows top
// first, and the header again under a tall board. Discs on the winning line
// are drawn with the theme's winning marks, and the last disc played with
// its last-disc mark unless it is on the line.
func drawGrid(t Theme, r *game.Round) string {
	rows, columns := r.Rows(), r.Columns()
	last, hasLast := r.LastMove()
	var sb strings.Builder
	sb.WriteString(headerRow(columns))
	sb.WriteByte('\n')
	for row := rows - 1; row >= 0; row-- {
		for c := 0; c < columns; c++ {
			p := r.At(row, c)
			cell := game.Cell{Row: row, Column: c}
			switch {
			case p == game.NoPlayer:
				sb.WriteString(t.Empty)
			case r.InLine(cell):
				sb.WriteString(t.Win[p])
			case hasLast && cell == last:
				sb.WriteString(t.Last[p])
			default:
				sb.WriteString(t.Disc[p])
			}
		}
		sb.WriteByte('\n')
	}
	if rows >= tallRows {
		sb.WriteString(headerRow(columns))
		sb.WriteByte('\n')
	}
	return sb.String()
}

// boardNotes returns the lines under a grid: each player's longest run and
// where the last disc went.
func boardNotes(s *sessions.Session, r *game.Round) string {
	t := themeNamed(s.Theme)
	// Built without fmt: this runs at every move.
	notes := "Longest run: " + t.Disc[game.Player1] + " **" + strconv.Itoa(r.LongestRun(game.Player1)) + "** · " +
		t.Disc[game.Player2] + " **" + strconv.Itoa(r.LongestRun(game.Player2)) + "**"
	if last, ok := r.LastMove(); ok {
		p := r.At(last.Row, last.Column)
		mark := t.Last[p]
		if r.InLine(last) {
			mark = t.Win[p]
		}
		notes += " · Last disc: " + mark + " column " + columnLabel(last.Column, r.Columns())
	}
	return notes
}

// escapeName makes a display name safe to show inside markdown: it drops
// line breaks, trims it to maxNameLength runes and escapes markdown
// characters.
func escapeName(name string) string {
	if plainName(name) {
		return name // most names: nothing to change, nothing to allocate
	}
	return escapeAnyName(name)
}

// escapeAnyName is escapeName for any name, without the shortcut.
func escapeAnyName(name string) string {
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

// plainName reports whether escapeName leaves name as it is: ASCII
// letters, digits, '.' and '-', with single spaces between words, at most
// maxNameLength bytes.
func plainName(name string) bool {
	if name == "" || len(name) > maxNameLength {
		return false
	}
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '.', c == '-':
		case c == ' ' && i > 0 && i < len(name)-1 && name[i-1] != ' ':
		default:
			return false
		}
	}
	return true
}

func mention(userID string) string { return "<@" + userID + ">" }

// timestamp formats t as a Discord timestamp that every client shows in its
// own time zone, relative ("in 5 minutes").
func timestamp(t time.Time) string { return "<t:" + strconv.FormatInt(t.Unix(), 10) + ":R>" }

// name returns the escaped display name of player p of s in bold, after
// their disc.
func name(s *sessions.Session, p game.Player) string {
	return themeNamed(s.Theme).disc(p) + " **" + escapeName(s.Member(p).Name) + "**"
}

// scoreLine says whose score is whose: "🔴 **Alice** 1 – 0 **Bob** 🟡",
// with the drawn rounds after it.
func scoreLine(s *sessions.Session) string {
	t, m := themeNamed(s.Theme), s.Match
	line := t.Disc[game.Player1] + " **" + escapeName(s.Players[0].Name) + "** " + strconv.Itoa(m.Score(game.Player1)) +
		" – " + strconv.Itoa(m.Score(game.Player2)) + " **" + escapeName(s.Players[1].Name) + "** " + t.Disc[game.Player2]
	if d := m.Draws(); d > 0 {
		line += fmt.Sprintf(" · %d %s", d, plural(d, "draw", "draws"))
	}
	return line
}

// settingsLine describes a match's configuration in one line.
func settingsLine(cfg game.Config) string {
	return "Connect " + strconv.Itoa(cfg.Connect) + " · " + strconv.Itoa(cfg.Rows) + " rows × " + strconv.Itoa(cfg.Columns) +
		" columns · first to win " + strconv.Itoa(cfg.Wins) + " " + plural(cfg.Wins, "round", "rounds")
}

// footer is the settings line of s, and the bot's level when s is a match
// against the bot.
func footer(s *sessions.Session) string {
	if s.AI != "" {
		return settingsLine(s.Config) + " · against the bot (" + s.AI + ")"
	}
	return settingsLine(s.Config)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// message is what the bot shows: the data of an interaction response, also
// turned into follow-ups and edits by the messenger.
type message = discordgo.InteractionResponseData

// renderChallenge draws the challenge message: the challenged member
// mentioned, both players with their discs, the settings, who opens, the
// deadline, and Accept and Decline buttons.
func renderChallenge(s *sessions.Session) *message {
	challenger, opponent := s.Players[0], s.Players[1]
	opener := s.Config.OpenerOf(1)
	desc := fmt.Sprintf("%s vs %s\n%s\n%s opens round 1; the opener alternates each round.\n\n%s may accept; either player may decline.",
		name(s, game.Player1), name(s, game.Player2), settingsLine(s.Config), name(s, opener), mention(opponent.ID))
	if !s.Deadline.IsZero() {
		desc += fmt.Sprintf(" The challenge expires %s.", timestamp(s.Deadline))
	}
	return &message{
		Content: fmt.Sprintf("%s, %s challenges you to a match of Connect %d!",
			mention(opponent.ID), mention(challenger.ID), s.Config.Connect),
		AllowedMentions: &discordgo.MessageAllowedMentions{Parse: []discordgo.AllowedMentionType{}, Users: []string{opponent.ID}},
		Embeds: []*discordgo.MessageEmbed{{
			Title:       "Connect " + strconv.Itoa(s.Config.Connect) + " challenge",
			Description: desc,
			Color:       themeNamed(s.Theme).color(game.NoPlayer),
		}},
		Components: []discordgo.MessageComponent{discordgo.ActionsRow{Components: []discordgo.MessageComponent{
			discordgo.Button{Label: "Accept", Style: discordgo.SuccessButton, CustomID: route{Action: actAccept, Match: s.ID}.String()},
			discordgo.Button{Label: "Decline", Style: discordgo.DangerButton, CustomID: route{Action: actDecline, Match: s.ID}.String()},
		}}},
	}
}

// renderClosedChallenge draws a challenge that ended without a match:
// declined, withdrawn, expired or abandoned. The text says which and no
// button is left.
func renderClosedChallenge(s *sessions.Session) *message {
	challenger, opponent := mention(s.Players[0].ID), mention(s.Players[1].ID)
	var text string
	switch s.End {
	case sessions.EndDeclined:
		text = fmt.Sprintf("%s declined the challenge from %s.", opponent, challenger)
	case sessions.EndWithdrawn:
		text = fmt.Sprintf("%s withdrew the challenge to %s.", challenger, opponent)
	case sessions.EndExpired:
		text = fmt.Sprintf("⌛ The challenge from %s to %s expired: nobody accepted it in time.", challenger, opponent)
	default:
		text = fmt.Sprintf("The challenge from %s to %s was called off.", challenger, opponent)
	}
	return &message{
		Content:         text,
		AllowedMentions: noMentions(),
		Embeds: []*discordgo.MessageEmbed{{
			Title:       "Connect " + strconv.Itoa(s.Config.Connect) + " challenge",
			Description: fmt.Sprintf("%s vs %s\n%s\n\nNo match. Start a new one with `/connectn challenge`.", name(s, game.Player1), name(s, game.Player2), settingsLine(s.Config)),
			Color:       themeNamed(s.Theme).color(game.NoPlayer),
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
		if s.End == sessions.EndTimeout {
			return fmt.Sprintf("⌛ %s did not play in time and forfeits the match.", name(s, r.Winner().Other()))
		}
		if s.Match.Forfeited() {
			return fmt.Sprintf("%s forfeited the match.", name(s, r.Winner().Other()))
		}
		return fmt.Sprintf("%s forfeited round %d.", name(s, r.Winner().Other()), r.Number())
	}
	return ""
}

// boardEmbed assembles the embed of a board message: title, the score, the
// grid of r with its notes, status lines, and the settings in the footer.
func boardEmbed(s *sessions.Session, r *game.Round, title string, color int, status ...string) *discordgo.MessageEmbed {
	var desc strings.Builder
	desc.WriteString(scoreLine(s))
	desc.WriteString("\n\n")
	desc.WriteString(drawGrid(themeNamed(s.Theme), r))
	desc.WriteString(boardNotes(s, r))
	desc.WriteString("\n\n")
	desc.WriteString(strings.Join(status, "\n"))
	return &discordgo.MessageEmbed{
		Title:       title,
		Description: desc.String(),
		Color:       color,
		Footer:      &discordgo.MessageEmbedFooter{Text: footer(s)},
	}
}

// renderBoard draws the live board of a match being played: the player to
// move mentioned (and nobody else), the score, the current round's board,
// whose turn it is and when the turn runs out, one button per column
// (disabled when full) and a Forfeit match button on a row of its own.
func renderBoard(s *sessions.Session) *message {
	m := s.Match
	r := m.Round()
	toMove := m.ToMove()
	// Built without fmt: this runs at every move.
	round := strconv.Itoa(r.Number())
	status := "**Round " + round + "** · " + name(s, toMove) + " to play."
	switch {
	case aiToMove(s):
		status = "**Round " + round + "** · " + name(s, toMove) + " is thinking…"
	case r.Plies() == 0 && r.Number() > 1:
		status = "**Round " + round + "** · " + name(s, toMove) + " opens: pick a column."
	}
	if !s.Deadline.IsZero() && !aiToMove(s) {
		status += " The turn runs out " + timestamp(s.Deadline) + "."
	}
	return &message{
		Content:         mention(s.Member(toMove).ID) + ", your move.",
		AllowedMentions: &discordgo.MessageAllowedMentions{Parse: []discordgo.AllowedMentionType{}, Users: []string{s.Member(toMove).ID}},
		Embeds: []*discordgo.MessageEmbed{boardEmbed(s, r,
			"Connect "+strconv.Itoa(s.Config.Connect)+" · Round "+round,
			themeNamed(s.Theme).color(toMove), status)},
		Components: boardButtons(s),
	}
}

// renderRoundRecord draws round r, which has ended while the match goes on,
// as the record its message keeps: the final board with the winning line,
// the result and the score, and no buttons. The next round's board follows
// as a new message.
func renderRoundRecord(s *sessions.Session, r *game.Round) *message {
	winner := r.Winner()
	content := fmt.Sprintf("Round %d: a draw.", r.Number())
	if winner.Valid() {
		content = fmt.Sprintf("Round %d: %s wins.", r.Number(), escapeName(s.Member(winner).Name))
	}
	return &message{
		Content:         content,
		AllowedMentions: noMentions(),
		Embeds: []*discordgo.MessageEmbed{boardEmbed(s, r,
			fmt.Sprintf("Connect %d · Round %d result", s.Config.Connect, r.Number()),
			themeNamed(s.Theme).color(winner),
			roundResult(s, r), fmt.Sprintf("Round %d starts in a new message below.", r.Number()+1))},
		Components: []discordgo.MessageComponent{},
	}
}

// renderMatchOver draws a finished match: the last round's board, how it
// ended, the winner and the final score, the two players' record against
// each other in this server (pair, from Players[0]'s side; nil to leave it
// out), and the Rematch and Picture buttons (and Analysis when analysis is
// set) unless rematched says a rematch has started.
func renderMatchOver(s *sessions.Session, pair *sessions.PairRecord, rematched, analysis bool) *message {
	m := s.Match
	winner := m.Winner()
	status := []string{roundResult(s, m.Round()),
		fmt.Sprintf("🏆 %s wins the match %d – %d!", name(s, winner), m.Score(winner), m.Score(winner.Other()))}
	if pair != nil && s.AI == "" {
		status = append(status, fmt.Sprintf("Matches between them in this server: %s **%d** – **%d** %s",
			escapeName(s.Players[0].Name), pair.Wins, pair.Losses, escapeName(s.Players[1].Name)))
	}
	pictureButton := discordgo.Button{Label: "Picture", Style: discordgo.SecondaryButton, Emoji: &discordgo.ComponentEmoji{Name: "🖼️"},
		CustomID: route{Action: actPicture, Match: s.ID}.String()}
	row := []discordgo.MessageComponent{
		discordgo.Button{Label: "Rematch", Style: discordgo.PrimaryButton, Emoji: &discordgo.ComponentEmoji{Name: "🔁"},
			CustomID: route{Action: actRematch, Match: s.ID}.String()},
		pictureButton,
	}
	if analysis {
		row = append(row, discordgo.Button{Label: "Analysis", Style: discordgo.SecondaryButton, Emoji: &discordgo.ComponentEmoji{Name: "🔍"},
			CustomID: route{Action: actAnalysis, Match: s.ID}.String()})
	}
	components := []discordgo.MessageComponent{discordgo.ActionsRow{Components: row}}
	if rematched {
		status = append(status, "🔁 A rematch started in a new message below.")
		components = []discordgo.MessageComponent{}
	}
	return &message{
		Content:         fmt.Sprintf("🏆 %s wins the match against %s!", mention(s.Member(winner).ID), mention(s.Member(winner.Other()).ID)),
		AllowedMentions: noMentions(),
		Embeds: []*discordgo.MessageEmbed{boardEmbed(s, m.Round(),
			fmt.Sprintf("Connect %d · Match over", s.Config.Connect), themeNamed(s.Theme).color(winner), status...)},
		Components: components,
	}
}

// renderSession draws s as its board message should now read, whatever its
// phase: the challenge, the live board, the finished match (without the
// record against each other, which needs the store), or the closed
// challenge.
func renderSession(s *sessions.Session) *message {
	switch s.Phase {
	case sessions.PhaseChallenge:
		return renderChallenge(s)
	case sessions.PhasePlaying:
		return renderBoard(s)
	case sessions.PhaseFinished:
		return renderMatchOver(s, nil, false, false)
	}
	return renderClosedChallenge(s)
}

// boardButtons returns one button per column, labelled as the column
// headers read and disabled when the column is full, five to an action row,
// and the Forfeit match button alone on the last row. With at most 12
// columns that is at most 4 rows.
func boardButtons(s *sessions.Session) []discordgo.MessageComponent {
	m := s.Match
	r := m.Round()
	columns := r.Columns()
	// Built in as few allocations as it takes: this runs at every move.
	// The custom_ids (the columns', then Forfeit's) are cut from one
	// string, between offsets off[k] and off[k+1].
	ids := make([]byte, 0, 32*(columns+1))
	off := make([]int, 1, columns+2)
	for c := range columns {
		ids = route{Action: actDrop, Match: s.ID, Post: s.PostSeq, Ply: m.Plies(), Column: c + 1}.append(ids)
		off = append(off, len(ids))
	}
	ids = route{Action: actForfeit, Match: s.ID}.append(ids)
	off = append(off, len(ids))
	all := string(ids)
	// Pointers into one slice of buttons and one of rows: a value in an
	// interface would be a copy on the heap each.
	buttons := make([]discordgo.Button, columns+1)
	cells := make([]discordgo.MessageComponent, columns+1)
	lines := make([]discordgo.ActionsRow, (columns+4)/5+1)
	rows := make([]discordgo.MessageComponent, len(lines))
	for c := range columns {
		buttons[c] = discordgo.Button{
			Label:    columnLabel(c, columns),
			Style:    discordgo.SecondaryButton,
			CustomID: all[off[c]:off[c+1]],
			Disabled: !r.CanDrop(c),
		}
		cells[c] = &buttons[c]
		if c%5 == 4 || c == columns-1 {
			lines[c/5].Components = cells[c-c%5 : c+1 : c+1]
			rows[c/5] = &lines[c/5]
		}
	}
	buttons[columns] = discordgo.Button{
		Label:    "Forfeit match",
		Style:    discordgo.DangerButton,
		CustomID: all[off[columns]:],
	}
	cells[columns] = &buttons[columns]
	last := len(lines) - 1
	lines[last].Components = cells[columns:]
	rows[last] = &lines[last]
	return rows
}

// ephemeral returns a private reply with text, seen only by the user who
// clicked or typed, that mentions no one.
func ephemeral(text string) *discordgo.InteractionResponse {
	return &discordgo.InteractionResponse{
		Type: discordgo.InteractionResponseChannelMessageWithSource,
		Data: &message{
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

// messageLink returns the link that jumps to a message in a server channel.
func messageLink(guildID, channelID, messageID string) string {
	return fmt.Sprintf("https://discord.com/channels/%s/%s/%s", guildID, channelID, messageID)
}

// renderAnalysis draws the review of round r of s, move by move.
func renderAnalysis(s *sessions.Session, r *game.Round, a *ai.Analysis) *discordgo.MessageEmbed {
	columns := r.Columns()
	var d strings.Builder
	if len(a.Moves) > 0 && a.Moves[0].Settled {
		fmt.Fprintf(&d, "From the empty board, %s (who opens) %s with perfect play.\n", name(s, a.Moves[0].Player), outlook(a.Moves[0].Before))
	}
	if a.FirstChange >= 0 {
		mv := a.Moves[a.FirstChange]
		fmt.Fprintf(&d, "**The result first changed at move %d:** %s in column %s %s.\n\n",
			mv.Ply+1, name(s, mv.Player), columnLabel(mv.Column, columns), verdict(mv))
	} else {
		d.WriteString("**No move changed the result.**\n\n")
	}
	for _, mv := range a.Moves {
		fmt.Fprintf(&d, "`%2d.` %s column %s — %s\n", mv.Ply+1, themeNamed(s.Theme).disc(mv.Player), columnLabel(mv.Column, columns), verdict(mv))
	}
	if !a.Complete {
		d.WriteString("\nSome positions could not be settled in time.")
	}
	return &discordgo.MessageEmbed{
		Title:       fmt.Sprintf("Analysis of round %d", r.Number()),
		Description: strings.TrimSuffix(d.String(), "\n"),
		Color:       themeNamed(s.Theme).color(game.NoPlayer),
		Footer:      &discordgo.MessageEmbedFooter{Text: "Each move judged by the exact solver: did it keep the win, the draw, or give it away?"},
	}
}

// outlook says what a score means for the side to move.
func outlook(score int) string {
	switch {
	case score > 0:
		return "wins"
	case score < 0:
		return "loses"
	}
	return "draws"
}

// verdict says what move mv did to its player's result.
func verdict(mv ai.MoveReview) string {
	switch {
	case !mv.Settled:
		return "⏳ not settled in time"
	case mv.Before < 0:
		return "🔸 the game was already lost"
	case mv.Before > 0 && mv.After > 0:
		return "✅ kept the win"
	case mv.Before == 0 && mv.After == 0:
		return "✅ kept the draw"
	case mv.Before > 0 && mv.After == 0:
		return "❌ gave away the win: a draw now"
	case mv.Before > 0:
		return "❌ gave away the win: a loss now"
	}
	return "❌ gave away the draw: a loss now"
}
