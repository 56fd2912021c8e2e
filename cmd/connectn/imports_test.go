package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// module is this repository's module path.
const module = "github.com/connectn/connectn"

// layer is where a package of the module stands: the packages of the
// module it may import, and why (as Tailscale's deptest.BadDeps gives a
// reason with each rule). DESIGN.md draws the same layers.
type layer struct {
	may []string
	why string
}

// layers are the packages of the module, by path relative to it. A
// package missing from the list fails the test until it is placed.
var layers = map[string]layer{
	"internal/clock":           {nil, "the one clock (and its timers): at the bottom, so that every layer may run on it"},
	"internal/clock/clocktest": {[]string{"internal/clock"}, "the one fake clock, for the tests of every layer"},
	"game":                     {nil, "the rules: standard library only"},
	"game/ai":                  {[]string{"game"}, "the search plays the rules"},
	"game/ai/internal/bookgen": {[]string{"game/ai"}, "generates the opening book from the solver"},
	"game/ai/internal/weakgen": {[]string{"game/ai"}, "generates the table of weak results from the solver"},
	"picture":                  {[]string{"game"}, "draws boards: no Discord, no SQL"},
	"rating":                   {nil, "Glicko-2 alone: no Discord, no SQL, no game"},
	"locale":                   {nil, "the catalog: text only"},
	"sessions":                 {[]string{"tournament", "game", "rating", "internal/clock"}, "the domain: game, rating and the tournaments' rules, no Discord, no SQL"},
	"sessions/internal/sqlstore": {[]string{"sessions", "tournament", "game", "rating", "internal/clock"},
		"the SQL both backends share, below them, above the domain"},
	"sessions/sqlite":   {[]string{"sessions", "sessions/internal/sqlstore", "game", "internal/clock"}, "a backend: its dialect on the shared SQL"},
	"sessions/postgres": {[]string{"sessions", "sessions/internal/sqlstore", "game", "internal/clock"}, "a backend: its dialect on the shared SQL"},
	"sessions/sessionstest": {[]string{"sessions", "sessions/internal/sqlstore", "sessions/sqlite", "sessions/postgres", "tournament", "game", "rating",
		"internal/clock", "internal/clock/clocktest"}, "the contract suite runs every backend"},
	"metrics":               {nil, "Prometheus behind the bot's small interface: imports none of the bot"},
	"console":               {[]string{"locale", "game/ai", "game"}, "the terminal front end: the game, the AI and the catalog, no Discord, no store"},
	"bot/internal/wire":     {nil, "the HTTP wire format: discordgo's types only"},
	"bot/internal/limits":   {nil, "Discord's limits, as numbers"},
	"bot/internal/customid": {nil, "the custom_id's form: made by render, read by the routes"},
	"bot/internal/render": {[]string{"bot/internal/customid", "bot/internal/limits", "sessions", "tournament", "locale", "picture", "puzzle", "game/ai", "game"},
		"pure rendering of (localizer, outcome): no store, no network"},
	"bot/internal/outbox": {[]string{"bot/internal/render", "bot/internal/wire", "bot/internal/limits", "bot/internal/customid", "sessions",
		"locale", "internal/clock"}, "delivery after a response: renders and sends, routes nothing"},
	"bot/transport": {[]string{"bot/internal/wire", "bot/internal/limits", "bot/internal/outbox", "internal/clock"},
		"the two transports, on a small Handler interface: they know nothing of the bot's features"},
	"bot/discordtest": {[]string{"bot/internal/limits", "bot/internal/wire"}, "the one fake Discord: below the bot it tests, on the wire types"},
	"bot": {[]string{"bot/internal/wire", "bot/internal/limits", "bot/internal/customid", "bot/internal/render", "bot/internal/outbox",
		"sessions", "tournament", "locale", "picture", "puzzle", "rating", "game/ai", "game", "internal/clock"}, "the Discord adapter: routes and features over its rooms"},
	"tournament":                   {[]string{"tournament/internal/matching", "rating", "game"}, "the tournaments' rules: on rating and game only, no Discord, no SQL"},
	"tournament/internal/matching": {nil, "maximum-weight matching: a graph algorithm, nothing of the game"},
	"puzzle":                       {[]string{"game/ai", "rating", "game"}, "puzzles proved by the solver and rated by Glicko-2: no Discord, no SQL"},
	"cmd/connectn": {[]string{"bot", "bot/transport", "console", "sessions", "sessions/sqlite", "sessions/postgres", "metrics", "puzzle", "game/ai", "game", "locale",
		"internal/clock"}, "main: wiring of everything, imported by nothing"},
	"cmd/connectn-loadgen": {[]string{"bot/discordtest", "sessions", "sessions/sqlite", "game", "internal/clock"},
		"the load generator: drives a bot through the fake Discord"},
	"cmd/connectn-solvebench": {[]string{"game/ai", "game"}, "the solver's benchmark beside other solvers: the solver and the game only"},
}

