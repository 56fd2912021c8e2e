package bot

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/bwmarrin/discordgo"
)

// InviteScopes are the OAuth2 scopes the bot is invited with: "bot" makes
// it a member of the server, so that the gateway delivers the server's
// interactions and the bot token can edit a board after its interaction
// token has expired; "applications.commands" lets it register /connectn.
var InviteScopes = []string{"bot", "applications.commands"}

// InvitePermissions are the permissions the bot asks for in a server, and
// why (answering an interaction needs none of them; they are for the
// messages the bot writes with its own token, such as a board edited when a
// deadline passes after the interaction token has expired):
//
//   - View Channels: see the channels where matches are played;
//   - Send Messages, Send Messages in Threads: post and edit boards in
//     channels and threads;
//   - Create Public Threads: open a thread for a match (the challenge's
//     thread option); the bot archives the threads it opened, as their
//     owner;
//   - Embed Links: boards are embeds, which Discord strips from a bot's
//     messages without this permission.
const InvitePermissions int64 = discordgo.PermissionViewChannel |
	discordgo.PermissionSendMessages |
	discordgo.PermissionSendMessagesInThreads |
	discordgo.PermissionCreatePublicThreads |
	discordgo.PermissionEmbedLinks

// InviteURL returns the OAuth2 URL that adds application appID to a server
// (a guild install, integration_type 0) with InviteScopes and
// InvitePermissions. A non-empty guildID preselects that server.
func InviteURL(appID, guildID string) string {
	q := url.Values{
		"client_id":        {appID},
		"integration_type": {"0"},
		"scope":            {strings.Join(InviteScopes, " ")},
		"permissions":      {strconv.FormatInt(InvitePermissions, 10)},
	}
	if guildID != "" {
		q.Set("guild_id", guildID)
		q.Set("disable_guild_select", "true")
	}
	return "https://discord.com/oauth2/authorize?" + q.Encode()
}

// UserInstallURL returns the OAuth2 URL with which a member installs
// application appID for themselves (a user install, integration_type 1,
// scope applications.commands only): /connectn then works in their DMs,
// group DMs and servers the bot is not in, through interaction responses
// and webhooks alone. The application must allow user installs
// (Developer Portal > Installation > Installation Contexts: User Install).
// Source: https://discord.com/developers/docs/resources/application#installation-context
func UserInstallURL(appID string) string {
	q := url.Values{
		"client_id":        {appID},
		"integration_type": {"1"},
		"scope":            {"applications.commands"},
	}
	return "https://discord.com/oauth2/authorize?" + q.Encode()
}
