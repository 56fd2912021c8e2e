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

// layers are the packages of the module, by path relative to it, and the
// packages of the module each may import (DESIGN.md: imports point down).
// A package missing from the list fails the test until it is placed.
var layers = map[string][]string{
	"game":                       {},
	"game/ai":                    {"game"},
	"game/ai/internal/bookgen":   {"game/ai"},
	"picture":                    {"game"},
	"rating":                     {},
	"locale":                     {},
	"sessions":                   {"tournament", "game", "rating"},
	"sessions/internal/sqlstore": {"sessions", "tournament", "game", "rating"},
	"sessions/sqlite":            {"sessions", "sessions/internal/sqlstore", "game"},
	"sessions/postgres":          {"sessions", "sessions/internal/sqlstore", "game"},
	"sessions/sessionstest":      {"sessions", "sessions/internal/sqlstore", "sessions/sqlite", "sessions/postgres", "tournament", "game", "rating"},
	"metrics":                    {},
	"console":                    {"locale", "game/ai", "game"},
	"bot/internal/wire":          {},
	"bot/internal/limits":        {},
	"bot/internal/customid":      {},
	"bot/internal/render":        {"bot/internal/customid", "bot/internal/limits", "sessions", "tournament", "locale", "picture", "game/ai", "game"},
	"bot/internal/outbox":        {"bot/internal/limits", "bot/internal/render", "bot/internal/wire", "sessions", "locale"},
	"internal/clock":             {},
	"internal/clock/clocktest":   {},
	"bot/discordtest":            {"bot/internal/limits"},
	"bot":                        {"bot/internal/wire", "bot/internal/limits", "bot/internal/customid", "bot/internal/render", "bot/internal/outbox", "sessions", "tournament", "locale", "picture", "game/ai", "game"},
	"cmd/connectn":               {"bot", "console", "sessions", "sessions/sqlite", "sessions/postgres", "metrics", "game/ai", "game", "locale"},
	"cmd/connectn-loadgen":       {"bot/discordtest", "sessions", "sessions/sqlite", "game"},

	// Tournaments: the rules on rating and game only; the matching below
	// them on nothing.
	"tournament":                   {"tournament/internal/matching", "rating", "game"},
	"tournament/internal/matching": {},
}

// forbidden are outside packages (by path prefix) and who alone may import
// them; "" never names a package.
var forbidden = map[string][]string{
	"modernc.org/sqlite":             {"sessions/sqlite"},
	"github.com/jackc/pgx":           {"sessions/postgres"},
	"github.com/lib/pq":              {},
	"github.com/mattn/go-sqlite3":    {},
	"github.com/joho/godotenv":       {"cmd/connectn"},
	"github.com/bwmarrin/discordgo":  {"bot", "bot/internal/wire", "bot/internal/render", "bot/internal/outbox", "bot/discordtest", "cmd/connectn", "cmd/connectn-loadgen"},
	"github.com/prometheus/":         {"metrics"},
	"github.com/nicksnyder/go-i18n/": {"locale"},
	// The plotting library and its fonts (about 7 MB of the binary) stay
	// behind picture's API.
	"gonum.org/v1/plot": {"picture"},
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
		allowed, placed := layers[pkg]
		if !placed {
			t.Errorf("package %s is not placed in the layers of this test (DESIGN.md): add it", pkg)
			continue
		}
		seen++
		for _, imp := range fields[1:] {
			if inner, ok := strings.CutPrefix(imp, module+"/"); ok {
				if !slices.Contains(allowed, inner) {
					t.Errorf("%s imports %s, against the direction of DESIGN.md", pkg, inner)
				}
				continue
			}
			for prefix, who := range forbidden {
				if strings.HasPrefix(imp, prefix) && !slices.Contains(who, pkg) {
					t.Errorf("%s imports %s, which only %q may", pkg, imp, who)
				}
			}
		}
	}
	if seen < 15 {
		t.Fatalf("only %d packages listed: go list printed\n%s", seen, out)
	}
}
