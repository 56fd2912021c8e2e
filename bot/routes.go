package bot

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/sessions"
)

// routes is the route table: each subcommand of /connectn and each button,
// declared once, with its options or custom_id parts, its handler, and
// whether it may defer its response. Commands() registers the
// subcommands in this order; NewHandler routes by it. Adding a button is
// one entry here and one handler.
var routes = []route{
	command("challenge", (*Handler).challenge, mayDefer(discordgo.InteractionResponseDeferredChannelMessageWithSource)),
	command("forfeit", (*Handler).forfeitCommand),
	command("board", (*Handler).board),
	command("stats", (*Handler).stats),
	command("leaderboard", (*Handler).leaderboard),
	command("help", (*Handler).help),
	command("open", (*Handler).openChallenge, mayDefer(discordgo.InteractionResponseDeferredChannelMessageWithSource)),
	command("forget-me", (*Handler).forgetMe),
	command("analyze", (*Handler).analyze, mayDefer(discordgo.InteractionResponseDeferredChannelMessageWithSource)),
	command("replay", (*Handler).replay),
	admin("settings show", discordgo.PermissionManageGuild, (*Handler).settingsShow),
	admin("settings set", discordgo.PermissionManageGuild, (*Handler).settingsSet),
	admin("settings reset", discordgo.PermissionManageGuild, (*Handler).settingsReset),
	admin("end", discordgo.PermissionManageMessages, (*Handler).end),

	button("accept", matchParts, (*Handler).accept),
	button("decline", matchParts, (*Handler).decline),
	button("drop", dropParts, (*Handler).drop, mayDefer(discordgo.InteractionResponseDeferredMessageUpdate)),
	button("forfeit", matchParts, (*Handler).forfeitButton),
	button("forfeit!", matchParts, (*Handler).forfeitConfirm),
	button("keep", matchParts, (*Handler).forfeitCancel),
	button("rematch", matchParts, (*Handler).rematch),
	button("picture", matchParts, (*Handler).picture, mayDefer(discordgo.InteractionResponseDeferredChannelMessageWithSource)),
	button("analysis", matchParts, (*Handler).analysis, mayDefer(discordgo.InteractionResponseDeferredChannelMessageWithSource)),
	button("replay", replayParts, (*Handler).replayButton),
	button("forget", nil, (*Handler).forgetConfirm),
	button("forget-keep", nil, (*Handler).forgetCancel),
}

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
	parts []part
	// defers lists the deferred response types the route may answer with.
	defers []discordgo.InteractionResponseType
	// handle answers a call routed here, before the middleware.
	handle func(h *Handler, ctx context.Context, c *call) (*discordgo.InteractionResponse, error)
}

// routeOption sets an optional property of a route.
type routeOption func(*route)

