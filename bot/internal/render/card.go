package render

import (
	"bytes"
	"strconv"
	"strings"
	"sync"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot/internal/customid"
	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/locale"
	"github.com/connectn/connectn/picture"
	"github.com/connectn/connectn/sessions"
)

// A finished match's result card (picture.Card): the deciding round's final
// position with its winning line, both players' names in their colours,
// the score, the ratings' change of a rated match and the date; shown
// privately by the Picture button of the last board, and posted for
// everyone, once per match, by the Share button under a player's private
// card (bot/card.go). Its alt text
// (CardAlt) says the same in the reader's language.

// CardDateLayout is how a card writes its date: ISO 8601, which every
// language reads and the card's font draws.
const CardDateLayout = "2006-01-02"

// english is the catalog in English: the words of a card whose
// translation its font cannot draw (Japanese, Chinese, Korean) are drawn
// in English, as the bot's name and the game's are.
var english = sync.OnceValue(func() *locale.Localizer { return locale.Default().Localizer("en") })

// drawnText returns message id in l's language when the card can draw
// it, else in English.
func drawnText(l *locale.Localizer, id string, args ...any) string {
	if s := l.T(id, args...); picture.CanDraw(s) {
		return s
	}
	return english().T(id, args...)
}

// drawnCount is drawnText for a message with plural forms.
func drawnCount(l *locale.Localizer, id string, n int, args ...any) string {
	if s := l.N(id, n, args...); picture.CanDraw(s) {
		return s
	}
	return english().N(id, n, args...)
}

// altName is a display name as an alt text says it: on one line, at most
// maxNameLength characters, not escaped (an alt text is no markdown); an
// empty name reads as l's word for someone.
func altName(l *locale.Localizer, name string) string {
	name = strings.Join(strings.Fields(name), " ")
	if r := []rune(name); len(r) > maxNameLength {
		name = string(r[:maxNameLength]) + "…"
	}
	if name == "" {
		return l.T("name_someone")
	}
	return name
}

// Card returns the result card of the finished match s with its words in
// l's language, each in English where the card's font cannot draw it. A
// player's name the font cannot draw (a Japanese name, say, or one with an
// emoji) is replaced by "Player 1" or "Player 2" in l's language (in
// English where that cannot be drawn either), beside the player's disc:
// the message around the card and its alt text carry the real names.
func Card(l *locale.Localizer, s *sessions.Session) picture.Card {
	m := s.Match
	r := m.Round()
	t := ThemeNamed(s.Theme)
	c := picture.Card{
		Round:  r,
		Style:  t.Picture,
		Winner: m.Winner(),
		Title: drawnText(l, "card_title", "Connect", s.Config.Connect, "Rows", s.Config.Rows, "Columns", s.Config.Columns,
			"Wins", drawnCount(l, "settings_wins", s.Config.Wins)),
		Date:    s.UpdatedAt.UTC().Format(CardDateLayout),
		Columns: make([]string, r.Columns()),
	}
	for col := range c.Columns {
		c.Columns[col] = ColumnLabel(col, r.Columns())
	}
	for _, p := range []game.Player{game.Player1, game.Player2} {
		c.Players[p] = picture.CardPlayer{
			Name:     altName(l, s.Member(p).Name),
			Fallback: drawnText(l, "card_player", "Number", int(p)),
			Score:    m.Score(p),
		}
		if rc := s.Ratings; rc != nil {
			c.Players[p].Rating = ratingDelta(rc.Before[p-1].R, rc.After[p-1].R)
		}
	}
	var detail []string
	switch {
	case s.End == sessions.EndTimeout:
		detail = append(detail, drawnText(l, "card_on_time"))
	case m.Forfeited() || r.Outcome() == game.Forfeited:
		detail = append(detail, drawnText(l, "card_by_forfeit"))
	}
	if d := m.Draws(); d > 0 {
		detail = append(detail, drawnCount(l, "board_draws", d))
	}
	c.Detail = strings.Join(detail, " · ")
	return c
}

