package locale

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

func TestDefaultLoads(t *testing.T) {
	c := Default()
	if len(c.IDs()) == 0 {
		t.Fatal("the embedded catalog has no message")
	}
	if !slices.Contains(c.Languages(), Base) {
		t.Fatalf("languages %v lack the base language %s", c.Languages(), Base)
	}
	for _, file := range []string{"bot.en.toml", "console.en.toml"} {
		if len(c.IDsIn(file)) == 0 {
			t.Errorf("%s: no message", file)
		}
	}
}

// catalog loads files (name → TOML) as a catalog.
func catalog(t *testing.T, files map[string]string) (*Catalog, error) {
	t.Helper()
	fsys := fstest.MapFS{}
	for name, body := range files {
		fsys["m/"+name] = &fstest.MapFile{Data: []byte(body)}
	}
	return Load(fsys, "m")
}

func mustCatalog(t *testing.T, files map[string]string) *Catalog {
	t.Helper()
	c, err := catalog(t, files)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestLoadRefuses(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"no base language", map[string]string{"a.de.toml": "[x]\nother = \"x\"\n"}, "base language"},
		{"an action", map[string]string{"a.en.toml": "[x]\nother = \"{{if .A}}a{{end}}\"\n"}, "only fields"},
		{"a function", map[string]string{"a.en.toml": "[x]\nother = \"{{printf .A}}\"\n"}, "only fields"},
		{"an unclosed field", map[string]string{"a.en.toml": "[x]\nother = \"{{.A\"\n"}, "without"},
		{"a stray close", map[string]string{"a.en.toml": "[x]\nother = \"a }} b\"\n"}, "without"},
		{"an ID twice in one language", map[string]string{"a.en.toml": "[x]\nother = \"a\"\n", "b.en.toml": "[x]\nother = \"b\"\n"}, "twice"},
		{"not TOML", map[string]string{"a.en.toml": "[x\n"}, "a.en.toml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := catalog(t, tt.files)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Load error = %v, want one containing %q", err, tt.want)
			}
		})
	}
	// The same ID in two languages is no repetition.
	mustCatalog(t, map[string]string{"a.en.toml": "[x]\nother = \"a\"\n", "a.de.toml": "[x]\nother = \"b\"\n"})
}

func TestLocalizer(t *testing.T) {
	c := mustCatalog(t, map[string]string{
		"a.en.toml": `
[hello]
other = "Hello, {{.Name}}! {{.Name}} again, {{ .Other }}."
[plain]
other = "Plain text"
[rounds]
one = "{{.Count}} round of {{.Who}}"
other = "{{.Count}} rounds of {{.Who}}"
[only_en]
other = "English only"
`,
		"a.pl.toml": `
[rounds]
one = "{{.Count}} runda"
few = "{{.Count}} rundy"
many = "{{.Count}} rund"
other = "{{.Count}} rundy (ułamek)"
[plain]
other = "Zwykły tekst"
`,
	})
	en := c.NewLocalizer("en-US")
	if got, want := en.T("hello", "Name", "Ada", "Other", 7), "Hello, Ada! Ada again, 7."; got != want {
		t.Errorf("T = %q, want %q", got, want)
	}
	if got, want := en.T("hello"), "Hello, !  again, ."; got != want {
		t.Errorf("T without values = %q, want %q", got, want)
	}
	if got := en.T("plain"); got != "Plain text" {
		t.Errorf("T(plain) = %q", got)
	}
	for n, want := range map[int]string{0: "0 rounds of x", 1: "1 round of x", 2: "2 rounds of x", 1001: "1001 rounds of x"} {
		if got := en.N("rounds", n, "Who", "x"); got != want {
			t.Errorf("N(rounds, %d) = %q, want %q", n, got, want)
		}
	}
	pl := c.NewLocalizer("pl")
	for n, want := range map[int]string{1: "1 runda", 2: "2 rundy", 4: "4 rundy", 5: "5 rund", 12: "12 rund", 22: "22 rundy", 25: "25 rund"} {
		if got := pl.N("rounds", n); got != want {
			t.Errorf("pl N(rounds, %d) = %q, want %q (CLDR: one, few, many)", n, got, want)
		}
	}
	if got := pl.T("plain"); got != "Zwykły tekst" {
		t.Errorf("pl T(plain) = %q", got)
	}
	if got := pl.T("only_en"); got != "English only" {
		t.Errorf("pl T(only_en) = %q, want the base language's", got)
	}
	if got := c.NewLocalizer("xx-unknown").T("plain"); got != "Plain text" {
		t.Errorf("an unknown language reads %q, want the base language", got)
	}
	if got := en.T("nope"); got != "[nope]" {
		t.Errorf("a missing message reads %q, want [nope]", got)
	}
	if got := en.Missing(); !slices.Equal(got, []string{"nope"}) {
		t.Errorf("Missing = %q, want [nope]", got)
	}
	if got := en.Resolved(); !slices.Equal(got, []string{"hello", "nope", "plain", "rounds"}) {
		t.Errorf("Resolved = %q", got)
	}
	if !en.Has("plain") || en.Has("nope") {
		t.Error("Has is wrong")
	}
	if forms, ok := c.Forms("pl", "rounds"); !ok || len(forms) != 4 || forms["few"] != "{{.Count}} rundy" {
		t.Errorf("Forms(pl, rounds) = %v, %v", forms, ok)
	}
	if _, ok := c.Forms("pl", "hello"); ok {
		t.Error("Forms falls back to another language")
	}
	shared1, shared2 := c.Localizer("pl"), c.Localizer("pl")
	own1, own2 := c.NewLocalizer("pl"), c.NewLocalizer("pl")
	if shared1 != shared2 || own1 == own2 {
		t.Error("Localizer is not shared, or NewLocalizer is")
	}
}