// mayDefer lets a route answer with the deferred response type t.
func mayDefer(t discordgo.InteractionResponseType) routeOption {
	return func(r *route) { r.defers = append(r.defers, t) }
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

// command declares subcommand name of /connectn, its options O (declared
// by O's declare method, decoded into a fresh O for each call) and run,
// its handler.
func command[O any, P optionDecl[O]](name string, run func(h *Handler, ctx context.Context, c *call, o *O) (*discordgo.InteractionResponse, error), opts ...routeOption) route {
	r := route{
		name:    name,
		command: true,
		parent:  commandName,
		options: func(s *optionSet) { P(new(O)).declare(s) },
		handle: func(h *Handler, ctx context.Context, c *call) (*discordgo.InteractionResponse, error) {
			o := new(O)
			s := &optionSet{}
			P(o).declare(s)
			if err := s.decode(c.i); err != nil {
				return nil, err
			}
			return run(h, ctx, c, o)
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
func admin[O any, P optionDecl[O]](name string, perm int64, run func(h *Handler, ctx context.Context, c *call, o *O) (*discordgo.InteractionResponse, error), opts ...routeOption) route {
	r := command[O, P](name, run, opts...)
	r.parent, r.perm = adminCommandName, perm
	return r
}

// path is the key of a subcommand in the router: its command and name.
func (r *route) path() string { return r.parent + " " + r.name }

// button declares the button whose custom_id is "cn:<action>" followed by
// parts, and run, its handler, which finds the parsed custom_id in c.id.
func button(action string, parts []part, run func(h *Handler, ctx context.Context, c *call) (*discordgo.InteractionResponse, error), opts ...routeOption) route {
	r := route{name: action, parts: parts, handle: run}
	for _, o := range opts {
		o(&r)
	}
	return r
}

// buttonID is a parsed button custom_id: "cn:<action>:<part>:…". Every
// button names the match (the session ID) it belongs to; a column button
// also names the board message it is on (the session's PostSeq when it was
// drawn), the ply it was drawn at and its column, so that a click on an
// older board message, or on a board that has moved on, is recognised.
//
// Forms ("cn" is the prefix of every custom_id this bot makes):
//
//	cn:accept:<match>     cn:decline:<match>
//	cn:forfeit:<match>    cn:forfeit!:<match>    cn:keep:<match>
//	cn:rematch:<match>    cn:picture:<match>     cn:analysis:<match>
//	cn:drop:<match>:<post>:<ply>:<column>   column counted from 1
type buttonID struct {
	Action string
	Match  int64
	Post   int
	Ply    int
	Column int // 1-based
}

// part is one number of a custom_id after its action: which field of
// buttonID it fills, and its bounds.
type part struct {
	name     string
	min, max int64
	set      func(*buttonID, int64)
	get      func(buttonID) int64
}

// The parts of the bot's custom_ids, with their bounds: a match ID is a
// session ID (a JSON-safe integer); a ply, a post sequence and a column are
// far below their bounds in any real match.
var (
	partMatch = part{name: "match", min: 1, max: 1<<53 - 1,
		set: func(b *buttonID, n int64) { b.Match = n }, get: func(b buttonID) int64 { return b.Match }}
	partPost = part{name: "post sequence", min: 0, max: 1 << 20,
		set: func(b *buttonID, n int64) { b.Post = int(n) }, get: func(b buttonID) int64 { return int64(b.Post) }}
	partPly = part{name: "ply", min: 0, max: 1 << 20,
		set: func(b *buttonID, n int64) { b.Ply = int(n) }, get: func(b buttonID) int64 { return int64(b.Ply) }}
	partColumn = part{name: "column", min: 1, max: 1 << 10,
		set: func(b *buttonID, n int64) { b.Column = int(n) }, get: func(b buttonID) int64 { return int64(b.Column) }}

	matchParts = []part{partMatch}
	dropParts  = []part{partMatch, partPost, partPly, partColumn}
)

// maxParts is the most parts a custom_id of the route table has, its
// prefix and action included.
const maxParts = 6

// reasonBadCustomID refuses a custom_id this bot does not make: malformed,
// foreign or crafted.
var reasonBadCustomID = sessions.NewReason("bad_custom_id")

// String formats id as its custom_id, which parse reads back.
func (id buttonID) String() string { return string(id.append(make([]byte, 0, 48))) }

// append appends the custom_id of id to b, built by hand: a board's
// buttons make seven or more of these per click. The parts written are
// those the route table gives id's action (none for an action it lacks).
func (id buttonID) append(b []byte) []byte {
	b = append(append(b, "cn:"...), id.Action...)
	partsMu.RLock()
	parts := partsOf[id.Action]
	partsMu.RUnlock()
	for _, p := range parts {
		b = strconv.AppendInt(append(b, ':'), p.get(id), 10)
	}
	return b
}

// partsOf holds the custom_id parts of every button action of the route
// tables routed so far (the package's, from the start), for
// buttonID.append.
var (
	partsMu sync.RWMutex
	partsOf = map[string][]part{}
)

func init() { registerParts(routes) }

// registerParts records the custom_id parts of table's buttons.
func registerParts(table []route) {
	partsMu.Lock()
	defer partsMu.Unlock()
	for _, r := range table {
		if !r.command {
			partsOf[r.name] = r.parts
		}
	}
}

// router dispatches calls by the route table: commands by subcommand name,
// buttons by custom_id action, each through its middleware.
type router struct {
	commands map[string]*routed
	buttons  map[string]*routed
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
// handler (outermost first).
func newRouter(h *Handler, table []route, global []middleware, perRoute []routeMiddleware) *router {
	rt := &router{commands: map[string]*routed{}, buttons: map[string]*routed{}}
	registerParts(table)
	for _, r := range table {
		rr := &routed{route: r}
		rr.serve = func(ctx context.Context, c *call) (*discordgo.InteractionResponse, error) {
			return rr.handle(h, ctx, c)
		}
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
		if len(r.parts)+2 > maxParts {
			panic(fmt.Sprintf("bot: route %q has more than %d custom_id parts", r.name, maxParts))
		}
		into[key] = rr
	}
	rt.serve = rt.dispatch
	for k := len(global) - 1; k >= 0; k-- {
		rt.serve = global[k](rt.serve)
	}
	return rt
}

// parse reads a custom_id made by buttonID.String for a button of the
// table. Anything else (another prefix, an unknown action, a missing or
// extra part, a number with a sign, leading zeros or out of its part's
// range) returns a refusal with reasonBadCustomID. Numbers are only
// checked for form here; whether they fit the session is the handler's
// business.
func (rt *router) parse(customID string) (buttonID, *routed, error) {
	bad := func(why string) (buttonID, *routed, error) {
		return buttonID{}, nil, fmt.Errorf("custom_id %.100q: %s: %w", customID, why, sessions.Refuse(reasonBadCustomID))
	}
	// The parts, split without allocating: n counts them all, parts keeps
	// as many as a route has.
	var parts [maxParts]string
	n := 0
	for rest, more := customID, true; more; n++ {
		var p string
		p, rest, more = strings.Cut(rest, ":")
		if n < len(parts) {
			parts[n] = p
		}
	}
	if n < 2 || parts[0] != "cn" {
		return bad("not ours")
	}
	r := rt.buttons[parts[1]]
	if r == nil {
		return bad("unknown action")
	}
	if n != 2+len(r.parts) {
		return bad("wrong number of parts")
	}
	id := buttonID{Action: r.name}
	for k, p := range r.parts {
		v, ok := parseNatural(parts[2+k], p.max)
		if !ok || v < p.min {
			return bad("bad " + p.name)
		}
		p.set(&id, v)
	}
	return id, r, nil
}

// parseNatural reads a decimal integer from 0 to limit written without sign
// or leading zeros, as buttonID.String writes them.
func parseNatural(s string, limit int64) (int64, bool) {
	if s == "" || (len(s) > 1 && s[0] == '0') || len(s) > 18 {
		return 0, false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil && n <= limit
}