// CardAlt returns the alt text of s's result card in l's language: the
// match, the date, both players with their colours and the score, who
// won, the winning line on the final board (when a line won it), and the
// ratings' change of a rated match. It names the players by their real
// names, whatever the card could draw.
func CardAlt(l *locale.Localizer, s *sessions.Session) string {
	m := s.Match
	r := m.Round()
	t := ThemeNamed(s.Theme)
	name := func(p game.Player) string { return altName(l, s.Member(p).Name) }
	var result, line, ratings string
	if w := m.Winner(); w.Valid() {
		result = l.T("card_alt_won", "Winner", name(w))
	} else {
		result = l.T("card_alt_level")
	}
	if last, ok := r.LastMove(); ok && r.Outcome() == game.Won {
		plain := t
		plain.Win = [3]string{}
		line = l.T("card_alt_line", "Line", strings.TrimSpace(winningLines(l, plain, r, last, s.Config.Connect)))
	}
	if rc := s.Ratings; rc != nil {
		ratings = l.T("card_alt_ratings",
			"Player1", name(game.Player1), "Change1", ratingDelta(rc.Before[0].R, rc.After[0].R),
			"Player2", name(game.Player2), "Change2", ratingDelta(rc.Before[1].R, rc.After[1].R))
	}
	alt := l.T("card_alt", "Connect", s.Config.Connect, "Date", s.UpdatedAt.UTC().Format(CardDateLayout),
		"Player1", name(game.Player1), "Colour1", l.T(t.Colours[game.Player1]), "Score1", m.Score(game.Player1),
		"Player2", name(game.Player2), "Colour2", l.T(t.Colours[game.Player2]), "Score2", m.Score(game.Player2),
		"Result", result)
	return Sentences(l, alt, line, ratings)
}

// cardFile is the file name of s's result card.
func cardFile(s *sessions.Session) string {
	return "connectn-match-" + strconv.FormatInt(s.ID, 10) + "-result.png"
}

// cardMessage draws s's result card into a message whose embed shows it,
// with content as its text. It returns picture.EncodeCard's error.
func cardMessage(l *locale.Localizer, s *sessions.Session, content string) (*Message, error) {
	var png bytes.Buffer
	if err := picture.EncodeCard(&png, Card(l, s)); err != nil {
		return nil, err
	}
	msg := &Message{Content: content, AllowedMentions: NoMentions(), Components: []discordgo.MessageComponent{}}
	url := Attach(msg, cardFile(s), png.Bytes(), CardAlt(l, s))
	msg.Embeds = []*discordgo.MessageEmbed{{Image: &discordgo.MessageEmbedImage{URL: url}, Color: ThemeNamed(s.Theme).ColorOf(s.Match.Winner())}}
	return msg, nil
}

// ResultCard draws the private message of the Picture button under the
// finished match s: its result card, in l's language, with a line that
// says what it is. For a player of the match (shareable), the line adds
// that the card can be posted for everyone, once, and the message carries
// the Share button (ShareButton) that does it. It returns
// picture.EncodeCard's error.
func ResultCard(l *locale.Localizer, s *sessions.Session, shareable bool) (*Message, error) {
	p1, p2 := EscapeName(l, s.Players[0].Name), EscapeName(l, s.Players[1].Name)
	if !shareable {
		return cardMessage(l, s, l.T("card_private", "Player1", p1, "Player2", p2))
	}
	msg, err := cardMessage(l, s, l.T("card_private_share", "Player1", p1, "Player2", p2, "Button", l.T("button_share")))
	if err != nil {
		return nil, err
	}
	msg.Components = []discordgo.MessageComponent{discordgo.ActionsRow{Components: []discordgo.MessageComponent{ShareButton(l, s)}}}
	return msg, nil
}

// SharedCard draws the public message of a result card shared by member
// sharer (a player of s), in l, the language of s's channel: who shares
// it, and the card. It returns picture.EncodeCard's error.
func SharedCard(l *locale.Localizer, s *sessions.Session, sharer game.Player) (*Message, error) {
	return cardMessage(l, s, l.T("card_shared", "Player", Name(l, s, sharer), "Opponent", Name(l, s, sharer.Other())))
}

// ShareButton is the button under a player's private result card that
// posts it for everyone (cn:share:<match>).
func ShareButton(l *locale.Localizer, s *sessions.Session) discordgo.Button {
	return discordgo.Button{Label: l.T("button_share"), Style: discordgo.SecondaryButton, Emoji: &discordgo.ComponentEmoji{Name: "📣"},
		CustomID: customid.New("share", s.ID).String()}
}
