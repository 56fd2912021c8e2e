// Package discordtest is a fake Discord, served on the loopback interface,
// that a real *discordgo.Session and a bot's Interactions Endpoint URL can
// talk to in tests, with the builders of the interactions Discord sends and
// the readers of the responses a bot answers.
//
// A Server answers the REST API (under any /api/vN prefix; discordgo v0.29.0
// uses /api/v9) and the gateway websocket. Point a session at it either with
// Server.NewSession, or by replacing Session.Client.Transport with
// Server.Transport, which sends every request, whatever its host, to the
// fake. Session.Open then works unchanged: GET /gateway returns a ws:// URL
// of the fake, to which discordgo appends "/?v=9&encoding=json".
//
// The package's files follow its concerns: server.go (the Server, its
// options and clock), rest.go and commands.go (routing, errors, the request
// log, users, applications and commands), messages.go (channel messages and
// the stored state of every message), channels.go (what the fake knows of
// channels: threads, DMs, channels without the bot), interactions.go
// (dispatch, delivery, the callback, follow-ups, and gets, edits and
// deletes of @original and follow-ups through the webhook), gateway.go,
// validate.go (the one table of Discord's limits, from bot/internal/limits,
// and the checks that use it), faults.go (FailNext), build.go (builders of
// interactions and the request signer) and read.go (readers of responses).
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
// does. Tests push interactions with Server.DispatchInteraction and
// Server.DispatchInteractionJSON, routed to the shard that serves their
// guild (WithShards); no other event is sent.
//
// REST, the routes a bot like ConnectN calls: GET /gateway, GET
// /gateway/bot, GET /oauth2/applications/@me (or the application id),
// listing (GET) and bulk overwrite (PUT) of global and guild application
// commands, the interaction callback, follow-up messages and gets, edits
// and deletes of @original or follow-ups through /webhooks/{app}/{token},
// creating and editing channel messages, starting a thread without a
// message (POST /channels/{channel}/threads) and editing a thread (PATCH
// /channels/{channel}: name, archived, locked, auto_archive_duration).
// Threads live as on Discord: a message reopens an archived thread (not a
// locked one), a thread archives itself after auto_archive_duration
// minutes without a message on the Server's clock, and an archived thread
// refuses message edits and channel edits that do not reopen it (50083);
// Threads and Thread read them. Multipart bodies (payload_json
// plus files) are accepted; files become attachments, whose bytes
// Server.Attachment returns. Every REST call must carry "Authorization: Bot <token>", else
// it gets a 401 with a Discord-shaped JSON body ({"message": "401:
// Unauthorized", "code": 0}); like on Discord, GET /gateway, the
// interaction callback and the /webhooks/{app}/{token} routes are public
// (the interaction token is their credential, so a bot in HTTP
// interactions mode needs no bot token), and a wrong token makes
// Session.Open fail with close code 4004 rather than with a 401. Unknown
// routes get a Discord-shaped 404 (or 405 for a known path with another
// method).
//
// HTTP interactions: Server.Deliver and Server.DeliverJSON POST an
// interaction to the bot's Interactions Endpoint URL, signed with Ed25519
// as Discord signs it (SignedRequest), and apply the response the bot
// answers exactly as the callback route would. WithResolver is a thin mode
// for a load generator that sends the interactions itself: the webhook
// routes then serve tokens the Server never saw.
//
// Where an interaction happens: the builders make interactions in a
// server's channel or thread, in a server through a member's own install
// of the app (the bot not a member there), in the bot's DM, and in group
// DMs and DMs between users (Envelope.Context, UserInstall, ChannelType).
// KeepBotOut makes the bot a stranger to channels: every bot-token request
// on them gets 403 Missing Access (50001) while the interaction's token
// keeps working, and BotTokenCalls lists what the bot tried there. The
// channel of a registered interaction of context 2 is kept out that way by
// itself; a registered interaction also tells the fake its channel's
// guild, that it is a DM (where threads are refused, 50003) or a thread
// (where threads are refused, 50024, as in MarkThread's). DenyThreads
// refuses threads for want of permission (50013).
//
// The fake checks the rules Discord enforces that a bot commonly breaks:
// an interaction can be answered once (40060), with a response type its
// type takes; follow-ups and @original edits need an answered interaction
// (10015); the interaction token of the webhook routes expires
// WebhookTokenLifetime (15 minutes) after the interaction (401, code
// 50027); an interaction authorised by a user install alone
// (authorizing_integration_owners without "0") takes at most 5 follow-up
// messages (40094); messages must not be empty (50006); and the sizes of
// limitTable: content, embeds (their number, title, description, footer
// and the 6000 characters of all), action rows and the buttons of a row,
// custom_ids (1 to 100 characters, unique within a message), button
// labels, thread names, and the names, descriptions, options and choices
// of commands in bulk overwrites (50035 with Discord's field errors), with
// their localizations (Discord's locales only, names under the naming
// rule, names unique among siblings in every locale), integration_types
// and contexts. Violations get
// Discord's error codes, so discordgo returns a *RESTError.
//
// Time comes from the Server's clock (WithClock, time.Now by default):
// message timestamps and edits, snowflakes, signature timestamps and token
// expiry. Server.FailNext injects faults: the next matching REST request
// gets a Discord-shaped error of any status, or a 429 with Discord's
// rate-limit body and headers, which discordgo waits out and retries.
// Server.SetLatency holds every REST answer back, as a slow Discord.
//
// Every REST request is logged (Server.Requests, Server.WaitRequest,
// Server.BotTokenCalls), every message written or deleted by the bot is
// logged with its resulting state, or its last for a deletion
// (Server.Messages, Server.WaitMessage, WithOnMessage), unless
// WithoutLogs keeps the logs off for a load generator; the current
// state of a message is returned by Server.Message and the messages of a
// channel by Server.ChannelMessages, interaction responses can be awaited
// with Server.WaitResponse (or each told as it comes, accepted or refused,
// with WithOnResponse) and the last bulk overwrite of commands is
// returned by Server.Commands.
//
// Builders and readers, for tests and load generators alike: Ping, Slash
// (with IntArg, StringArg and UserArg, USER options resolved as Discord
// resolves them) and Click make interactions as Discord sends them, from an
// Envelope (ID, token, application, guild, channel, the acting User, the
// context and the installation);
// Sign and SignedRequest sign them as Discord does; DecodeResponse reads a
// response with its components, and Buttons and FindButton find its
// buttons.
//
// # What it does not fake
//
// Only what a bot like ConnectN sends is modelled: messages of content,
// embeds (fields and authors are counted in the 6000 characters but not
// checked one by one), action rows of buttons with custom_ids, flags,
// allowed_mentions and attachments. Select menus, link and premium
// buttons, Components V2 layouts (not checked), modals (a MODAL response
// is refused), polls, stickers, replies, autocomplete choices (not
// checked) and context-menu commands are not. There are no guilds,
// members, roles or permissions beyond KeepBotOut and DenyThreads, and no
// channels beyond what channels.go knows: any channel id is accepted by the
// message routes, READY lists no guilds, mentions are not computed, and the
// bot may edit only its own messages. Threads are started without a
// message only (no thread from a message, no forum posts, no announcement
// threads, no thread members routes), and the bot is taken to hold Manage
// Threads where it opens threads, except to reopen a locked thread by
// posting in it. There are no rate limits of its own (only those injected with
// FailNext), no gateway compression (zlib-stream or per-message zlib), no
// sharding beyond routing by the shard pair, no missed-event replay on
// RESUME, no voice, no 3-second deadline for the first response to an
// interaction (tests use fake clocks; a response is accepted however
// late), no automatic check of an Interactions Endpoint URL (Discord sends
// a PING and deliberately bad signatures when the URL is saved; a test
// does both with Deliver, signing with a wrong key for the latter), and no
// delivery of MESSAGE_CREATE or MESSAGE_DELETE events for the bot's own
// messages. Routes not listed above, such as reading a channel's messages,
// deleting one with the bot token or reactions, answer 404, and gateway opcodes other than
// heartbeat, IDENTIFY and RESUME close the connection (4001). The logs keep everything until the Server is closed.
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
