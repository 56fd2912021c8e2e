package bot

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/connectn/connectn/locale"
)

// TestRoutesDocumented: every subcommand of the route table has its line
// in /connectn help (its help key, in the catalog and in helpOrder), a row
// in README.md's command table and one in docs/playing.md's (an admin's
// subcommand: its command's row in README, its name in playing.md); and
// every line of helpOrder belongs to a route. A feature added without its
// documentation fails here.
func TestRoutesDocumented(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	playing, err := os.ReadFile("../docs/playing.md")
	if err != nil {
		t.Fatal(err)
	}
	row := func(doc []byte, name string) bool { return strings.Contains(string(doc), "\n| `"+name+"` |") }
	l := locale.English()
	named := map[string]bool{}
	for _, r := range table(features{}) {
		if !r.command {
			if r.help != "" {
				t.Errorf("button %s has a help line, %s: only subcommands have one", r.name, r.help)
			}
			continue
		}
		named[r.help] = true
		switch {
		case r.help == "":
			t.Errorf("%s: no help line (helpLine)", r.path())
		case !l.Has(r.help):
			t.Errorf("%s: its help line %s is not in the catalog", r.path(), r.help)
		case !slices.Contains(helpKeys(), r.help):
			t.Errorf("%s: its help line %s is not in helpOrder", r.path(), r.help)
		}
		if r.parent == commandName {
			if !row(readme, r.name) {
				t.Errorf("%s: no row in README.md's command table", r.path())
			}
			if !row(playing, r.name) {
				t.Errorf("%s: no row in docs/playing.md's command table", r.path())
			}
			continue
		}
		if !row(readme, "/"+r.parent) {
			t.Errorf("%s: no row for /%s in README.md's command table", r.path(), r.parent)
		}
		if !strings.Contains(string(playing), "`"+r.name+"`") {
			t.Errorf("%s: docs/playing.md does not name it", r.path())
		}
	}
	seen := map[string]bool{}
	for _, key := range helpKeys() {
		if !named[key] {
			t.Errorf("helpOrder's %s is no route's help line", key)
		}
		if seen[key] {
			t.Errorf("helpOrder has %s on two pages", key)
		}
		seen[key] = true
	}
}
