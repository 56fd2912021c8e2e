package render

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot/internal/customid"

	"github.com/connectn/connectn/bot/internal/limits"

	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/game/ai"
	"github.com/connectn/connectn/locale"
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

// letters are the labels of columns on boards that use letters.
const letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"

// ColumnLabel returns the label of column c (zero-based) on a board of
// columns columns, as on its button: "1" to "10", or "A" to "Z". It
// allocates nothing.
func ColumnLabel(c, columns int) string {
	if usesLetters(columns) {
		return letters[c : c+1]
	}
	return strconv.Itoa(c + 1)
}

// headerRow returns the row of column headers, each reading as its
// button's label: keycaps, or regional indicator letters kept apart by
// zero-width spaces.
func headerRow(columns int) string {
	var sb strings.Builder
	writeHeader(&sb, columns, -1)
	return sb.String()
}

// writeHeader writes the row of column headers to sb, as headerRow reads,
// with LastMark in place of the header of column marked (zero-based; none
// when it is negative).
func writeHeader(sb *strings.Builder, columns, marked int) {
	for c := 0; c < columns; c++ {
		if usesLetters(columns) && c > 0 {
			sb.WriteString(zwsp)
		}
		switch {
		case c == marked:
			sb.WriteString(LastMark)
		case !usesLetters(columns):
			sb.WriteString(keycaps[c])
		default:
			sb.WriteRune(rune(0x1F1E6 + c)) // 🇦 + c
		}
	}
}

// Grid draws round r in theme t: the header row, with LastMark over
// the column of the last disc played, the board's rows top first, and the
// plain header again under a tall board. Discs on the winning line are
// drawn with the theme's winning marks.
func Grid(t Theme, r *game.Round) string {
	var sb strings.Builder
	sb.Grow(gridSize(r))
	writeGrid(&sb, t, r)
	return sb.String()
}

// gridSize is room enough for the grid of r, in bytes: a row of up to 8
// bytes a cell and a line break, for the rows and two header rows.
func gridSize(r *game.Round) int { return (r.Rows() + 2) * (8*r.Columns() + 1) }

// writeGrid writes Grid(t, r) to sb.
func writeGrid(sb *strings.Builder, t Theme, r *game.Round) {
	rows, columns := r.Rows(), r.Columns()
	marked := -1
	if last, ok := r.LastMove(); ok {
		marked = last.Column
	}
	writeHeader(sb, columns, marked)
	sb.WriteByte('\n')
	for row := rows - 1; row >= 0; row-- {
		for c := 0; c < columns; c++ {
			switch p := r.At(row, c); {
			case p == game.NoPlayer:
				sb.WriteString(t.Empty)
			case r.InLine(game.Cell{Row: row, Column: c}):
				sb.WriteString(t.Win[p])
			default:
				sb.WriteString(t.Disc[p])
			}
		}
		sb.WriteByte('\n')
	}
	if rows >= tallRows {
		writeHeader(sb, columns, -1)
		sb.WriteByte('\n')
	}
}

// boardNotes returns the line under the grid of round r: on a won board,
// where the winning line lies, beside its mark; otherwise, from the first
// disc on, where the last disc went (beside LastMark, as over its column)
// and each player's longest run. A board with no disc has no notes: "".
func boardNotes(l *locale.Localizer, s *sessions.Session, r *game.Round) string {
	t := ThemeNamed(s.Theme)
	last, ok := r.LastMove()
	if !ok {
		return ""
	}
	if r.Outcome() == game.Won {
		return winningLines(l, t, r, last, s.Config.Connect)
	}
	p := r.At(last.Row, last.Column)
	return l.T("board_last_disc", "Mark", LastMark, "Disc", t.Disc[p], "Column", ColumnLabel(last.Column, r.Columns())) +
		" · " + l.T("board_longest_run", "Disc1", t.Disc[game.Player1], "Run1", r.LongestRun(game.Player1),
		"Disc2", t.Disc[game.Player2], "Run2", r.LongestRun(game.Player2))
}

// lineSteps are the four directions a line runs in, as (row, column)
// steps: along a row, up a column, and up each diagonal from its left end.
var lineSteps = [4][2]int{{0, 1}, {1, 0}, {1, 1}, {-1, 1}}

