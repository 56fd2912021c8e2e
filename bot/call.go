package bot

import (
	"context"
	"errors"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot/internal/customid"
	"github.com/connectn/connectn/bot/internal/outbox"
	"github.com/connectn/connectn/bot/internal/render"
	"github.com/connectn/connectn/internal/clock"
	"github.com/connectn/connectn/locale"
	"github.com/connectn/connectn/sessions"
)

// call is one interaction being handled: who sent it and from where, the
// languages its answers speak, the button it clicked, and the work to do once
// Discord has the response.
type call struct {
	i *discordgo.Interaction
	// user and name are the ID and display name of the member (or, outside
	// a server, the user) who sent it.
	user, name string
	// now is when the handler took it up, on clock, the handler's.
	now   time.Time
	clock clock.Clock
	// reader speaks the sender's language (the interaction's locale):
	// private replies. public(s) speaks the channel's.
	reader *locale.Localizer
	// kind names the interaction for metrics and logs (InteractionKind),
	// and outcome how it was answered (OutcomeOK when "").
	kind, outcome string
	// id is a button's parsed custom_id.
	id customid.ID
	// after is the work to run once the response is delivered; later, for
	// a deferred response, makes the message that replaces it.
	after []func(context.Context)
	later func(context.Context) *message
}

// newCall takes up interaction i at the handler's clock.
func (h *Handler) newCall(i *discordgo.Interaction) *call {
	c := &call{i: i, now: h.clock.Now(), clock: h.clock}
	switch {
	case i.Member != nil && i.Member.User != nil:
		c.user, c.name = i.Member.User.ID, i.Member.DisplayName()
	case i.User != nil:
		c.user, c.name = i.User.ID, i.User.DisplayName()
	}
	c.reader = locale.Default().Localizer(string(i.Locale))
	return c
}

// placeLocale returns the language of the public messages of the place
// interaction i comes from: the server's guild_locale, or outside a server
// the sender's locale.
func placeLocale(i *discordgo.Interaction) string {
	if i.GuildID != "" && i.GuildLocale != nil && *i.GuildLocale != "" {
		return string(*i.GuildLocale)
	}
	return string(i.Locale)
}

// webhookOnly reports whether the bot is not a member where interaction i
// comes from, so that its token can neither post nor edit there and only
// the interaction's response and webhook reach the channel: a group DM
// (context 2, PRIVATE_CHANNEL), or a server whose interaction was
// authorised by a member's install of the app alone
// (authorizing_integration_owners without the key 0, GUILD_INSTALL). It
// reads the interaction, never tries and fails. In the bot's own DM
// (context 1, BOT_DM) the bot token can post. An interaction without
// authorizing_integration_owners (sent before Discord had user installs)
// comes from a server install. Source: Discord's "Application commands:
// installation context" and "Interaction object" documentation
// (https://discord.com/developers/docs/interactions/application-commands#installation-context,
// https://discord.com/developers/docs/interactions/receiving-and-responding#interaction-object).
func webhookOnly(i *discordgo.Interaction) bool {
	switch i.Context {
	case discordgo.InteractionContextPrivateChannel:
		return true
	case discordgo.InteractionContextGuild:
		if len(i.AuthorizingIntegrationOwners) == 0 {
			return false
		}
		_, server := i.AuthorizingIntegrationOwners[discordgo.ApplicationIntegrationGuildInstall]
		return !server
	}
	return false
}

// place returns the Place of a session opened by the call.
func (c *call) place() sessions.Place {
	return sessions.Place{Locale: placeLocale(c.i), WebhookOnly: webhookOnly(c.i)}
}

// public returns the localizer of the messages everyone sees in session
// s's channel (sessions.Place.Locale), or, for nil, in the channel the call
// comes from: boards, records, results, stats.
func (c *call) public(s *sessions.Session) *locale.Localizer {
	if s != nil {
		return render.Public(s)
	}
	return locale.Default().Localizer(placeLocale(c.i))
}

// out names the call's interaction for the work after its response.
func (c *call) out() outbox.Interaction {
	return outbox.Interaction{ID: c.i.ID, AppID: c.i.AppID, Token: c.i.Token, ChannelID: c.i.ChannelID, Kind: c.kind}
}

// afterResponse queues fn to run once the response to the call is
// delivered.
func (c *call) afterResponse(fn func(context.Context)) { c.after = append(c.after, fn) }

// messageID returns the ID of the message a component interaction came
// from, "" for a command.
func (c *call) messageID() string {
	if c.i.Message != nil {
		return c.i.Message.ID
	}
	return ""
}

// webhook returns the call's interaction webhook, naming the board message
// as ref ("@original", a message ID, or "" while it is not posted yet).
func (c *call) webhook(ref string) sessions.Webhook {
	return sessions.Webhook{AppID: c.i.AppID, Token: c.i.Token, Message: ref, At: c.now.UTC()}
}

