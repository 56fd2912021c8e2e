package bot

import (
	"context"
	"fmt"
	"strings"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot/internal/customid"
	"github.com/connectn/connectn/sessions"
)

// The route table is a value, built by NewHandler from its features
// (table, in handler.go): each feature file declares its route rows
// (routes) next to its options and handlers, as methods of a small type
// holding only what the feature needs. A route is a subcommand of one of
// the two slash commands, or a button, with its options or custom_id
// parts, its handler, the deferred responses it may answer with and the
// catalog key of its line in /connectn help.

// The slash commands; the routes are their subcommands. commandName is
// every member's; adminCommandName the admins' (its subcommands need a
// permission, and Discord shows it to members with Manage Messages by
// default).
const (
	commandName      = "connectn"
	adminCommandName = "connectn-admin"
)

// handleFunc answers one call: the response, or an error (a
// *sessions.Refusal for what the sender can mend, anything else a failure).
type handleFunc func(ctx context.Context, c *call) (*discordgo.InteractionResponse, error)

// route is one entry of the route table.
type route struct {
	// name is the subcommand's name ("challenge"; "settings show" for a
	// subcommand of a group), or the button's custom_id action.
	name string
	// command is set for a subcommand, unset for a button.
	command bool
	// parent is a subcommand's command: commandName or adminCommandName.
	parent string
	// perm is the permission a member needs for the subcommand (any of
	// its bits, Administrator included); 0: none, and the subcommand
	// works outside servers too.
	perm int64
	// options declares a subcommand's options (for registration and
	// decoding).
	options func(*optionSet)
	// parts are a button's custom_id parts after "cn:<action>".
	parts []customid.Part
	// defers lists the deferred response types the route may answer with.
	defers []discordgo.InteractionResponseType
	// help is the catalog key of the subcommand's line in /connectn help
	// (several subcommands may share one); "" for a button.
	help string
	// handle answers a call routed here, inside the middleware.
	handle handleFunc
}

// routeOption sets an optional property of a route.
type routeOption func(*route)

// mayDefer lets a route answer with the deferred response type t.
func mayDefer(t discordgo.InteractionResponseType) routeOption {
	return func(r *route) { r.defers = append(r.defers, t) }
}

// helpLine names the catalog key of a subcommand's line in /connectn help.
func helpLine(key string) routeOption {
	return func(r *route) { r.help = key }
}

// optionDecl is a pointer to a subcommand's options struct, which
// declares its fields as options.
type optionDecl[O any] interface {
	*O
	declare(*optionSet)
}

// noOptions is the options of a subcommand that has none.
type noOptions struct{}

func (*noOptions) declare(*optionSet) {}

// command declares subcommand name of /connectn ("board"; "tournament
// join" in the group tournament), its options O (declared by O's declare
// method, decoded into a fresh O for each call) and run, its handler.
func command[O any, P optionDecl[O]](name string, run func(ctx context.Context, c *call, o *O) (*discordgo.InteractionResponse, error), opts ...routeOption) route {
	r := route{
		name:    name,
		command: true,
		parent:  commandName,
		options: func(s *optionSet) { P(new(O)).declare(s) },
		handle: func(ctx context.Context, c *call) (*discordgo.InteractionResponse, error) {
			o := new(O)
			s := &optionSet{}
			P(o).declare(s)
			if err := s.decode(c.i); err != nil {
				return nil, err
			}
			return run(ctx, c, o)
		},
	}
	for _, o := range opts {
		o(&r)
	}
	return r
}

// admin declares subcommand name of /connectn-admin ("end", or "settings
// show" in the group settings), which a member with permission perm may
// use in a server; otherwise as command.
func admin[O any, P optionDecl[O]](name string, perm int64, run func(ctx context.Context, c *call, o *O) (*discordgo.InteractionResponse, error), opts ...routeOption) route {
	r := command[O, P](name, run, opts...)
	r.parent, r.perm = adminCommandName, perm
	return r
}