// winningLines names, beside the winner's winning mark in t, each line of
// at least connect discs through last, the disc that won round r: "🟥 4 in
// a row: column 1, rows 2–5". Rows count from 1 at the bottom, columns are
// labelled as the header labels them. Two lines (a disc that completes a
// row and a column at once) are named one after the other.
func winningLines(l *locale.Localizer, t Theme, r *game.Round, last game.Cell, connect int) string {
	p := r.At(last.Row, last.Column)
	columns := r.Columns()
	var out []string
	for _, d := range lineSteps {
		// Cells off the board read as NoPlayer, which p is not.
		from, to := last, last
		for r.At(from.Row-d[0], from.Column-d[1]) == p {
			from.Row, from.Column = from.Row-d[0], from.Column-d[1]
		}
		for r.At(to.Row+d[0], to.Column+d[1]) == p {
			to.Row, to.Column = to.Row+d[0], to.Column+d[1]
		}
		n := max(to.Column-from.Column, to.Row-from.Row) + 1
		if n < connect {
			continue
		}
		var line string
		switch {
		case d[0] == 0 && from.Row == 0:
			line = l.N("win_line_bottom_row", n, "Mark", t.Win[p],
				"From", ColumnLabel(from.Column, columns), "To", ColumnLabel(to.Column, columns))
		case d[0] == 0:
			line = l.N("win_line_row", n, "Mark", t.Win[p], "Row", from.Row+1,
				"From", ColumnLabel(from.Column, columns), "To", ColumnLabel(to.Column, columns))
		case d[1] == 0:
			line = l.N("win_line_column", n, "Mark", t.Win[p], "Column", ColumnLabel(from.Column, columns),
				"From", from.Row+1, "To", to.Row+1)
		default:
			line = l.N("win_line_diagonal", n, "Mark", t.Win[p],
				"FromColumn", ColumnLabel(from.Column, columns), "FromRow", from.Row+1,
				"ToColumn", ColumnLabel(to.Column, columns), "ToRow", to.Row+1)
		}
		out = append(out, line)
	}
	return strings.Join(out, " · ")
}

// BotName is the bot's name on the board when it plays: the product's
// name, in every language.
const BotName = "Connect N"

// maxNameLength is the most characters of a display name a message shows.
const maxNameLength = 32

// EscapeName makes a display name safe to show inside markdown: it drops
// line breaks, trims it to maxNameLength runes and escapes markdown
// characters; an empty name reads as l's word for someone.
func EscapeName(l *locale.Localizer, name string) string {
	if plainName(name) {
		return name // most names: nothing to change, nothing to allocate
	}
	return escapeAnyName(l, name)
}

