package bot_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot/discordtest"
)

// TestTournamentRenders writes the messages of tournaments as Discord
// would show them, as JSON for discord-look, into the folder
// CONNECTN_RENDERS names (and the crosstable picture as a PNG): the
// sign-up of a 16-player Swiss, the pairings of its round 4, its
// standings after round 3, its podium, and the podium of a round robin
// of 8 with its crosstable, in English and in German. It is a tool for
// reading them, not a check: without CONNECTN_RENDERS it is skipped.
func TestTournamentRenders(t *testing.T) {
	dir := os.Getenv("CONNECTN_RENDERS")
	if dir == "" {
		t.Skip("set CONNECTN_RENDERS to a folder to write the tournament renders there")
	}
	for _, lang := range []string{"en", "de"} {
		t.Run(lang, func(t *testing.T) {
			write := func(name string, msgs ...*discordgo.Message) {
				t.Helper()
				// discordgo writes no components (its field is json:"-").
				type shown struct {
					*discordgo.Message
					Components []discordgo.MessageComponent `json:"components"`
				}
				var out []shown
				for _, m := range msgs {
					out = append(out, shown{m, m.Components})
				}
				b, err := json.MarshalIndent(out, "", "  ")
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, lang+"-"+name+".json"), b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			c := newCupEnv(t, 16)
			if lang == "de" {
				c.locale = "de"
			}
			c.roles = []string{playerRole}
			c.create(strArg("name", "Friday Swiss"), strArg("starts-at", "2h"), discordtest.Arg{Name: "role", Type: discordgo.ApplicationCommandOptionRole, Value: playerRole})
			c.joinAll()
			write("signup", c.signUp())
			c.adminCmd("start")
			for round := 1; round <= 5; round++ {
				if round == 4 {
					write("standings-round3", c.e.message(c.tour().Posts.Standings))
					var pairings []*discordgo.Message
					for _, m := range c.e.public() {
						if strings.Contains(messageText(m), "4/5") || strings.Contains(messageText(m), "Round 4 of 5") || strings.Contains(messageText(m), "Runde 4 von 5") {
							pairings = append(pairings, m)
						}
					}
					write("pairings-round4", pairings...)
				}
				c.playRound(round, func(b int) bool { return (b+round)%3 != 0 })
				c.e.runDue()
			}
			write("podium", c.e.message(c.tour().Posts.Podium))
			write("standings-final", c.e.message(c.tour().Posts.Standings))

			rr := newCupEnv(t, 8)
			rr.locale = c.locale
			rr.players[3].GlobalName = "さくら"
			rr.byID[rr.players[3].ID] = rr.players[3]
			rr.create(strArg("name", "Club round robin"), strArg("format", "round-robin"))
			rr.joinAll()
			rr.adminCmd("start")
			for round := 1; round <= 7; round++ {
				rr.playRound(round, func(b int) bool { return (b*round)%4 != 1 })
				rr.e.runDue()
			}
			podium := rr.e.message(rr.tour().Posts.Podium)
			write("rr-podium", podium)
			for _, a := range podium.Attachments {
				if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%s-%s", lang, a.Filename)), rr.e.attachment(a), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}
