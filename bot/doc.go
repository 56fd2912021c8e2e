// Package bot is the Discord adapter of ConnectN: the /connectn and
// /connectn-admin slash commands and the buttons, each a route of a
// feature, dispatched by one Handler.
//
// A Handler turns an interaction into its response and never talks to the
// network itself:
//
//	Discord ─(gateway INTERACTION_CREATE | HTTP POST /interactions)─▶ bot/transport
//	  ▶ Handler.Handle(ctx, *discordgo.Interaction)
//	      ▶ middleware: metrics, recovery, failures rendered
//	      ▶ the route table (a value NewHandler builds): subcommand or custom_id action
//	          ▶ middleware: where and by whom, deferral, settled sessions
//	          ▶ a feature's handler: options decoded into a struct, or the custom_id parsed
//	              ▶ Store.Update(ctx, channelID, fn)   serialised per channel, committed
//	                  ▶ sessions (Admit, Accept, Drop, …)(session, policy, now)
//	              ▶ render.X(localizer, session) → embed + emoji rows + buttons
//	  ◀ the transport sends the response (InteractionRespond | JSON body)
//	  ▶ Handler.Delivered: the work after it (next board, edits) runs in the background
//
// Files: handler.go (the Handler, its options, and table, which builds
// the features and mounts their routes), routes.go (routes, the router,
// custom_id parts), options.go (options and the registered commands),
// middleware.go, call.go (one interaction being handled); then a file and
// a small type per feature, holding only what it needs: challenge.go
// (with thread.go), open.go, play.go, rematch.go, stats.go, settings.go,
// admin.go, help.go, picture.go, card.go (Share: the result card posted
// once), solver.go (with ai.go), forget.go,
// tournament.go (with tournament_run.go, the scheduler's work for them).
// docs/development.md says how to add one. The rooms beside: rendering in
// bot/internal/render, delivery after a response (messenger, tries,
// boards, runner, scheduler) in bot/internal/outbox, custom_ids in
// bot/internal/customid, the transports in bot/transport. Time comes from
// one clock (internal/clock, WithClock).
//
// Button custom_ids are small routes ("cn:drop:<match>:<post>:<ply>:<column>")
// that are parsed, never trusted: a malformed, foreign or stale one gets a
// private (ephemeral) message and changes nothing. Every refusal is a
// sessions.Refusal made where its rule is checked and rendered through the
// catalog in the reader's language.
package bot
