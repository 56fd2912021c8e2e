package bot_test

import (
	"bytes"
	"encoding/json"
	"image/png"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot/discordtest"
	"github.com/connectn/connectn/picture"
)

// finishQuick plays a match of Connect 3 on 4 × 5 that Alice wins with
// three in column 1, and returns its last board.
func finishQuick(e *env) *discordgo.Message {
	e.t.Helper()
	e.send(slash(alice, "challenge", "opponent", bob, "rows", 4, "columns", 5, "connect", 3, "wins", 1))
	e.click(bob, e.board(), "Accept")
	e.play(alice, bob, "1", "2", "1", "2", "1")
	return e.board()
}

// hasButton reports whether msg has a button labelled label.
func hasButton(msg *discordgo.Message, label string) bool {
	for _, b := range buttons(msg.Components) {
		if b.Label == label {
			return true
		}
	}
	return false
}

// altTextOf returns the description the bot sent with the attachment
// called file of message id (the "attachments" of its last write's
// payload), "" when none.
func altTextOf(t *testing.T, e *env, id, file string) string {
	t.Helper()
	alt := ""
	for _, m := range e.fake.Messages() {
		if m.Message == nil || m.Message.ID != id || len(m.Payload) == 0 {
			continue
		}
		var p struct {
			Attachments []struct {
				Filename    string `json:"filename"`
				Description string `json:"description"`
			} `json:"attachments"`
		}
		if err := json.Unmarshal(m.Payload, &p); err != nil {
			t.Fatalf("payload of message %s: %v", id, err)
		}
		for _, a := range p.Attachments {
			if a.Filename == file {
				alt = a.Description
			}
		}
	}
	return alt
}

// mustCard checks that msg shows one PNG result card in its embed, with
// its alt text sent along, and returns the alt text.
func mustCard(t *testing.T, e *env, msg *discordgo.Message) string {
	t.Helper()
	if len(msg.Attachments) != 1 || msg.Attachments[0].ContentType != "image/png" {
		t.Fatalf("message %q has attachments %+v, want one PNG", msg.Content, msg.Attachments)
	}
	name := msg.Attachments[0].Filename
	if len(msg.Embeds) != 1 || msg.Embeds[0].Image == nil || msg.Embeds[0].Image.URL != "attachment://"+name {
		t.Fatalf("message %q does not show its attachment %q: %+v", msg.Content, name, msg.Embeds)
	}
	img, err := png.Decode(bytes.NewReader(e.attachment(msg.Attachments[0])))
	if err != nil {
		t.Fatalf("the attachment is not a PNG: %v", err)
	}
	if b := img.Bounds(); b.Dx() != picture.CardWidth {
		t.Errorf("card of %v, want %d pixels wide", b, picture.CardWidth)
	}
	alt := altTextOf(t, e, msg.ID, name)
	if alt == "" {
		t.Fatalf("message %q: the card has no alt text", msg.Content)
	}
	return alt
}

// TestBoardPicture checks Picture under a finished match: the result card,
// privately, to anyone, with its alt text; a bystander's has no Share
// button, a player's has; a rematch asked for leaves it working.
func TestBoardPicture(t *testing.T) {
	e := newEnv(t)
	e.send(slash(alice, "challenge", "opponent", bob, "rows", 4, "columns", 5, "connect", 3, "wins", 1))
	e.click(bob, e.board(), "Accept")
	mustPrivate(t, e.clickID(carol, e.board(), "cn:picture:1"), "moved on") // not finished yet
	e.play(alice, bob, "1", "2", "1", "2", "1")
	finished := e.board()
	resp := e.click(carol, finished, "Picture") // anyone may look
	if resp.Type != discordgo.InteractionResponseDeferredChannelMessageWithSource || resp.Data.Flags&discordgo.MessageFlagsEphemeral == 0 {
		t.Fatalf("Picture answered type %d flags %d, want a deferred private message", resp.Type, resp.Data.Flags)
	}
	got := e.lastPrivate()
	alt := mustCard(t, e, got)
	mustContain(t, "picture answer", got.Content, "The result card of Alice vs Bob.")
	mustContain(t, "alt text", alt, "Alice (red) 1, Bob (yellow) 0", "Alice wins the match", "3 in a row: column 1, rows 1–3")
	if hasButton(got, "Share") {
		t.Error("a bystander's card has Share")
	}
	e.click(alice, finished, "Picture")
	if mine := e.lastPrivate(); !hasButton(mine, "Share") || !strings.Contains(mine.Content, "**Share** posts it in the channel") {
		t.Errorf("a player's card: %q, buttons %q, want Share and a word on it", mine.Content, labels(mine.Components))
	}
	// Asking for a rematch leaves the last board's Picture working.
	e.click(bob, finished, "Rematch")
	if resp := e.click(carol, finished, "Picture"); resp.Type != discordgo.InteractionResponseDeferredChannelMessageWithSource {
		t.Fatalf("Picture after a rematch was asked for answered type %d %q, want the deferred card", resp.Type, text(resp))
	}
}

