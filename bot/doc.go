// Package bot is the Discord adapter of ConnectN: the /connectn slash
// command, the buttons, the rendering of boards as emoji, and the two ways
// Discord delivers interactions.
//
// One Handler turns an interaction into its response and never talks to the
// network itself:
//
//	Discord ─(gateway INTERACTION_CREATE | HTTP POST /interactions)─▶ transport
//	  ▶ Handler.Handle(ctx, *discordgo.Interaction)
//	      ▶ middleware: recovery, metrics, failures rendered
//	      ▶ route table (routes.go): subcommand name or custom_id action
//	          ▶ middleware: where and by whom, deferral, settled sessions
//	          ▶ handler: options decoded into a struct, or the custom_id parsed
//	              ▶ Store.Update(ctx, channelID, fn)   serialised per channel, committed
//	                  ▶ sessions lifecycle (Accept, Drop, …)(session, policy, now)
//	                      ▶ game.Match.Play(player, column)
//	              ▶ render(localizer, session) → embed + emoji rows + button rows
//	  ◀ the transport sends the response (InteractionRespond | JSON body)
//	  ▶ Handler.Delivered: the work after it (next board, edits) runs in the background
//
// Files by concern: handler.go (the Handler and its options), routes.go
// (the route table, custom_ids), options.go (subcommand options and the
// registered commands), middleware.go, call.go (one interaction being
// handled), a file per feature (challenge.go, play.go, rematch.go,
// stats.go, help.go, picture.go, ai.go), render.go and theme.go (what
// players see; every string from package locale), boards.go (board
// messages reached after a response, through the Messenger),
// scheduler.go (deadlines and due work) and runner.go (the background
// work on the injected clock), gateway.go and http.go (the transports;
// the HTTP wire format is bot/internal/wire).
//
// Button custom_ids are small routes ("cn:drop:<match>:<post>:<ply>:<column>")
// that are parsed, never trusted: a malformed, foreign or stale one gets a
// private (render.Ephemeral) message and changes nothing. Every refusal is a
// sessions.Refusal made where its rule is checked and rendered through the
// catalog in the reader's language.
package bot