func TestFields(t *testing.T) {
	got, err := Fields("{{.A}} and {{.B}}, {{.A}} again")
	if err != nil || !slices.Equal(got, []string{"A", "B"}) {
		t.Errorf("Fields = %q, %v", got, err)
	}
	if _, err := Fields("{{range .X}}{{end}}"); err == nil {
		t.Error("Fields accepted an action")
	}
}

// BenchmarkT measures a message with two fields, as a board's status line
// reads it at every move; BenchmarkN a counted one, as the settings line
// does. (go-i18n's Localize, with its text/template parser, costs several
// times as much time and allocations for the same message: the Localizer
// goes through it once per message and count. docs/load.md has the
// figures.)
func BenchmarkT(b *testing.B) {
	l := English()
	for b.Loop() {
		l.T("board_to_play", "Round", 2, "Player", "🔴 **Alice**")
	}
}

func BenchmarkN(b *testing.B) {
	l := English()
	for b.Loop() {
		l.N("settings_wins", 2)
	}
}

// TestWriteValueTypes: strings, integers and booleans are written as
// they read; anything else is "?" (the catalog formats no other type, so
// that T's arguments never escape to the heap).
func TestWriteValueTypes(t *testing.T) {
	c := mustCatalog(t, map[string]string{"a.en.toml": "[v]\nother = \"<{{.V}}>\"\n"})
	l := c.NewLocalizer()
	for _, tt := range []struct {
		v    any
		want string
	}{
		{"text", "<text>"}, {-42, "<-42>"}, {int64(1) << 40, "<1099511627776>"}, {true, "<true>"},
		{3.5, "<?>"}, {errors.New("boom"), "<?>"}, {nil, "<?>"},
	} {
		if got := l.T("v", "V", tt.v); got != tt.want {
			t.Errorf("T(v, %#v) = %q, want %q", tt.v, got, tt.want)
		}
	}
}

// TestChain: a reader's languages, best first, with the other languages
// of the same base language and the base language as fallbacks; a message
// a language lacks is read in the next one.
func TestChain(t *testing.T) {
	files := map[string]string{"a.en.toml": "[x]\nother = \"en\"\n[y]\nother = \"en y\"\n"}
	for _, tag := range []string{"en-GB", "de", "es-ES", "es-419", "pt-BR", "zh-CN", "zh-TW"} {
		files["a."+tag+".toml"] = "[x]\nother = \"" + tag + "\"\n"
	}
	files["a.es-ES.toml"] += "[y]\nother = \"es-ES y\"\n"
	c := mustCatalog(t, files)
	for _, tt := range []struct {
		langs []string
		want  []string
		x, y  string
	}{
		{[]string{"es-419"}, []string{"es-419", "es-ES", "en"}, "es-419", "es-ES y"},
		{[]string{"es-MX"}, []string{"es-419", "es-ES", "en"}, "es-419", "es-ES y"},
		{[]string{"es"}, []string{"es-ES", "es-419", "en"}, "es-ES", "es-ES y"},
		{[]string{"en-GB"}, []string{"en-GB", "en"}, "en-GB", "en y"},
		{[]string{"en-US"}, []string{"en", "en-GB"}, "en", "en y"},
		{[]string{"de_DE.UTF-8"}, []string{"de", "en"}, "de", "en y"},
		{[]string{"pt-PT"}, []string{"pt-BR", "en"}, "pt-BR", "en y"},
		{[]string{"zh-HK"}, []string{"zh-TW", "zh-CN", "en"}, "zh-TW", "en y"},
		{[]string{"xx"}, []string{"en"}, "en", "en y"},
		{[]string{"C"}, []string{"en", "en-GB"}, "en", "en y"},
		{[]string{"", "fr", "de"}, []string{"de", "en"}, "de", "en y"},
	} {
		if got := c.Chain(tt.langs...); !slices.Equal(got, tt.want) {
			t.Errorf("Chain(%q) = %q, want %q", tt.langs, got, tt.want)
		}
		l := c.NewLocalizer(tt.langs...)
		if got := l.T("x"); got != tt.x {
			t.Errorf("%q reads x as %q, want %q", tt.langs, got, tt.x)
		}
		if got := l.T("y"); got != tt.y {
			t.Errorf("%q reads y as %q, want %q", tt.langs, got, tt.y)
		}
		if l.Language() != tt.want[0] {
			t.Errorf("%q: Language = %q, want %q", tt.langs, l.Language(), tt.want[0])
		}
	}
}
