// Package outbox is the bot's delivery after a response: the Messenger
// (an interaction's webhook, or the bot token's channel messages;
// DiscordMessenger calls Discord's REST API once per try, and holds every
// request during Discord's global rate limit), Boards (the board messages
// reached after the responses that made them: edits, posts of the next
// board, deferred answers, thread archives; each REST call tried within a
// budget by deliver), the Runner (the work that waits for a response to be
// delivered, and the background goroutines) and the Scheduler (the
// sessions with work due). Everything waits and reads the time on one
// clock (internal/clock).
package outbox