// path is the key of a subcommand in the router: its command and name.
func (r *route) path() string { return r.parent + " " + r.name }

// button declares the button whose custom_id is "cn:<action>" followed by
// parts (customid), and run, its handler, which finds the parsed custom_id
// in c.id.
func button(action string, parts []customid.Part, run handleFunc, opts ...routeOption) route {
	r := route{name: action, parts: parts, handle: run}
	for _, o := range opts {
		o(&r)
	}
	return r
}

// The parts of the custom_ids of the buttons of a match, with their
// bounds: a match ID is a session ID (a JSON-safe integer); a ply, a post
// sequence and a column are far below their bounds in any real match.
// Every button of a match names the match first (call.match); a column
// button also names the board message it is on (the session's PostSeq
// when it was drawn), the ply it was drawn at and its column, counted from
// 1, so that a click on an older board message, or on a board that has
// moved on, is recognised:
//
//	cn:accept:<match>     cn:decline:<match>
//	cn:forfeit:<match>    cn:forfeit!:<match>    cn:keep:<match>
//	cn:rematch:<match>    cn:picture:<match>     cn:analysis:<match>
//	cn:share:<match>
//	cn:drop:<match>:<post>:<ply>:<column>
var (
	partMatch  = customid.Part{Name: "match", Min: 1, Max: 1<<53 - 1}
	partPost   = customid.Part{Name: "post sequence", Min: 0, Max: 1 << 20}
	partPly    = customid.Part{Name: "ply", Min: 0, Max: 1 << 20}
	partColumn = customid.Part{Name: "column", Min: 1, Max: 1 << 10}

	matchParts = []customid.Part{partMatch}
	dropParts  = []customid.Part{partMatch, partPost, partPly, partColumn}
)

// reasonBadCustomID refuses a custom_id this bot does not make: malformed,
// foreign or crafted.
var reasonBadCustomID = sessions.NewReason("bad_custom_id")

// router dispatches calls by a route table: commands by subcommand name,
// buttons by custom_id action, each through its middleware.
type router struct {
	commands map[string]*routed
	buttons  map[string]*routed
	table    []route    // in order: Commands registers the subcommands so
	serve    handleFunc // the whole pipeline: middleware around dispatch
}

// routed is a route with its middleware applied.
type routed struct {
	route
	serve handleFunc
}

// middleware wraps the handling of a call; perRoute middleware wraps one
// route's handler and knows the route.
type (
	middleware      func(next handleFunc) handleFunc
	routeMiddleware func(r *route, next handleFunc) handleFunc
)

// newRouter indexes table and wraps it in the middleware: global around
// the whole dispatch (outermost first), perRoute around each route's
// handler (outermost first). A route declared twice, or a button with more
// custom_id parts than customid.MaxParts, is a mistake in the program: it
// panics.
func newRouter(table []route, global []middleware, perRoute []routeMiddleware) *router {
	rt := &router{commands: map[string]*routed{}, buttons: map[string]*routed{}, table: table}
	for _, r := range table {
		rr := &routed{route: r, serve: r.handle}
		for k := len(perRoute) - 1; k >= 0; k-- {
			rr.serve = perRoute[k](&rr.route, rr.serve)
		}
		into, key := rt.buttons, r.name
		if r.command {
			into, key = rt.commands, r.path()
		}
		if _, dup := into[key]; dup {
			panic(fmt.Sprintf("bot: route %q declared twice", key))
		}
		if len(r.parts) > customid.MaxParts {
			panic(fmt.Sprintf("bot: route %q has more than %d custom_id parts", r.name, customid.MaxParts))
		}
		into[key] = rr
	}
	rt.serve = rt.dispatch
	for k := len(global) - 1; k >= 0; k-- {
		rt.serve = global[k](rt.serve)
	}
	return rt
}