// getter and updater are the two calls of the session store that most
// features make (sessions.Store's Get and Update); a feature declares the
// small interface of what it uses of the store, from these and the
// store's other methods.
type (
	getter interface {
		Get(ctx context.Context, channelID string) (*sessions.Session, error)
	}
	updater interface {
		Update(ctx context.Context, channelID string, fn func(*sessions.Session) error) (*sessions.Session, error)
	}
)

// updateChannel is the store's Update for the call's channel; a channel without a
// session refuses ReasonStale.
func updateChannel(ctx context.Context, st updater, c *call, fn func(*sessions.Session) error) (*sessions.Session, error) {
	s, err := st.Update(ctx, c.i.ChannelID, fn)
	if errors.Is(err, sessions.ErrNotFound) {
		return nil, sessions.Refuse(sessions.ReasonStale)
	}
	return s, err
}

// updateMatch runs fn on the channel's session when it is the session
// the clicked button belongs to (sessions.Session.Touch), after settling a
// deadline that has passed under p: then fn is not called and expired is
// set.
func updateMatch(ctx context.Context, st updater, c *call, p sessions.Policy, fn func(s *sessions.Session) error) (s *sessions.Session, expired sessions.Expiry, err error) {
	s, err = updateChannel(ctx, st, c, func(s *sessions.Session) error {
		var err error
		if expired, err = s.Touch(c.match(), c.now, p); err != nil || expired != sessions.ExpiryNone {
			return err
		}
		return fn(s)
	})
	return s, expired, err
}

// current returns the channel's newest session when it is the one the
// clicked button belongs to; ReasonStale otherwise.
func current(ctx context.Context, st getter, c *call) (*sessions.Session, error) {
	s, err := st.Get(ctx, c.i.ChannelID)
	if errors.Is(err, sessions.ErrNotFound) || (err == nil && s.ID != c.match()) {
		return nil, sessions.Refuse(sessions.ReasonStale)
	}
	return s, err
}

// finishedMatch returns the finished match that a button under its last
// board names (c.match()), whether or not the channel has moved on since
// (the last board keeps its Picture and Analysis after a rematch is asked
// for): the channel's newest session when it is that match, else one of
// its last recentMatches sessions. It refuses ReasonStale when the match
// is none of them, or is not finished.
func finishedMatch(ctx context.Context, st historyStore, c *call) (*sessions.Session, error) {
	s, err := st.Get(ctx, c.i.ChannelID)
	if err == nil && s.ID != c.match() {
		var list []*sessions.Session
		list, err = st.History(ctx, c.i.ChannelID, recentMatches)
		s = nil
		for _, old := range list {
			if old.ID == c.match() {
				s = old
			}
		}
	}
	switch {
	case errors.Is(err, sessions.ErrNotFound):
		return nil, sessions.Refuse(sessions.ReasonStale)
	case err != nil:
		return nil, err
	case s == nil || s.Phase != sessions.PhaseFinished:
		return nil, sessions.Refuse(sessions.ReasonStale)
	}
	return s, nil
}

// recentMatches is how many of a channel's newest sessions finishedMatch
// looks through: a rematch's invitation, declined or expired, and the
// rematch itself come after the match whose last board is clicked.
const recentMatches = 10

// match returns the session a clicked button names: the first part of its
// custom_id, as every button of a match has it (0 for another button).
func (c *call) match() int64 { return c.id.Part(0) }

// message is what the bot shows (render.Message): the data of an
// interaction response, also turned into follow-ups and edits by the
// messenger.
type message = render.Message

// updateMessage is an UPDATE_MESSAGE response.
func updateMessage(data *message) *discordgo.InteractionResponse {
	return &discordgo.InteractionResponse{Type: discordgo.InteractionResponseUpdateMessage, Data: data}
}

// newMessage is a CHANNEL_MESSAGE_WITH_SOURCE response seen by everyone.
func newMessage(data *message) *discordgo.InteractionResponse {
	return &discordgo.InteractionResponse{Type: discordgo.InteractionResponseChannelMessageWithSource, Data: data}
}

// deferUpdate answers now with a deferred update (the message stays as it
// is, Discord shows no error); work, run once the response is delivered,
// edits the message itself. Only a route that may defer updates may
// answer so (the deferral middleware checks).
func (c *call) deferUpdate(work func(context.Context)) *discordgo.InteractionResponse {
	c.afterResponse(work)
	return &discordgo.InteractionResponse{Type: discordgo.InteractionResponseDeferredMessageUpdate}
}

// deferPrivate answers now with a deferred private message ("thinking…",
// seen by the sender only); work, run once the response is delivered,
// makes the message that replaces it (nil leaves it). Only a route that
// may defer private answers may answer so.
func (c *call) deferPrivate(work func(context.Context) *message) *discordgo.InteractionResponse {
	c.later = work
	return &discordgo.InteractionResponse{
		Type: discordgo.InteractionResponseDeferredChannelMessageWithSource,
		Data: &message{Flags: discordgo.MessageFlagsEphemeral},
	}
}
