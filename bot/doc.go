// Package bot is the Discord adapter of ConnectN: the /connectn slash
// command, the buttons, the rendering of boards as emoji, and the two ways
// Discord delivers interactions.
//
// One Handler turns an interaction into its response and never talks to the
// network itself:
//
//	Discord ─(gateway INTERACTION_CREATE | HTTP POST /interactions)─▶ transport
//	  ▶ Handler.Handle(ctx, *discordgo.Interaction)
//	      ▶ route by command name or parsed custom_id
//	      ▶ Store.Update(ctx, channelID, fn)   serialised per channel, committed
//	          ▶ game.Match.Play(player, column)
//	      ▶ render(session) → embed + emoji rows + button rows
//	  ◀ the transport sends the response (InteractionRespond | JSON body)
//
// Gateway runs over the websocket with discordgo; HTTPServer serves the
// Interactions Endpoint URL, verifying Ed25519 signatures. Button custom_ids
// are small routes ("cn:drop:<match>:<ply>:<column>") that are parsed, never
// trusted: a malformed, foreign or stale one gets a private (ephemeral)
// message and changes nothing. Discord's limits are respected: at most 5
// buttons per action row and 5 rows, custom_ids under 100 characters, the
// first response well inside 3 seconds.
package bot