// TestShareResultCardOnce checks Share: the card is posted for everyone
// at a player's ask, with its alt text, once; a second ask (the other
// player, the same one again, after a restart) is told who shared it with
// a link and posts nothing, as is someone who did not play.
func TestShareResultCardOnce(t *testing.T) {
	e := newEnv(t)
	finished := finishQuick(e)
	before := len(e.public())
	e.click(alice, finished, "Picture")
	mine := e.lastPrivate()
	e.click(bob, finished, "Picture")
	his := e.lastPrivate()

	resp := e.click(alice, mine, "Share")
	if resp.Type != discordgo.InteractionResponseDeferredChannelMessageWithSource || resp.Data != nil && resp.Data.Flags&discordgo.MessageFlagsEphemeral != 0 {
		t.Fatalf("Share answered type %d (%q), want a deferred public message", resp.Type, text(resp))
	}
	public := e.public()
	if len(public) != before+1 {
		t.Fatalf("%d new public messages after Share, want 1", len(public)-before)
	}
	card := public[len(public)-1]
	alt := mustCard(t, e, card)
	mustContain(t, "shared card", card.Content, "📣 🔴 **Alice** shares the result of their match against 🟡 **Bob**.")
	mustContain(t, "shared card's alt text", alt, "Alice (red) 1, Bob (yellow) 0", "Alice wins the match")

	link := "https://discord.com/channels/" + guildID + "/" + channelID + "/" + card.ID
	mustPrivate(t, e.click(bob, his, "Share"), "🔴 **Alice** has already shared this match's card: [see it here]("+link+")")
	mustPrivate(t, e.click(alice, mine, "Share"), "already shared")
	mustPrivate(t, e.clickID(carol, finished, "cn:share:1"), "Only 🔴 **Alice** and 🟡 **Bob** can share this match's card. **Picture** shows it to you privately.")
	e.restart()
	mustPrivate(t, e.click(bob, his, "Share"), "already shared")
	if n := len(e.public()); n != before+1 {
		t.Errorf("%d public messages after the second asks, want %d: the card was posted again", n, before+1)
	}
}

// TestShareResultCardRacing checks two Share clicks at once, by both
// players: one card is posted, the other click is told it was shared.
func TestShareResultCardRacing(t *testing.T) {
	e := newEnv(t)
	finished := finishQuick(e)
	e.click(alice, finished, "Picture")
	mine := e.lastPrivate()
	e.click(bob, finished, "Picture")
	his := e.lastPrivate()
	before := len(e.public())
	var (
		wg    sync.WaitGroup
		resps [2]*discordgo.InteractionResponse
	)
	for k, c := range []struct {
		u   user
		msg *discordgo.Message
	}{{alice, mine}, {bob, his}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resps[k] = e.deliver(componentClick(c.u, c.msg, findButton(t, c.msg.Components, "Share").CustomID))
		}()
	}
	waitGroup(t, &wg, 10*time.Second)
	e.idle()
	deferred, refused := 0, 0
	for _, r := range resps {
		switch {
		case r.Type == discordgo.InteractionResponseDeferredChannelMessageWithSource:
			deferred++
		case r.Data != nil && r.Data.Flags&discordgo.MessageFlagsEphemeral != 0 && strings.Contains(r.Data.Content, "already shared"):
			refused++
		}
	}
	if deferred != 1 || refused != 1 {
		t.Errorf("two Share clicks at once: %d posted, %d refused, want 1 and 1: %q, %q", deferred, refused, text(resps[0]), text(resps[1]))
	}
	if n := len(e.public()) - before; n != 1 {
		t.Errorf("%d cards posted, want 1", n)
	}
}

// TestShareResultCardFailedPost checks that a card Discord refuses is
// given back: the sharer is told privately, the deferred answer goes, and
// Share works again.
func TestShareResultCardFailedPost(t *testing.T) {
	e := newEnv(t)
	finished := finishQuick(e)
	e.click(alice, finished, "Picture")
	mine := e.lastPrivate()
	before := len(e.public())
	e.fake.FailNext(func(r discordtest.Request) bool {
		return r.Method == http.MethodPatch && strings.HasSuffix(r.Path, "/messages/@original")
	}, http.StatusBadRequest, 50035, 0)
	e.click(alice, mine, "Share")
	if n := len(e.public()); n != before {
		t.Fatalf("%d public messages after a failed post, want %d (the deferred answer deleted)", n, before)
	}
	mustContain(t, "private word", e.lastPrivate().Content, "Sorry, I could not post the card. Try **Share** again in a moment.")
	e.click(alice, mine, "Share")
	if n := len(e.public()); n != before+1 {
		t.Fatalf("%d new public messages after Share again, want the card", n-before)
	}
	mustCard(t, e, e.board())
}
