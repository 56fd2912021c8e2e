package render

import (
	"bytes"
	"strings"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/locale"
	"github.com/connectn/connectn/sessions"
)

// Alt texts: every picture the bot attaches carries a description that
// says what it shows, which Discord reads out in the picture's place and
// shows on demand. The messenger sends it with the file.

// maxAltText is the most characters Discord keeps of an attachment's
// description.
const maxAltText = 1024

// AltFile is the contents of a file the bot attaches, with the
// description Discord shows for it and reads out in its place (its alt
// text; at most maxAltText characters). The messenger sends the
// description with the file (an entry of the payload's "attachments"
// naming the file by its index); it rewinds like the bytes.Reader it is.
type AltFile struct {
	*bytes.Reader
	Alt string
}

// AltText returns f's description.
func (f AltFile) AltText() string { return f.Alt }

// Attach appends to msg the PNG image data as the file called name, with
// alt as its description (cut to maxAltText characters), and returns the
// URL by which an embed shows it ("attachment://" + name).
func Attach(msg *Message, name string, data []byte, alt string) string {
	if r := []rune(alt); len(r) > maxAltText {
		alt = string(r[:maxAltText-1]) + "…"
	}
	msg.Files = append(msg.Files, &discordgo.File{Name: name, ContentType: "image/png",
		Reader: AltFile{Reader: bytes.NewReader(data), Alt: alt}})
	return "attachment://" + name
}

// CrosstableAlt returns the alt text of the crosstable picture of round
// robin t in l's language: how many players it holds (players), how to
// read it, and who finished first (the player leader, "" to leave it out)
// with how many points (written as the standings write them).
func CrosstableAlt(l *locale.Localizer, t *sessions.Tournament, players int, leader, points string) string {
	alt := l.N("alt_crosstable", players, "Name", strings.Join(strings.Fields(t.State.Config.Name), " "))
	if leader != "" {
		name := altName(l, t.Names[leader])
		if sessions.Forgotten(leader) {
			name = l.T("tournament_former_player")
		}
		alt = l.T("alt_crosstable_leader", "Crosstable", alt, "Leader", name, "Points", points)
	}
	return alt
}
