package bot_test

import (
	"strings"
	"testing"
	"unicode"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot/discordtest"
	"github.com/connectn/connectn/locale"
)

// helpButtons are the catalog keys of the help's page buttons, in order.
var helpButtons = []string{"button_help_play", "button_help_commands", "button_help_bot", "button_help_ratings", "button_help_admins"}

// helpPageMax is the most a page of the help may take, in columns of
// text (displayWidth): the first page about five lines of a desktop
// client's embed (some 75 columns a line), the others a screen or so.
var helpPageMax = []int{440, 1600, 1600, 1600, 1200}

// displayWidth estimates how wide s reads: a wide (CJK, Hangul, kana)
// character counts two columns, any other one; markdown's ** and ` count
// nothing.
func displayWidth(s string) int {
	s = strings.NewReplacer("**", "", "`", "").Replace(s)
	n := 0
	for _, r := range s {
		switch {
		case unicode.In(r, unicode.Han, unicode.Hangul, unicode.Hiragana, unicode.Katakana) || r >= 0xFF00 && r <= 0xFFEF || r >= 0x3000 && r <= 0x303F:
			n += 2
		default:
			n++
		}
	}
	return n
}

// TestHelpPages: /connectn help shows how to play on a short first page
// with one button per page under it, labelled in the reader's language, the
// page shown disabled; each button turns the same message to its page in
// place (UPDATE_MESSAGE), in every language, every page within its length;
// a crafted page number is refused privately and changes nothing.
func TestHelpPages(t *testing.T) {
	e := newEnv(t)
	for _, lang := range locale.Default().Languages() {
		l := locale.Default().Localizer(lang)
		p := &place{e: e, channel: channelID, shape: func(u user, en *discordtest.Envelope) { en.Locale = lang }}
		resp := p.slash(carol, "help")
		if resp.Data == nil || resp.Data.Flags&discordgo.MessageFlagsEphemeral == 0 {
			t.Fatalf("%s: help is not private: %q", lang, text(resp))
		}
		msg := e.lastPrivate()
		for page, key := range helpButtons {
			// Each page is one click away from the first.
			b := findButton(t, msg.Components, l.T(key))
			if page == 0 {
				if !b.Disabled {
					t.Errorf("%s: the first page's own button %q is enabled", lang, b.Label)
				}
				checkHelpPage(t, lang, l, 0, resp.Data.Embeds, resp.Data.Components)
				continue
			}
			got := e.send(discordtest.Click(p.envelope(carol), msg, b.CustomID))
			if got.Type != discordgo.InteractionResponseUpdateMessage {
				t.Fatalf("%s: %s answered type %d %q, want the page in place (7)", lang, b.Label, got.Type, text(got))
			}
			checkHelpPage(t, lang, l, page, got.Data.Embeds, got.Data.Components)
		}
	}
	// A page the bot does not have, or a number it does not write, is
	// refused privately, and the help stays as it was.
	e.send(slash(carol, "help"))
	msg := e.lastPrivate()
	for _, id := range []string{"cn:help:5", "cn:help:-1", "cn:help:01", "cn:help", "cn:help:1:2"} {
		mustPrivate(t, e.clickID(carol, msg, id), "That button isn't one of mine, so nothing was changed.")
		if got := e.message(msg.ID); messageText(got) != messageText(msg) {
			t.Errorf("%s changed the help:\n%s", id, messageText(got))
		}
	}
}

// checkHelpPage holds page (its embeds and buttons) of the help in lang to
// its facts: its title (the page's button label, but the first page's),
// its length, and the five buttons, its own disabled.
func checkHelpPage(t *testing.T, lang string, l *locale.Localizer, page int, embeds []*discordgo.MessageEmbed, components []discordgo.MessageComponent) {
	t.Helper()
	if len(embeds) != 1 {
		t.Fatalf("%s, page %d: %d embeds, want 1", lang, page, len(embeds))
	}
	title, desc := embeds[0].Title, embeds[0].Description
	if page > 0 && !strings.Contains(title, l.T(helpButtons[page])) {
		t.Errorf("%s, page %d: title %q does not name the page %q", lang, page, title, l.T(helpButtons[page]))
	}
	if w := displayWidth(desc); w > helpPageMax[page] || w < 100 {
		t.Errorf("%s, page %d (%s): %d columns of text, want 100 to %d:\n%s", lang, page, title, w, helpPageMax[page], desc)
	}
	bs := buttons(components)
	if len(bs) != len(helpButtons) {
		t.Fatalf("%s, page %d: buttons %q, want one per page", lang, page, labels(components))
	}
	for k, b := range bs {
		if b.Label != l.T(helpButtons[k]) || b.Disabled != (k == page) {
			t.Errorf("%s, page %d: button %d is %q (disabled %v), want %q, disabled only on its own page", lang, page, k, b.Label, b.Disabled, l.T(helpButtons[k]))
		}
	}
}
