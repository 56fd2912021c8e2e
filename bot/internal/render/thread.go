package render

import (
	"strings"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/locale"
	"github.com/connectn/connectn/sessions"
)

// threadNameMax is the longest name Discord gives a thread, in characters.
const threadNameMax = 100

// bareName returns a display name as plain text (a thread's name shows no
// markdown): on one line, at most maxNameLength characters; an empty name
// reads as l's word for someone.
func bareName(l *locale.Localizer, name string) string {
	name = truncate(strings.Join(strings.Fields(name), " "), maxNameLength+1)
	if name == "" {
		return l.T("name_someone")
	}
	return name
}

// truncate shortens s to at most n characters, with an ellipsis.
func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// ThreadLink draws the line a challenge with the thread option
// leaves in its channel: who challenges whom, to what, and the link to
// the thread where the match is. It mentions nobody: the challenge in the
// thread pings the opponent.
func ThreadLink(l *locale.Localizer, s *sessions.Session) *Message {
	return &Message{
		Content: l.T("challenge_in_thread", "Challenger", Name(l, s, game.Player1), "Opponent", Name(l, s, game.Player2),
			"Connect", s.Config.Connect, "Thread", "<#"+s.ChannelID+">"),
		AllowedMentions: NoMentions(),
		Components:      []discordgo.MessageComponent{},
	}
}

// ThreadName names the thread of a match on a board of connect between
// the players called player1 and player2, in l's language: plain text
// (a thread's name shows no markdown), at most threadNameMax characters.
func ThreadName(l *locale.Localizer, connect int, player1, player2 string) string {
	name := l.T("thread_name", "Connect", connect, "Player1", bareName(l, player1), "Player2", bareName(l, player2))
	return truncate(name, threadNameMax)
}