// escapeAnyName is EscapeName for any name, without the shortcut.
func escapeAnyName(l *locale.Localizer, name string) string {
	name = strings.Join(strings.Fields(name), " ")
	if r := []rune(name); len(r) > maxNameLength {
		name = string(r[:maxNameLength]) + "…"
	}
	if name == "" {
		return l.T("name_someone")
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

// plainName reports whether EscapeName leaves name as it is: ASCII
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

func Mention(userID string) string { return "<@" + userID + ">" }

// Timestamp formats t as a Discord timestamp that every client shows in its
// own time zone, relative ("in 5 minutes").
func Timestamp(t time.Time) string { return "<t:" + strconv.FormatInt(t.Unix(), 10) + ":R>" }

// Name returns the escaped display name of player p of s in bold, after
// their disc.
func Name(l *locale.Localizer, s *sessions.Session, p game.Player) string {
	if m := s.Member(p); m.ID == sessions.OpenSeat {
		return ThemeNamed(s.Theme).DiscOf(p) + " *" + l.T("open_seat") + "*"
	}
	return ThemeNamed(s.Theme).DiscOf(p) + " **" + playerName(l, s, p) + "**"
}

// playerName returns the escaped display name of player p of s: BotName
// for the bot's side of a match against the bot, whatever name its seat
// was stored with (the app's name in Discord when a member picked it as
// opponent, or an older BotName).
func playerName(l *locale.Localizer, s *sessions.Session, p game.Player) string {
	if s.AI != "" && p == sessions.BotSide {
		return BotName
	}
	return EscapeName(l, s.Member(p).Name)
}

// ratingValue writes a rating as players read it: a whole number.
func ratingValue(r float64) string { return strconv.Itoa(int(math.Round(r))) }

// ratingDelta writes the change from before to after: "+14", "−9"
// (a minus sign), "±0".
func ratingDelta(before, after float64) string {
	d := int(math.Round(after)) - int(math.Round(before))
	switch {
	case d > 0:
		return "+" + strconv.Itoa(d)
	case d < 0:
		return "−" + strconv.Itoa(-d)
	}
	return "±0"
}

// scoreLine says whose score is whose: "🔴 **Alice** 1 – 0 **Bob** 🟡",
// with the drawn rounds after it.
func scoreLine(l *locale.Localizer, s *sessions.Session) string {
	t, m := ThemeNamed(s.Theme), s.Match
	line := t.Disc[game.Player1] + " **" + playerName(l, s, game.Player1) + "** " + strconv.Itoa(m.Score(game.Player1)) +
		" – " + strconv.Itoa(m.Score(game.Player2)) + " **" + playerName(l, s, game.Player2) + "** " + t.Disc[game.Player2]
	if d := m.Draws(); d > 0 {
		line += " · " + l.N("board_draws", d)
	}
	return line
}

// settingsLine describes a match's configuration in one line, but for
// Connect N, which the title of its message says: "6 rows × 7 columns ·
// first to win 2 rounds".
func settingsLine(l *locale.Localizer, cfg game.Config) string {
	return l.T("settings_size", "Rows", l.N("settings_rows", cfg.Rows), "Columns", l.N("settings_columns", cfg.Columns)) + " · " +
		l.N("settings_wins", cfg.Wins)
}

// Footer is the settings line of s, and the bot's level when s is a match
// against the bot.
func Footer(l *locale.Localizer, s *sessions.Session) string {
	if s.AI != "" {
		return l.T("footer_vs_bot", "Settings", settingsLine(l, s.Config), "Level", l.T("level_"+s.AI))
	}
	return settingsLine(l, s.Config)
}

// Message is what the bot shows: the data of an interaction response, also
// turned into follow-ups and edits by the messenger.
type Message = discordgo.InteractionResponseData

// Challenge draws the challenge message: the challenged member
// mentioned once (the only mention, and the only ping), both players with
// their discs, the settings, who opens (and that the opener alternates,
// when the match may have more than one round), the deadline, and Accept
// and Decline buttons.
func Challenge(l *locale.Localizer, s *sessions.Session) *Message {
	challenger, opponent := s.Players[0], s.Players[1]
	opener := "challenge_opener_once"
	if s.Config.Wins > 1 && s.Config.Openers == game.Alternate {
		opener = "challenge_opener"
	}
	answer := l.T("challenge_answer", "Opponent", "**"+EscapeName(l, opponent.Name)+"**")
	content := l.T(challengeContent(s), "Opponent", Mention(opponent.ID), "Challenger", "**"+EscapeName(l, challenger.Name)+"**",
		"Connect", s.Config.Connect)
	mentions := &discordgo.MessageAllowedMentions{Parse: []discordgo.AllowedMentionType{}, Users: []string{opponent.ID}}
	decline := l.T("button_decline")
	if opponent.ID == sessions.OpenSeat {
		answer = l.T("open_answer", "Challenger", "**"+EscapeName(l, challenger.Name)+"**")
		content = l.T("open_content", "Challenger", "**"+EscapeName(l, challenger.Name)+"**", "Connect", s.Config.Connect)
		mentions, decline = NoMentions(), l.T("button_withdraw")
	}
	desc := l.T("challenge_players", "Player1", Name(l, s, game.Player1), "Player2", Name(l, s, game.Player2)) + "\n" +
		settingsLine(l, s.Config) + "\n" +
		l.T(opener, "Opener", Name(l, s, s.Config.OpenerOf(1))) + "\n\n" + answer
	if !s.Deadline.IsZero() {
		desc = Sentences(l, desc, l.T("challenge_expires", "When", Timestamp(s.Deadline)))
	}
	if s.Rated {
		desc += "\n" + l.T("challenge_rated")
	}
	return &Message{
		Content:         content,
		AllowedMentions: mentions,
		Embeds: []*discordgo.MessageEmbed{{
			Title:       l.T("challenge_title", "Connect", s.Config.Connect),
			Description: desc,
			Color:       ThemeNamed(s.Theme).ColorOf(game.NoPlayer),
		}},
		Components: []discordgo.MessageComponent{discordgo.ActionsRow{Components: []discordgo.MessageComponent{
			discordgo.Button{Label: l.T("button_accept"), Style: discordgo.SuccessButton, CustomID: customid.New("accept", s.ID).String()},
			discordgo.Button{Label: decline, Style: discordgo.DangerButton, CustomID: customid.New("decline", s.ID).String()},
		}}},
	}
}

// challengeContent names the catalog message of a challenge's content: a
// rematch invitation reads as one.
func challengeContent(s *sessions.Session) string {
	if s.Invitation() {
		return "rematch_content"
	}
	return "challenge_content"
}

// Moved draws a board message that was posted again further down
// (/connectn board): the board as it stood, no button, and where the live
// board is now (link, "" while its message is not known).
func Moved(l *locale.Localizer, s *sessions.Session, link string) *Message {
	status := l.T("board_moved")
	if link != "" {
		status = l.T("board_moved_to", "Link", link)
	}
	r := s.Match.Round()
	embed := boardEmbed(l, s, r, l.T("board_title", "Connect", s.Config.Connect, "Round", r.Number()),
		ThemeNamed(s.Theme).ColorOf(game.NoPlayer))
	embed.Description = strings.TrimRight(embed.Description, "\n") // no status line: the content says it
	return &Message{
		Content:         status,
		AllowedMentions: NoMentions(),
		Embeds:          []*discordgo.MessageEmbed{embed},
		Components:      []discordgo.MessageComponent{},
	}
}

// ClosedChallenge draws a challenge that ended without a match:
// declined, withdrawn, expired or called off (abandoned). Its title says
// which, its embed turns grey, its content (the challenge's mention) is
// cleared, and no button is left.
func ClosedChallenge(l *locale.Localizer, s *sessions.Session) *Message {
	title, why := "challenge_title_called_off", ""
	switch s.End {
	case sessions.EndEnded:
		ended := l.T("match_ended", "Moderator", Mention(s.EndedBy))
		if s.Tournament.Set() {
			ended = l.T("tournament_game_ended", "Moderator", Mention(s.EndedBy)) // it counts as it stood
		}
		if r := s.Match.Round(); r.Plies() > 0 || r.Number() > 1 {
			// A match under way: its board as it stood, a title that
			// says it is over, and who ended it.
			return &Message{
				AllowedMentions: NoMentions(),
				Embeds: []*discordgo.MessageEmbed{boardEmbed(l, s, r,
					l.T("board_title_ended", "Connect", s.Config.Connect, "Round", r.Number()), ClosedColor, ended)},
				Components: []discordgo.MessageComponent{},
			}
		}
		title, why = "challenge_title_ended", ended
	case sessions.EndDeclined:
		title, why = "challenge_title_declined", l.T("challenge_declined", "Opponent", Name(l, s, game.Player2))
	case sessions.EndWithdrawn:
		title, why = "challenge_title_withdrawn", l.T("challenge_withdrawn", "Challenger", Name(l, s, game.Player1))
	case sessions.EndExpired:
		title, why = "challenge_title_expired", l.T("challenge_expired")
	}
	return &Message{
		AllowedMentions: NoMentions(),
		Embeds: []*discordgo.MessageEmbed{{
			Title: l.T(title, "Connect", s.Config.Connect),
			Description: l.T("challenge_players", "Player1", Name(l, s, game.Player1), "Player2", Name(l, s, game.Player2)) + "\n" +
				settingsLine(l, s.Config) + "\n\n" + Sentences(l, why, l.T("challenge_no_match")),
			Color: ClosedColor,
		}},
		Components: []discordgo.MessageComponent{},
	}
}

// RoundResult says how round r ended, in a match that goes on: the title
// names the round, and the line under the grid how it was won.
func RoundResult(l *locale.Localizer, s *sessions.Session, r *game.Round) string {
	switch r.Outcome() {
	case game.Won:
		return l.T("round_won", "Winner", Name(l, s, r.Winner()))
	case game.Drawn:
		return l.T("round_drawn")
	case game.Forfeited:
		return l.T("round_forfeited", "Loser", Name(l, s, r.Winner().Other()))
	}
	return ""
}

// matchResult says, once, who won the finished match of s and how: by a
// line (with the deciding round when there was more than one), by
// timeout, or by forfeit. The score is the score line's.
func matchResult(l *locale.Localizer, s *sessions.Session) string {
	m := s.Match
	r, winner := m.Round(), m.Winner()
	w, loser := Name(l, s, winner), Name(l, s, winner.Other())
	switch {
	case s.End == sessions.EndTimeout:
		return l.T("match_won_timeout", "Winner", w, "Loser", loser)
	case m.Forfeited():
		return l.T("match_won_forfeit", "Winner", w, "Loser", loser)
	case r.Outcome() == game.Forfeited:
		return l.T("match_won_round_forfeit", "Winner", w, "Loser", loser, "Round", r.Number())
	case r.Number() == 1:
		return l.T("match_won", "Winner", w)
	}
	return l.T("match_won_round", "Winner", w, "Round", r.Number())
}

// boardEmbed assembles the embed of a board message: title, the score,
// the first status line (whose turn it is, or how the round or match
// ended) and the grid's notes (the last disc, or the winning line), then
// the grid of r, then the other status lines, and the settings in the
// footer. The turn and the last disc come before the grid so that a
// screen reader, which reads the grid's emoji one by one, says them
// first.
func boardEmbed(l *locale.Localizer, s *sessions.Session, r *game.Round, title string, color int, status ...string) *discordgo.MessageEmbed {
	// One buffer, the grid written into it: this runs at every move.
	score, notes := scoreLine(l, s), boardNotes(l, s, r)
	size := len(score) + len(notes) + 3 + gridSize(r)
	for _, st := range status {
		size += len(st) + 1
	}
	var desc strings.Builder
	desc.Grow(size)
	desc.WriteString(score)
	desc.WriteString("\n")
	if len(status) > 0 && status[0] != "" {
		desc.WriteString(status[0])
		desc.WriteByte('\n')
	}
	if notes != "" {
		desc.WriteString(notes)
		desc.WriteByte('\n')
	}
	desc.WriteByte('\n')
	writeGrid(&desc, ThemeNamed(s.Theme), r)
	for _, st := range status[min(1, len(status)):] {
		desc.WriteByte('\n')
		desc.WriteString(st)
	}
	return &discordgo.MessageEmbed{
		Title:       title,
		Description: strings.TrimSuffix(desc.String(), "\n"),
		Color:       color,
		Footer:      &discordgo.MessageEmbedFooter{Text: Footer(l, s)},
	}
}

// Board draws the live board of a match being played: the player to
// move mentioned (and nobody else), the score, the current round's board,
// whose turn it is and when the turn runs out, one button per column
// (disabled when full) and a Forfeit match button on a row of its own.
func Board(l *locale.Localizer, s *sessions.Session) *Message {
	m := s.Match
	r := m.Round()
	toMove := m.ToMove()
	id := "board_to_play"
	switch {
	case s.BotToMove():
		id = "board_thinking"
	case r.Plies() == 0 && r.Number() > 1:
		id = "board_opens"
	}
	status := l.T(id, "Player", Name(l, s, toMove))
	if !s.Deadline.IsZero() && !s.BotToMove() {
		status = Sentences(l, status, l.T("board_turn_runs_out", "When", Timestamp(s.Deadline)))
	}
	if s.RatedCapped {
		status += "\n" + l.T("rating_capped")
	}
	content := l.T("board_your_move", "Player", Mention(s.Member(toMove).ID))
	mentions := &discordgo.MessageAllowedMentions{Parse: []discordgo.AllowedMentionType{}, Users: []string{s.Member(toMove).ID}}
	if s.Tournament.Set() && m.Plies() == 0 {
		content, mentions = gameStart(l, s) // a tournament game's first board pings both players
	}
	return &Message{
		Content:         content,
		AllowedMentions: mentions,
		Embeds: []*discordgo.MessageEmbed{boardEmbed(l, s, r,
			l.T("board_title", "Connect", s.Config.Connect, "Round", r.Number()),
			ThemeNamed(s.Theme).ColorOf(toMove), status)},
		Components: boardButtons(l, s),
	}
}

// RoundRecord draws round r, which has ended while the match goes on,
// as the record its message keeps: the final board with the winning line
// named, the result (once: the content, which pinged the player to move,
// is cleared) and the score, and no buttons. The next round's board follows
// as a new message.
func RoundRecord(l *locale.Localizer, s *sessions.Session, r *game.Round) *Message {
	winner := r.Winner()
	return &Message{
		AllowedMentions: NoMentions(),
		Embeds: []*discordgo.MessageEmbed{boardEmbed(l, s, r,
			l.T("record_title", "Connect", s.Config.Connect, "Round", r.Number()),
			ThemeNamed(s.Theme).ColorOf(winner),
			RoundResult(l, s, r), l.T("record_next", "Round", r.Number()+1))},
		Components: []discordgo.MessageComponent{},
	}
}

// MatchOver draws a finished match: the last round's board with the
// winning line named, who won and how, said once (the content, which
// pinged the player to move, is cleared), the final score, the two
// players' record against each other in this server (pair, from
// Players[0]'s side; nil to leave it out), and the Rematch and Picture
// buttons (and Analysis when analysis is set; neither Picture nor Analysis
// when the last round ended before its first disc, by a forfeit). When
// rematch, a last status line, says a rematch was asked for, Rematch is
// disabled and the other buttons stay.
func MatchOver(l *locale.Localizer, s *sessions.Session, pair *sessions.PairRecord, rematch string, analysis bool) *Message {
	m := s.Match
	winner := m.Winner()
	status := []string{matchResult(l, s)}
	if pair != nil && s.AI == "" {
		status = append(status, l.T(scoped("match_pair", s.GuildID == ""), "Player1", EscapeName(l, s.Players[0].Name), "Wins", pair.Wins,
			"Losses", pair.Losses, "Player2", EscapeName(l, s.Players[1].Name)))
	}
	if rc := s.Ratings; rc != nil {
		status = append(status, l.T("rating_line",
			"Player1", Name(l, s, game.Player1), "Rating1", ratingValue(rc.After[0].R), "Change1", ratingDelta(rc.Before[0].R, rc.After[0].R),
			"Player2", Name(l, s, game.Player2), "Rating2", ratingValue(rc.After[1].R), "Change2", ratingDelta(rc.Before[1].R, rc.After[1].R)))
	} else if s.RatedCapped {
		status = append(status, l.T("rating_capped"))
	}
	var row []discordgo.MessageComponent
	if !s.Tournament.Set() { // a tournament's game is paired by the tournament: no rematch
		row = append(row, discordgo.Button{Label: l.T("button_rematch"), Style: discordgo.PrimaryButton, Emoji: &discordgo.ComponentEmoji{Name: "🔁"},
			CustomID: customid.New("rematch", s.ID).String()})
	}
	// A forfeit before the first disc leaves nothing to draw or analyse.
	shown := m.Round().Plies() > 0
	if shown {
		row = append(row, discordgo.Button{Label: l.T("button_picture"), Style: discordgo.SecondaryButton, Emoji: &discordgo.ComponentEmoji{Name: "🖼️"},
			CustomID: customid.New("picture", s.ID).String()})
	}
	if analysis && shown {
		row = append(row, discordgo.Button{Label: l.T("button_analysis"), Style: discordgo.SecondaryButton, Emoji: &discordgo.ComponentEmoji{Name: "🔍"},
			CustomID: customid.New("analysis", s.ID).String()})
	}
	if rematch != "" && !s.Tournament.Set() {
		// Asked for once: Rematch is spent, Picture and Analysis stay.
		b := row[0].(discordgo.Button)
		b.Disabled = true
		row[0] = b
	}
	components := []discordgo.MessageComponent{}
	if len(row) > 0 {
		components = append(components, discordgo.ActionsRow{Components: row})
	}
	// Each round's moves, copyable into /connectn analyze or connectn
	// solve, in small print that says what they are.
	var moves []string
	for _, r := range m.Rounds() {
		if len(r.Moves()) > 0 {
			moves = append(moves, l.T("match_moves", "Round", r.Number(), "Moves", game.MovesCode(r.Moves())))
		}
	}
	if len(moves) > 0 {
		status = append(status, l.T("match_moves_line", "Rounds", strings.Join(moves, " · ")))
	}
	if rematch != "" {
		status = append(status, rematch)
	}
	e := boardEmbed(l, s, m.Round(), l.T("match_title", "Connect", s.Config.Connect), ThemeNamed(s.Theme).ColorOf(winner), status...)
	e.Footer.Text += " · " + l.T("match_number", "Match", s.ID)
	return &Message{
		AllowedMentions: NoMentions(),
		Embeds:          []*discordgo.MessageEmbed{e},
		Components:      components,
	}
}

// Session draws s as its board message should now read, whatever its
// phase: the challenge, the live board, the finished match (without the
// record against each other, which needs the store), or the closed
// challenge.
func Session(l *locale.Localizer, s *sessions.Session) *Message {
	switch s.Phase {
	case sessions.PhaseChallenge:
		return Challenge(l, s)
	case sessions.PhasePlaying:
		return Board(l, s)
	case sessions.PhaseFinished:
		return MatchOver(l, s, nil, "", false)
	}
	return ClosedChallenge(l, s)
}

// rowButtons is the most column buttons a row of a board holds: one fewer
// than Discord allows (limits.ButtonsPerRow), because a client 400 pixels
// wide, a phone's, wraps a row of five as 4 + 1; a row of four stays
// whole.
const rowButtons = limits.ButtonsPerRow - 1

// boardButtons returns one button per column, labelled as the column
// headers read and disabled when the column is full, on as few action rows
// as rowButtons a row allows, balanced (5 columns as 3 + 2, 7 as 4 + 3, 9
// as 3 + 3 + 3, 12 as 4 + 4 + 4: the first rows take the one button more),
// and the Forfeit match button alone on the last row. With at most 12
// columns that is at most 4 rows.
func boardButtons(l *locale.Localizer, s *sessions.Session) []discordgo.MessageComponent {
	m := s.Match
	r := m.Round()
	columns := r.Columns()
	// Built in as few allocations as it takes: this runs at every move.
	// The custom_ids (the columns', then Forfeit's) are cut from one
	// string, between offsets off[k] and off[k+1].
	var ids strings.Builder
	ids.Grow(32 * (columns + 1))
	var id [limits.CustomID]byte // each custom_id's bytes, on the stack
	var offsets [16]int          // on the stack for up to 14 columns
	off := offsets[:1]
	for c := range columns {
		ids.Write(customid.New("drop", s.ID, int64(s.PostSeq), int64(m.Plies()), int64(c+1)).Append(id[:0]))
		off = append(off, ids.Len())
	}
	ids.Write(customid.New("forfeit", s.ID).Append(id[:0]))
	off = append(off, ids.Len())
	all := ids.String()
	// Pointers into one slice of buttons and one of rows: a value in an
	// interface would be a copy on the heap each.
	buttons := make([]discordgo.Button, columns+1)
	cells := make([]discordgo.MessageComponent, columns+1)
	columnRows := (columns + rowButtons - 1) / rowButtons
	lines := make([]discordgo.ActionsRow, columnRows+1)
	rows := make([]discordgo.MessageComponent, len(lines))
	for c := range columns {
		buttons[c] = discordgo.Button{
			Label:    ColumnLabel(c, columns),
			Style:    discordgo.SecondaryButton,
			CustomID: all[off[c]:off[c+1]],
			Disabled: !r.CanDrop(c),
		}
		cells[c] = &buttons[c]
	}
	for k, from := 0, 0; k < columnRows; k++ {
		to := from + columns/columnRows
		if k < columns%columnRows {
			to++
		}
		lines[k].Components = cells[from:to:to]
		rows[k] = &lines[k]
		from = to
	}
	buttons[columns] = discordgo.Button{
		Label:    l.T("button_forfeit"),
		Style:    discordgo.DangerButton,
		CustomID: all[off[columns]:],
	}
	cells[columns] = &buttons[columns]
	last := len(lines) - 1
	lines[last].Components = cells[columns:]
	rows[last] = &lines[last]
	return rows
}

// ForfeitPrompt is the private confirmation a player sees before forfeiting.
func ForfeitPrompt(l *locale.Localizer, s *sessions.Session, p game.Player) *discordgo.InteractionResponse {
	resp := Ephemeral(l.T("forfeit_prompt", "Winner", Name(l, s, p.Other())))
	resp.Data.Components = []discordgo.MessageComponent{discordgo.ActionsRow{Components: []discordgo.MessageComponent{
		discordgo.Button{Label: l.T("button_forfeit"), Style: discordgo.DangerButton, CustomID: customid.New("forfeit!", s.ID).String()},
		discordgo.Button{Label: l.T("button_keep_playing"), Style: discordgo.SecondaryButton, CustomID: customid.New("keep", s.ID).String()},
	}}}
	return resp
}

// NoMentions allows no mention to ping anyone. Parse is an empty list, not
// null, as Discord's documentation shows it.
func NoMentions() *discordgo.MessageAllowedMentions {
	return &discordgo.MessageAllowedMentions{Parse: []discordgo.AllowedMentionType{}}
}

// MessageLink returns the link that jumps to a message in a server channel.
func MessageLink(guildID, channelID, messageID string) string {
	return "https://discord.com/channels/" + guildID + "/" + channelID + "/" + messageID
}

// Analysis draws the review of round r of s, move by move.
func Analysis(l *locale.Localizer, s *sessions.Session, r *game.Round, a *ai.Analysis) *discordgo.MessageEmbed {
	columns := r.Columns()
	var d strings.Builder
	if len(a.Moves) > 0 && a.Moves[0].Settled {
		d.WriteString(l.T("analysis_start", "Opener", Name(l, s, a.Moves[0].Player), "Outlook", l.T(outlook(a.Moves[0].Before))))
		d.WriteString("\n")
	}
	// The headline says only what was proved: a change is the first only
	// when every move before it was settled, and no change is claimed only
	// for the moves that were.
	unsettled := 0
	for _, mv := range a.Moves {
		if !mv.Settled {
			unsettled++
		}
	}
	switch {
	case a.FirstChange >= 0:
		mv, key := a.Moves[a.FirstChange], "analysis_first_change"
		for _, before := range a.Moves[:a.FirstChange] {
			if !before.Settled {
				key = "analysis_change"
			}
		}
		d.WriteString(l.T(key, "Move", mv.Ply+1, "Player", Name(l, s, mv.Player),
			"Column", ColumnLabel(mv.Column, columns), "Verdict", l.T(verdict(mv))))
	case unsettled > 0:
		d.WriteString(l.N("analysis_no_settled_change", unsettled))
	default:
		d.WriteString(l.T("analysis_no_change"))
	}
	d.WriteString("\n\n")
	for _, mv := range a.Moves {
		n := strconv.Itoa(mv.Ply + 1)
		if len(n) < 2 {
			n = " " + n // as "%2d" pads it, so the moves line up
		}
		d.WriteString(l.T("analysis_move", "Move", n, "Disc", ThemeNamed(s.Theme).DiscOf(mv.Player),
			"Column", ColumnLabel(mv.Column, columns), "Verdict", l.T(verdict(mv))))
		d.WriteString("\n")
	}
	if !a.Complete && (a.FirstChange >= 0 || unsettled == 0) {
		d.WriteString("\n" + l.T("analysis_incomplete"))
	}
	return &discordgo.MessageEmbed{
		Title:       l.T("analysis_title", "Round", r.Number()),
		Description: strings.TrimSuffix(d.String(), "\n"),
		Color:       ThemeNamed(s.Theme).ColorOf(game.NoPlayer),
		Footer:      &discordgo.MessageEmbedFooter{Text: l.T("analysis_footer")},
	}
}

// outlook names the catalog message that says what a score means for the
// side to move.
func outlook(score int) string {
	switch {
	case score > 0:
		return "outlook_wins"
	case score < 0:
		return "outlook_loses"
	}
	return "outlook_draws"
}

// verdict names the catalog message that says what move mv did to its
// player's result.
func verdict(mv ai.MoveReview) string {
	switch {
	case !mv.Settled:
		return "verdict_unsettled"
	case mv.Before < 0:
		return "verdict_already_lost"
	case mv.Before > 0 && mv.After > 0:
		return "verdict_kept_win"
	case mv.Before == 0 && mv.After == 0:
		return "verdict_kept_draw"
	case mv.Before > 0 && mv.After == 0:
		return "verdict_gave_win_draw"
	case mv.Before > 0:
		return "verdict_gave_win_loss"
	}
	return "verdict_gave_draw"
}

// Duration says d in l's language, in the largest unit that counts it
// whole: "5 minutes", "1 hour", "90 seconds" (a part of a second rounds
// up).
func Duration(l *locale.Localizer, d time.Duration) string {
	switch {
	case d >= time.Hour && d%time.Hour == 0:
		return l.N("duration_hours", int(d/time.Hour))
	case d >= time.Minute && d%time.Minute == 0:
		return l.N("duration_minutes", int(d/time.Minute))
	}
	return l.N("duration_seconds", int((d+time.Second-1)/time.Second))
}

// Sentences returns the sentences in l's language one after the other on
// one line, joined as the catalog's message "sentences" says this language
// joins two sentences: with a space ("Alice declined. Start a new
// match…"), or without one in Japanese and Chinese ("…断りました。新しい
// 試合は…"). Empty sentences are left out.
func Sentences(l *locale.Localizer, sentences ...string) string {
	out := ""
	for _, s := range sentences {
		switch {
		case s == "":
		case out == "":
			out = s
		default:
			out = l.T("sentences", "First", out, "Next", s)
		}
	}
	return out
}

// Ephemeral returns a private reply with text, seen only by the user who
// clicked or typed, that mentions no one.
func Ephemeral(text string) *discordgo.InteractionResponse {
	return &discordgo.InteractionResponse{
		Type: discordgo.InteractionResponseChannelMessageWithSource,
		Data: &Message{
			Content:         text,
			Flags:           discordgo.MessageFlagsEphemeral,
			AllowedMentions: NoMentions(),
		},
	}
}

// Public returns the localizer of s's public messages (boards, records,
// results): the language of its place (sessions.Place.Locale).
func Public(s *sessions.Session) *locale.Localizer {
	return locale.Default().Localizer(s.Place.Locale)
}
