package bot

import (
	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot/internal/outbox"
)

// Messenger reaches Discord beside or after an interaction response: the
// next round's board as a follow-up, a board edited when a deadline
// passes. It has two ways in: an interaction's webhook (valid 15 minutes
// after the interaction, no bot token needed, so it works in `serve`
// mode) and, when the bot has a token, the channel's messages. Its
// methods are outbox.Messenger's; *DiscordMessenger is the real one, and
// tests use it against bot/discordtest.
type Messenger = outbox.Messenger

// DiscordMessenger is the Messenger that calls Discord's REST API through a
// discordgo session (outbox.DiscordMessenger: each call tried once, the
// global rate limit kept by the messenger itself).
type DiscordMessenger = outbox.DiscordMessenger

// NewDiscordMessenger returns a messenger on s.
func NewDiscordMessenger(s *discordgo.Session) *DiscordMessenger {
	return outbox.NewDiscordMessenger(s)
}

// The causes of a retry, as passed to Metrics.RESTRetry and
// Metrics.RESTGiveUp: a bounded set.
const (
	CauseRateLimit = outbox.CauseRateLimit // Discord answered 429 (per route or global)
	CauseServer    = outbox.CauseServer    // Discord answered 500 to 599
	CauseTimeout   = outbox.CauseTimeout   // no answer within the try's time
	CauseReset     = outbox.CauseReset     // the connection failed without an answer
	CauseLost      = outbox.CauseLost      // a post whose answer was lost was found made
)
