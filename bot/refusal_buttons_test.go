package bot_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot"
	"github.com/connectn/connectn/bot/discordtest"
	"github.com/connectn/connectn/game/ai"
	"github.com/connectn/connectn/locale"
	"github.com/connectn/connectn/sessions"
)

// buttonOf returns the label of the button of msg whose custom_id has
// action, failing when msg has none.
func buttonOf(t *testing.T, msg *discordgo.Message, action string) string {
	t.Helper()
	for _, b := range buttons(msg.Components) {
		if strings.HasPrefix(b.CustomID, "cn:"+action+":") {
			return b.Label
		}
	}
	t.Fatalf("no %s button on the message; buttons: %q", action, labels(msg.Components))
	return ""
}

// TestRefusalsNameButtonsOnTheMessage drives, in every language of the
// catalog, each refusal whose text tells the clicker which button to use,
// and holds the text to the message it refers to: the button it names is
// on that message, labelled as the message shows it (in the server's
// language, which may not be the clicker's), and the label of the button
// that message does not have is not named instead (Decline on an open
// challenge, whose button is Withdraw, and the reverse). Every refusal
// whose text reads the field Button is driven here.
func TestRefusalsNameButtonsOnTheMessage(t *testing.T) {
	e := newEnv(t)
	driven := map[string]bool{}
	// check holds refusal resp to msg: it names msg's button of action,
	// and not the label named by absent (a catalog key) in the server's
	// language.
	check := func(what string, server *locale.Localizer, resp *discordgo.InteractionResponse, msg *discordgo.Message, action, absent, reason string) {
		t.Helper()
		driven[reason] = true
		if resp.Data == nil || resp.Data.Flags&discordgo.MessageFlagsEphemeral == 0 {
			t.Errorf("%s: got %q, want a private refusal", what, text(resp))
			return
		}
		got := resp.Data.Content
		if label := buttonOf(t, msg, action); !strings.Contains(got, label) {
			t.Errorf("%s: %q does not name the message's button %q (buttons: %q)", what, got, label, labels(msg.Components))
		}
		if wrong := server.T(absent); absent != "" && !slices.Contains(strings.Fields(labels(msg.Components)), wrong) && strings.Contains(got, wrong) {
			t.Errorf("%s: %q names %q, a button the message does not have (buttons: %q)", what, got, wrong, labels(msg.Components))
		}
	}
	type where struct{ server, reader string }
	var places []where
	for _, lang := range locale.Default().Languages() {
		places = append(places, where{lang, lang})
	}
	places = append(places, where{"de", "ja"}, where{"ja", "en"})
	for k, w := range places {
		p := &place{e: e, channel: fmt.Sprintf("13000000000000001%02d", k), shape: func(u user, en *discordtest.Envelope) {
			en.GuildLocale, en.Locale = w.server, w.reader
		}}
		server := locale.Default().Localizer(w.server)
		name := w.reader + " in a " + w.server + " server"

		// An open challenge: Accept and Withdraw.
		p.slash(alice, "open", discordtest.IntArg("wins", 1))
		open := p.board()
		check(name+": the challenger's Accept on an open challenge", server,
			p.click(alice, open, buttonOf(t, open, "accept")), open, "decline", "button_decline", "own_open_challenge")
		check(name+": another member's Withdraw on an open challenge", server,
			p.click(bob, open, buttonOf(t, open, "decline")), open, "accept", "", "open_withdraw")
		mustUpdate(t, p.click(alice, open, buttonOf(t, open, "decline")))

		// A challenge to a member: Accept and Decline.
		p.slash(alice, "challenge", discordtest.UserArg("opponent", bob), discordtest.IntArg("wins", 1),
			discordtest.IntArg("rows", 4), discordtest.IntArg("columns", 4), discordtest.IntArg("connect", 3))
		challenge := p.board()
		check(name+": the challenger's Accept", server,
			p.click(alice, challenge, buttonOf(t, challenge, "accept")), challenge, "decline", "button_withdraw", "own_challenge")

		// A rematch asked by Alice, asked again by Bob (a click on the
		// finished board as he saw it): the invitation's Accept.
		mustUpdate(t, p.click(bob, challenge, buttonOf(t, challenge, "accept")))
		p.play(alice, bob, "1", "2", "1", "2", "1")
		finished := p.board()
		mustUpdate(t, p.click(alice, finished, buttonOf(t, finished, "rematch")))
		invitation := p.board()
		check(name+": the other player's Rematch while the invitation waits", server,
			p.e.send(discordtest.Click(p.envelope(bob), finished, findButton(t, finished.Components, buttonOf(t, finished, "rematch")).CustomID)),
			invitation, "accept", "", "rematch_pending")
		mustUpdate(t, p.click(bob, invitation, buttonOf(t, invitation, "decline")))
	}
	for _, r := range sessions.Reasons() {
		src, _ := locale.Default().Forms(locale.Base, r.MessageID())
		fields, _ := locale.Fields(src["other"])
		if slices.Contains(fields, "Button") && !driven[r.String()] {
			t.Errorf("refusal %s names a button (Button) but is not driven here", r)
		}
	}
}

// TestRematchKeepsPictureAndAnalysis: asking for a rematch disables only
// Rematch under the last board; its Picture and Analysis stay and still
// answer while the invitation waits, and after it is declined.
func TestRematchKeepsPictureAndAnalysis(t *testing.T) {
	e := newEnv(t, bot.WithAI(ai.NewEngine(ai.Options{TableMB: 4, Workers: 1})))
	e.startMatch(map[string]int{"rows": 4, "columns": 5, "connect": 3, "wins": 1})
	e.play(alice, bob, "1", "2", "1", "2", "1")
	finished := e.board()
	resp := e.click(bob, finished, "Rematch")
	mustUpdate(t, resp)
	after := &discordgo.Message{ID: finished.ID, ChannelID: finished.ChannelID, Embeds: resp.Data.Embeds, Components: resp.Data.Components}
	if got := labels(after.Components); got != "Rematch Picture Analysis" {
		t.Fatalf("after Rematch the last board has buttons %q, want Rematch Picture Analysis", got)
	}
	for _, b := range buttons(after.Components) {
		if b.Disabled != (b.Label == "Rematch") {
			t.Errorf("button %s: disabled %v; want only Rematch disabled", b.Label, b.Disabled)
		}
	}
	if got := e.message(finished.ID); labels(got.Components) != "Rematch Picture Analysis" {
		t.Errorf("the last board as the channel shows it has buttons %q", labels(got.Components))
	}
	deferred := func(what string, resp *discordgo.InteractionResponse) {
		t.Helper()
		if resp.Type != discordgo.InteractionResponseDeferredChannelMessageWithSource {
			t.Errorf("%s: got type %d %q, want the deferred private answer", what, resp.Type, text(resp))
		}
	}
	deferred("Picture while the invitation waits", e.click(carol, after, "Picture"))
	deferred("Analysis while the invitation waits", e.click(alice, after, "Analysis"))
	mustUpdate(t, e.click(alice, e.board(), "Decline"))
	deferred("Picture after the invitation was declined", e.click(alice, after, "Picture"))
	// A button naming a match that is not this channel's stays refused.
	mustPrivate(t, e.clickID(alice, after, "cn:picture:999"), "belongs to a board that has moved on")
}
