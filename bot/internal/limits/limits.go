// Package limits names, once for the whole repository, the limits Discord
// puts on what a bot sends and the layout numbers that follow from them.
// The bot lays out its messages and commands by them, and bot/discordtest
// validates by them what the bot sends.
//
// Sources, on discord.com/developers/docs:
//   - resources/message#create-message (content, embeds per message) and
//     resources/message#embed-object-embed-limits (embed title,
//     description, footer, the 6000 characters of all embeds);
//   - components/reference#action-row and components/reference#button
//     (rows per message, buttons per row, custom_id, label);
//   - interactions/application-commands#application-command-object
//     (names, descriptions, options and choices of a command; commands per
//     application);
//   - interactions/receiving-and-responding#responding-to-an-interaction
//     (3 seconds for the first response, 15 minutes for the interaction's
//     token).
//
// Lengths are counted in Unicode characters (runes), as Discord counts
// them.
package limits

import "time"

// Messages: what one message (a channel message, an interaction response, a
// follow-up, an edit) may hold.
const (
	// Content is the most characters of a message's content.
	Content = 2000
	// Embeds is the most embeds of one message.
	Embeds = 10
	// EmbedTitle is the most characters of an embed's title.
	EmbedTitle = 256
	// EmbedDescription is the most characters of an embed's description.
	EmbedDescription = 4096
	// EmbedFooter is the most characters of an embed footer's text.
	EmbedFooter = 2048
	// EmbedsTotal is the most characters of all the embeds of a message
	// together (titles, descriptions, field names and values, footer texts
	// and author names).
	EmbedsTotal = 6000
)

// Components: the layout of a message's buttons.
const (
	// ActionRows is the most action rows of a message.
	ActionRows = 5
	// ButtonsPerRow is the most buttons of one action row (and the fewest
	// components of a row is 1).
	ButtonsPerRow = 5
	// CustomID is the most characters of a component's custom_id (the
	// fewest is 1); a custom_id is unique within its message.
	CustomID = 100
	// ButtonLabel is the most characters of a button's label.
	ButtonLabel = 80
)

// Application commands, as registered by a bulk overwrite.
const (
	// Commands is the most CHAT_INPUT commands of an application, globally
	// or in one guild.
	Commands = 100
	// NameMin and NameMax bound the characters of a command's, a
	// subcommand's or an option's name.
	NameMin, NameMax = 1, 32
	// DescriptionMin and DescriptionMax bound the characters of a
	// command's, a subcommand's or an option's description.
	DescriptionMin, DescriptionMax = 1, 100
	// Options is the most options (or subcommands) of a command or a
	// subcommand.
	Options = 25
	// Choices is the most choices of one option.
	Choices = 25
)

// Interactions: how long the answer to one may take.
const (
	// ResponseWindow is how long Discord waits for the first response to
	// an interaction.
	ResponseWindow = 3 * time.Second
	// TokenLifetime is how long an interaction's token stays valid for
	// follow-ups and edits through its webhook, from the interaction.
	TokenLifetime = 15 * time.Minute
)