// parse reads a custom_id made by customid.ID.String for a button of the
// table; anything else returns a refusal with reasonBadCustomID.
func (rt *router) parse(customID string) (customid.ID, *routed, error) {
	var r *routed
	id, err := customid.Parse(customID, func(action string) ([]customid.Part, bool) {
		r = rt.buttons[action]
		if r == nil {
			return nil, false
		}
		return r.parts, true
	})
	if err != nil {
		return customid.ID{}, nil, fmt.Errorf("custom_id %.100q: %s: %w", customID, err, sessions.Refuse(reasonBadCustomID))
	}
	id.Action = r.name
	return id, r, nil
}

// subcommand returns the name of the subcommand data was sent for ("end";
// "settings show" in a group) and the options given to it; ok is false
// when data (ok: it is command data) names no subcommand in the shape
// Discord sends: one subcommand, or one group holding one.
func subcommand(data discordgo.ApplicationCommandInteractionData, ok bool) (name string, opts []*discordgo.ApplicationCommandInteractionDataOption, _ bool) {
	if !ok || len(data.Options) != 1 || data.Options[0] == nil {
		return "", nil, false
	}
	o := data.Options[0]
	switch o.Type {
	case discordgo.ApplicationCommandOptionSubCommand:
		return o.Name, o.Options, true
	case discordgo.ApplicationCommandOptionSubCommandGroup:
		if len(o.Options) != 1 || o.Options[0] == nil || o.Options[0].Type != discordgo.ApplicationCommandOptionSubCommand {
			return "", nil, false
		}
		return o.Name + " " + o.Options[0].Name, o.Options[0].Options, true
	}
	return "", nil, false
}

// dispatch routes a call: PING and autocomplete are answered here, a
// command by its subcommand's name, a click by its custom_id's action.
func (rt *router) dispatch(ctx context.Context, c *call) (*discordgo.InteractionResponse, error) {
	r, err := rt.resolve(c)
	switch {
	case err != nil:
		return nil, err
	case r != nil:
		return r.serve(ctx, c)
	case c.i.Type == discordgo.InteractionPing:
		return &discordgo.InteractionResponse{Type: discordgo.InteractionResponsePong}, nil
	}
	// No option autocompletes; an empty list is the only valid answer.
	return &discordgo.InteractionResponse{
		Type: discordgo.InteractionApplicationCommandAutocompleteResult,
		Data: &discordgo.InteractionResponseData{Choices: []*discordgo.ApplicationCommandOptionChoice{}},
	}, nil
}

// resolve names the kind of c and finds its route (nil for a PING or an
// autocomplete request, answered without one), and its custom_id for a
// click. It refuses an unknown command, a custom_id the route table does
// not make, and any other kind of interaction.
func (rt *router) resolve(c *call) (*routed, error) {
	i := c.i
	switch i.Type {
	case discordgo.InteractionPing:
		c.kind = "ping"
		return nil, nil
	case discordgo.InteractionApplicationCommandAutocomplete:
		c.kind = "autocomplete"
		return nil, nil
	case discordgo.InteractionApplicationCommand:
		c.kind = "command/unknown"
		data, ok := i.Data.(discordgo.ApplicationCommandInteractionData)
		name, _, ok := subcommand(data, ok)
		r := rt.commands[data.Name+" "+name]
		if !ok || r == nil {
			return nil, sessions.Refuse(reasonUnknownCommand)
		}
		c.kind = "command/" + strings.ReplaceAll(name, " ", "/")
		if r.parent != commandName {
			c.kind = "command/" + r.parent + "/" + strings.ReplaceAll(name, " ", "/")
		}
		return r, nil
	case discordgo.InteractionMessageComponent:
		c.kind = "button/unknown"
		data, ok := i.Data.(discordgo.MessageComponentInteractionData)
		if !ok {
			return nil, malformed("component data")
		}
		id, r, err := rt.parse(data.CustomID)
		if err != nil {
			return nil, err
		}
		c.kind, c.id = "button/"+r.name, id
		return r, nil
	case discordgo.InteractionModalSubmit:
		c.kind = "modal"
	default:
		c.kind = "other"
	}
	return nil, malformed("interaction type %d", i.Type)
}
