// Package discordtest provides a fake Discord, served on the loopback
// interface, that a real *discordgo.Session can talk to in tests.
//
// A Server answers the REST API (under any /api/vN prefix; discordgo v0.29.0
// uses /api/v9) and the gateway websocket. Point a session at it either with
// Server.NewSession, or by replacing Session.Client.Transport with
// Server.Transport, which sends every request, whatever its host, to the
// fake. Session.Open then works unchanged: GET /gateway returns a ws:// URL
// of the fake, to which discordgo appends "/?v=9&encoding=json".
//
// # What it fakes
//
// Gateway: HELLO (op 10), IDENTIFY (op 2) answered with a READY dispatch
// carrying the bot user, a session id, resume_gateway_url and the
// application id, heartbeats (op 1, answered with op 11 ACK), RESUME (op 6,
// answered with a RESUMED dispatch, or op 9 INVALID SESSION for an unknown
// session). IDENTIFY and RESUME with a wrong token close the connection
// with code 4004, and IDENTIFY asking for privileged intents that were not
// allowed with WithPrivilegedIntents closes it with code 4014, as Discord
// does. Tests push events with Server.Dispatch and Server.DispatchInteraction.
//
// REST: GET /gateway, GET /gateway/bot, GET /users/@me (and the bot's
// id), GET /applications/@me, GET /oauth2/applications/@me (or the
// application id), listing (GET) and bulk overwrite (PUT) of global and
// guild application commands, the interaction callback, follow-up messages
// and gets, edits and deletes of @original or follow-ups through
// /webhooks/{app}/{token}, and creating, reading, editing and deleting
// channel messages. Multipart bodies (payload_json plus files) are
// accepted; files become attachments. Every REST call must carry
// "Authorization: Bot <token>", else it gets a 401 with a Discord-shaped
// JSON body ({"message": "401: Unauthorized", "code": 0}); like on
// Discord, GET /gateway, the interaction callback and the
// /webhooks/{app}/{token} routes are public (the interaction token is
// their credential, so a bot in HTTP interactions mode needs no bot
// token), and a wrong token makes Session.Open fail with close code 4004
// rather than with a 401. Unknown routes get a Discord-shaped 404 (or 405
// for a known path with another method).
//
// HTTP interactions: Server.Deliver POSTs an interaction to the bot's
// Interactions Endpoint URL, signed with Ed25519 as Discord signs it, and
// applies the response the bot answers exactly as the callback route would.
//
// The fake checks a few rules that Discord enforces and that bots commonly
// break: an interaction can be answered once, follow-ups and @original
// edits need an answered interaction, the interaction token of the webhook
// routes expires WebhookTokenLifetime (15 minutes) after the interaction
// (401, code 50027), messages must not be empty, content is at most 2000
// characters, at most 10 embeds and 5 action rows of at most 5 components
// each, custom ids of at most 100 characters that are unique within a
// message, and valid command names and descriptions in bulk overwrites.
// Violations get Discord's error codes (50006, 50035, 40060, 10062, 10008,
// 10015, 50027, ...), so discordgo returns a *RESTError.
//
// Time comes from the Server's clock (WithClock, time.Now by default):
// message timestamps and edits, snowflakes, signature timestamps and token
// expiry. Server.FailNext injects faults: the next matching REST request
// gets a Discord-shaped error of any status, or a 429 with Discord's
// rate-limit body and headers, which discordgo waits out and retries.
//
// Every REST request is logged (Server.Requests, Server.WaitRequest),
// every message written or deleted by the bot is logged with its resulting
// state (Server.Messages, Server.WaitMessage), the current messages of a
// channel are listed by Server.ChannelMessages, interaction responses can
// be awaited with Server.WaitResponse and the last bulk overwrite of
// commands is returned by Server.Commands.
//
// # What it does not fake
//
// There are no guilds, channels, members, roles or permissions: any
// channel id is accepted, READY lists no guilds, and the bot may delete
// any non-ephemeral message (as with Manage Messages) but edit only its
// own. There are no rate limits of its own (only those injected with
// FailNext), no gateway compression (zlib-stream or per-message zlib), no
// sharding beyond checking the shard pair, no missed-event replay on
// RESUME, no voice, no 3-second deadline for the first response to an
// interaction (tests use fake clocks; a response is accepted however
// late), no automatic check of an Interactions Endpoint URL (Discord sends
// a PING and deliberately bad signatures when the URL is saved; a test
// does both with Deliver, signing with a wrong key for the latter), and no
// delivery of MESSAGE_CREATE or MESSAGE_DELETE events for the bot's own
// messages. Routes not listed above, such as reactions or bulk deletion,
// answer 404.
//
// # Shutting down
//
// Close the session before the server. Session.Close always sleeps one
// second after sending its close frame; that is discordgo, not the fake.
// A discordgo session whose gateway connection fails reconnects forever
// when ShouldReconnectOnError is true (discordgo's default), which leaks
// goroutines if the Server is already closed. Sessions from
// Server.NewSession therefore have it set to false. A test that builds its
// own session should also call Server.WaitConnections before
// Session.Close: discordgo's heartbeat goroutine sends its first heartbeat
// right after Open, and if Close wins that race the heartbeat fails and
// triggers a reconnect.
package discordtest
