package render

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/locale"
	"github.com/connectn/connectn/sessions"
)

// TestCardRenders writes the result card's messages as discord-look reads
// them (interaction responses, JSON) into the folder CONNECTN_RENDERS
// names, with the cards as PNG files beside them: in English, German and
// Japanese (a Japanese name, which the card cannot draw), the last board,
// the private card with Share, the shared card, and a live board in each
// theme. It is a tool for looking at them, not a check: without
// CONNECTN_RENDERS it is skipped.
func TestCardRenders(t *testing.T) {
	dir := os.Getenv("CONNECTN_RENDERS")
	if dir == "" {
		t.Skip("set CONNECTN_RENDERS to a folder to write the card renders there")
	}
	write := func(name string, private bool, msg *Message) {
		t.Helper()
		if private {
			msg.Flags |= discordgo.MessageFlagsEphemeral
		}
		for _, f := range msg.Files {
			b, _ := io.ReadAll(f.Reader)
			if err := os.WriteFile(filepath.Join(dir, name+".png"), b, 0o644); err != nil {
				t.Fatal(err)
			}
			if a, ok := f.Reader.(AltFile); ok {
				os.WriteFile(filepath.Join(dir, name+".alt.txt"), []byte(a.Alt+"\n"), 0o644)
			}
		}
		b, err := json.MarshalIndent(&discordgo.InteractionResponse{Type: discordgo.InteractionResponseChannelMessageWithSource, Data: msg}, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name+".json"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, lang := range []string{"en", "de", "ja"} {
		l := locale.Default().Localizer(lang)
		p1 := "Alice"
		if lang == "ja" {
			p1 = "さくら"
		}
		s := finishedMatch(t, "classic", p1, "Bob")
		s.Match = nil
		m, _ := game.NewMatch(s.Config)
		for _, c := range []int{3, 3, 4, 4, 2, 2, 1} { // the bottom row, columns 2–5
			m.Play(m.ToMove(), c)
		}
		s.Match = m
		write(lang+"-last-board", false, MatchOver(l, s, &sessions.PairRecord{Wins: 3, Losses: 1}, "", true))
		private, err := ResultCard(l, s, true)
		if err != nil {
			t.Fatal(err)
		}
		write(lang+"-private-card", true, private)
		shared, err := SharedCard(l, s, game.Player1)
		if err != nil {
			t.Fatal(err)
		}
		write(lang+"-shared-card", false, shared)
		write(lang+"-second-ask", false, Ephemeral(l.T("refusal_card_shared_link", "Player", Name(l, s, game.Player1),
			"Link", MessageLink(s.GuildID, s.ChannelID, "1700000000000000042"))).Data)
		for _, th := range Themes {
			b := playing(t, 3, 3, 2, 4, 2, 2, 4)
			b.Theme, b.Players[0].Name = th.Name, p1
			write(lang+"-board-"+th.Name, false, Board(l, b))
			won := finishedMatch(t, th.Name, p1, "Bob")
			c, _ := ResultCard(l, won, false)
			var buf bytes.Buffer
			io.Copy(&buf, c.Files[0].Reader)
			os.WriteFile(filepath.Join(dir, lang+"-card-"+th.Name+".png"), buf.Bytes(), 0o644)
		}
	}
}