// forbidden are outside packages (by path prefix), who alone may import
// them, and why; "" never names a package.
var forbidden = map[string]layer{
	"modernc.org/sqlite":             {[]string{"sessions/sqlite"}, "a SQL driver lives in its backend"},
	"github.com/jackc/pgx":           {[]string{"sessions/postgres"}, "a SQL driver lives in its backend"},
	"github.com/lib/pq":              {nil, "pgx is the PostgreSQL driver"},
	"github.com/mattn/go-sqlite3":    {nil, "modernc.org/sqlite is the SQLite driver (no cgo)"},
	"github.com/joho/godotenv":       {[]string{"cmd/connectn"}, "only main reads configuration"},
	"github.com/bwmarrin/discordgo":  {[]string{"bot", "bot/internal/wire", "bot/internal/render", "bot/internal/outbox", "bot/transport", "bot/discordtest", "cmd/connectn", "cmd/connectn-loadgen"}, "nothing below the bot knows Discord"},
	"github.com/prometheus/":         {[]string{"metrics"}, "metrics stand behind the bot's interface"},
	"github.com/nicksnyder/go-i18n/": {[]string{"locale"}, "the catalog is locale's"},
	"github.com/jonboulle/clockwork": {[]string{"internal/clock", "internal/clock/clocktest"}, "the clock is internal/clock's: one clock, one fake"},
	"gonum.org/v1/plot":              {[]string{"picture"}, "the plotting library and its fonts (about 7 MB of the binary) stay behind picture's API"},
}

// TestImportsPointDown checks every package's imports (not its tests')
// against layers and forbidden: the one direction of DESIGN.md, no SQL
// driver outside its backend, no discordgo below bot, godotenv only in
// cmd.
func TestImportsPointDown(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		goTool = filepath.Join(os.Getenv("GOROOT"), "bin", "go")
	}
	cmd := exec.Command(goTool, "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", module+"/...")
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	seen := 0
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		pkg := strings.TrimPrefix(strings.TrimPrefix(fields[0], module), "/")
		l, placed := layers[pkg]
		if !placed {
			t.Errorf("package %s is not placed in the layers of this test (DESIGN.md): add it", pkg)
			continue
		}
		seen++
		for _, imp := range fields[1:] {
			if inner, ok := strings.CutPrefix(imp, module+"/"); ok {
				if !slices.Contains(l.may, inner) {
					t.Errorf("%s imports %s, against the direction of DESIGN.md (%s: %s)", pkg, inner, pkg, l.why)
				}
				continue
			}
			for prefix, rule := range forbidden {
				if strings.HasPrefix(imp, prefix) && !slices.Contains(rule.may, pkg) {
					t.Errorf("%s imports %s, which only %q may: %s", pkg, imp, rule.may, rule.why)
				}
			}
		}
	}
	if seen < 15 {
		t.Fatalf("only %d packages listed: go list printed\n%s", seen, out)
	}
}
