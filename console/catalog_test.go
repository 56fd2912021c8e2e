package console

import (
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/connectn/connectn/locale"
)

// catalogFile is the English catalog of the console's messages.
const catalogFile = "../locale/messages/console.en.toml"

// readers are the functions that read a catalog message whose ID is their
// first argument, mapped to whether the message is read by a count (its
// second argument); the arguments after are pairs of a field name and its
// value.
var readers = map[string]bool{"T": false, "N": true, "refuse": false, "refuseN": true}

// forwarders are the functions allowed to pass a message ID they were given
// on to a reader; everywhere else the ID is a literal, which
// TestCatalogHasEveryMessage checks.
var forwarders = []string{"text"}

// use is one reading of a message in the code.
type use struct {
	pos     string
	counted bool
	fields  []string // the names of the fields given, sorted
}

// messageUses returns, by message ID, every reading of a catalog message by
// the package's code (not its tests). It fails t when an ID is not a
// literal outside the forwarders, when a field name is not a literal, or
// when a literal that looks like a console message ID appears anywhere but
// as the ID of a reading.
func messageUses(t *testing.T) map[string][]use {
	t.Helper()
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	uses := map[string][]use{}
	idLike := regexp.MustCompile(`^console_`)
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		read := map[*ast.BasicLit]bool{} // the IDs of readings
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok {
				continue
			}
			ast.Inspect(fn, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				var callee string
				switch fun := call.Fun.(type) {
				case *ast.Ident:
					callee = fun.Name
				case *ast.SelectorExpr:
					callee = fun.Sel.Name
				}
				counted, isReader := readers[callee]
				if !isReader || len(call.Args) == 0 {
					return true
				}
				pos := fset.Position(call.Pos()).String()
				id, ok := stringLit(call.Args[0])
				if !ok {
					if !slices.Contains(forwarders, fn.Name.Name) {
						t.Errorf("%s: %s reads a message whose ID is not a literal", pos, callee)
					}
					return true
				}
				read[call.Args[0].(*ast.BasicLit)] = true
				args := call.Args[1:]
				if counted {
					if len(args) == 0 {
						t.Errorf("%s: %s(%q) has no count", pos, callee, id)
						return true
					}
					args = args[1:]
				}
				if call.Ellipsis.IsValid() || len(args)%2 != 0 {
					t.Errorf("%s: %s(%q) is not given pairs of a literal field name and a value", pos, callee, id)
					return true
				}
				u := use{pos: pos, counted: counted}
				for i := 0; i < len(args); i += 2 {
					field, ok := stringLit(args[i])
					if !ok {
						t.Errorf("%s: %s(%q): field name %d is not a literal", pos, callee, id, i/2+1)
						continue
					}
					u.fields = append(u.fields, field)
				}
				slices.Sort(u.fields)
				uses[id] = append(uses[id], u)
				return true
			})
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && !read[lit] {
				if s, ok := stringLit(lit); ok && idLike.MatchString(s) {
					t.Errorf("%s: %q looks like a message ID but is not read by %v", fset.Position(lit.Pos()), s, slices.Sorted(maps.Keys(readers)))
				}
			}
			return true
		})
	}
	return uses
}

// stringLit returns the value of e when e is a string literal.
func stringLit(e ast.Expr) (string, bool) {
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(lit.Value)
	return s, err == nil
}

// message is one message of the catalog file, in its plural forms.
type message struct {
	One, Other string
}

// catalogMessages returns the messages of catalogFile, as the catalog
// loaded them (locale.Catalog.Forms), failing t on a plural form English
// has no use for.
func catalogMessages(t *testing.T) map[string]message {
	t.Helper()
	c := locale.Default()
	messages := map[string]message{}
	for _, id := range c.IDsIn(filepath.Base(catalogFile)) {
		forms, _ := c.Forms(locale.Base, id)
		for form := range forms {
			if form != "one" && form != "other" {
				t.Errorf("%s: message %s has the form %s, which English has no use for", catalogFile, id, form)
			}
		}
		messages[id] = message{One: forms["one"], Other: forms["other"]}
	}
	if len(messages) == 0 {
		t.Fatalf("no message in %s", catalogFile)
	}
	return messages
}

// TestCatalogHasEveryMessage checks every message the console reads against
// the English catalog: it is there, it has plural forms (one and other)
// when read by a count and only the other form when not, and the code
// gives it exactly the fields it reads (Count aside, given by the count).
func TestCatalogHasEveryMessage(t *testing.T) {
	uses := messageUses(t)
	if len(uses) == 0 {
		t.Fatal("found no message read by the code")
	}
	messages := catalogMessages(t)
	en := locale.English()
	for _, id := range slices.Sorted(maps.Keys(uses)) {
		m, inFile := messages[id]
		if !en.Has(id) || !inFile {
			t.Errorf("message %s, read at %s, is not in the English catalog's %s", id, uses[id][0].pos, filepath.Base(catalogFile))
			continue
		}
		var want []string
		for _, src := range []string{m.One, m.Other} {
			fields, err := locale.Fields(src)
			if err != nil {
				t.Errorf("message %s: %v", id, err)
			}
			for _, f := range fields {
				if f != "Count" && !slices.Contains(want, f) {
					want = append(want, f)
				}
			}
		}
		slices.Sort(want)
		for _, u := range uses[id] {
			switch {
			case u.counted && (m.One == "" || m.Other == ""):
				t.Errorf("%s: message %s is read by a count, but lacks the one or the other form", u.pos, id)
			case !u.counted && (m.One != "" || m.Other == ""):
				t.Errorf("%s: message %s is read without a count, but has plural forms or lacks the other form", u.pos, id)
			}
			if !slices.Equal(u.fields, want) {
				t.Errorf("%s: message %s is given the fields %v, and reads %v", u.pos, id, u.fields, want)
			}
		}
	}
}

// TestCatalogUsesEveryMessage checks that every console message of the
// English catalog is read by the code, and is where and as it should be:
// in catalogFile, its ID in lower snake case, with its text in that file.
func TestCatalogUsesEveryMessage(t *testing.T) {
	uses := messageUses(t)
	messages := catalogMessages(t)
	snake := regexp.MustCompile(`^console_[a-z0-9]+(_[a-z0-9]+)*$`)
	for _, id := range locale.Default().IDs() {
		if !strings.HasPrefix(id, "console_") {
			continue
		}
		if _, ok := messages[id]; !ok {
			t.Errorf("message %s is not in %s, with the console's other messages", id, filepath.Base(catalogFile))
		}
		if len(uses[id]) == 0 {
			t.Errorf("message %s of the English catalog is not read by the console", id)
		}
	}
	for id, m := range messages {
		if !snake.MatchString(id) {
			t.Errorf("%s: message ID %q is not lower_snake_case starting with console_", filepath.Base(catalogFile), id)
		}
		if m.Other == "" {
			t.Errorf("%s: message %s has no text (other)", filepath.Base(catalogFile), id)
		}
	}
}
