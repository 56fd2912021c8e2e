package bot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot/internal/outbox"
	"github.com/connectn/connectn/bot/internal/render"
	"github.com/connectn/connectn/internal/clock"

	"github.com/connectn/connectn/sessions"
)

// Refusals of the routing.
var (
	reasonUnknownCommand = sessions.NewReason("unknown_command")
)

// middleware returns the handler's middleware, outermost first: around
// every call (global), metrics, panic recovery and the rendering of
// failures; around each route (perRoute), the check of where and by whom
// it was sent, the deferral of its response, and the answer to a click on
// a session that has ended.
func (h *Handler) middleware() (global []middleware, perRoute []routeMiddleware) {
	return []middleware{measure(h.metrics, h.clock), recoverer(h.log), fail(h.log)},
		[]routeMiddleware{where, deferral(h.boards), settled(h.store, h.boards)}
}

// recoverer answers a call whose handling panicked with the private
// apology (outcome failed), and logs the panic with its stack.
func recoverer(log *slog.Logger) middleware {
	return func(next handleFunc) handleFunc {
		return func(ctx context.Context, c *call) (resp *discordgo.InteractionResponse, err error) {
			defer func() {
				if p := recover(); p != nil {
					log.Error("panic while handling an interaction", "interaction", c.i.ID, "type", c.i.Type.String(),
						"channel", c.i.ChannelID, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
					c.later, c.outcome = nil, OutcomeFailed
					resp, err = render.Ephemeral(c.reader.T("apology")), nil
				}
			}()
			return next(ctx, c)
		}
	}
}

// measure records each call in the metrics: its kind, outcome and time.
func measure(metrics Metrics, clk clock.Clock) middleware {
	return func(next handleFunc) handleFunc {
		return func(ctx context.Context, c *call) (*discordgo.InteractionResponse, error) {
			start := clk.Now()
			resp, err := next(ctx, c)
			outcome := c.outcome
			if outcome == "" {
				outcome = OutcomeOK
			}
			metrics.Interaction(c.kind, outcome, clock.Since(clk, start))
			return resp, err
		}
	}
}

// fail turns an error into the private message the sender sees: a
// refusal's text in their language (outcome refused), or the apology for
// anything else, which is logged (outcome failed); measure reads the
// outcome. Work queued for after the response stays queued: it follows
// changes already written (a deadline settled on the way).
func fail(log *slog.Logger) middleware {
	return func(next handleFunc) handleFunc {
		return func(ctx context.Context, c *call) (*discordgo.InteractionResponse, error) {
			resp, err := next(ctx, c)
			if err == nil {
				return resp, nil
			}
			c.later = nil
			if r, ok := sessions.AsRefusal(err); ok {
				log.Debug("interaction refused", "interaction", c.i.ID, "channel", c.i.ChannelID, "reason", err)
				c.outcome = OutcomeRefused
				return render.Ephemeral(c.reader.T(r.Reason.MessageID(), refusalArgs(c, r.Args)...)), nil
			}
			log.Error("interaction failed", "interaction", c.i.ID, "type", c.i.Type.String(),
				"guild", c.i.GuildID, "channel", c.i.ChannelID, "err", err)
			c.outcome = OutcomeFailed
			return render.Ephemeral(c.reader.T("apology")), nil
		}
	}
}

// refusalArgs returns a refusal's arguments as the catalog reads them: a
// member as their name, escaped and in bold; an option as its name in the
// reader's language (catalog message name_option_<name>), as their
// client lists it; channels and a role as mentions; a time as a Discord
// timestamp and a duration in words; a board message as its link.
func refusalArgs(c *call, args []any) []any {
	out, copied := args, false
	for k, v := range args {
		var text string
		switch v := v.(type) {
		case sessions.Member:
			text = "**" + render.EscapeName(c.reader, v.Name) + "**"
		case sessions.OptionName:
			text = c.reader.T("name_option_" + strings.ReplaceAll(string(v), "-", "_"))
		case sessions.Channels:
			list := make([]string, len(v))
			for k, ch := range v {
				list[k] = "<#" + ch + ">"
			}
			text = strings.Join(list, ", ")
		case sessions.Role:
			text = "<@&" + string(v) + ">"
		case time.Time:
			text = render.Timestamp(v)
		case sessions.BoardMessage:
			text = render.MessageLink(v.GuildID, v.ChannelID, v.MessageID)
		case time.Duration:
			text = render.Duration(c.reader, v)
		default:
			continue
		}
		if !copied { // the refusal's own arguments stay as they are
			out, copied = append([]any(nil), args...), true
		}
		out[k] = text
	}
	return out
}

// where refuses any call without a channel or a sender (every place has
// both: a server's channel or thread, the bot's DM, a group DM), and a
// subcommand that needs a permission outside a server or from a member
// who lacks it. The member's permissions are the ones Discord sends with
// the interaction (member.permissions, in the channel), read on every
// use: a crafted request cannot skip the check, only Discord's own
// default_member_permissions can be changed by a server's admins.
func where(r *route, next handleFunc) handleFunc {
	return func(ctx context.Context, c *call) (*discordgo.InteractionResponse, error) {
		switch {
		case r.perm != 0 && (c.i.GuildID == "" || c.i.Member == nil):
			return nil, sessions.Refuse(reasonAdminInServer)
		case r.perm != 0 && c.i.Member.Permissions&(r.perm|discordgo.PermissionAdministrator) == 0:
			return nil, sessions.Refuse(permissionReason(r.perm))
		case c.i.ChannelID == "":
			return nil, malformed("%s without a channel", r.name)
		case c.user == "":
			return nil, malformed("%s without a user", r.name)
		}
		return next(ctx, c)
	}
}

// deferral lets a route answer with a deferred response only of a type it
// declares (a mistake in the program otherwise, answered with the
// apology), and turns a deferred private answer's work into the work after
// the response: the message it makes replaces the "thinking…" answer,
// through the interaction's webhook.
func deferral(b *outbox.Boards) routeMiddleware {
	return func(r *route, next handleFunc) handleFunc {
		return func(ctx context.Context, c *call) (*discordgo.InteractionResponse, error) {
			resp, err := next(ctx, c)
			if err != nil || !deferred(resp.Type) {
				return resp, err
			}
			if !slices.Contains(r.defers, resp.Type) {
				return nil, fmt.Errorf("route %s answered with deferred response type %d, which it does not declare", r.name, resp.Type)
			}
			if later := c.later; later != nil {
				c.later = nil
				c.afterResponse(func(ctx context.Context) {
					if msg := later(ctx); msg != nil {
						b.EditOriginal(ctx, c.out(), msg)
					}
				})
			}
			return resp, nil
		}
	}
}

// deferred reports whether t is a deferred response type.
func deferred(t discordgo.InteractionResponseType) bool {
	return t == discordgo.InteractionResponseDeferredMessageUpdate || t == discordgo.InteractionResponseDeferredChannelMessageWithSource
}

// settled answers a click on a button of a session that has ended
// (sessions.ErrOver: its message missed the edit, or a client still shows
// old buttons) by updating the message to show how it ended, or privately
// as stale when the channel has moved on to another session.
func settled(store getter, b *outbox.Boards) routeMiddleware {
	return func(r *route, next handleFunc) handleFunc {
		if r.command {
			return next
		}
		return func(ctx context.Context, c *call) (*discordgo.InteractionResponse, error) {
			resp, err := next(ctx, c)
			if !errors.Is(err, sessions.ErrOver) {
				return resp, err
			}
			s, gerr := store.Get(ctx, c.i.ChannelID)
			if gerr != nil || s.ID != c.match() || s.Phase.Active() {
				return nil, sessions.Refuse(sessions.ReasonStale)
			}
			return updateMessage(b.Settled(ctx, c.public(s), s)), nil
		}
	}
}
