package locale

import (
	"fmt"
	"io/fs"
	"path"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/nicksnyder/go-i18n/v2/i18n"
	"github.com/nicksnyder/go-i18n/v2/i18n/template"
	"golang.org/x/text/language"
)

// TestResolveAsGoI18n checks that every message of every language, read
// with a count from 0 to 30 and a few larger ones (every CLDR plural rule
// of the catalog's languages tells its forms apart below 30, but for the
// hundreds and the millions), and without one, is the
// text go-i18n itself gives from a bundle of the same files: the catalog
// keeps its messages apart from go-i18n's bundle and asks go-i18n for the
// plural form only.
func TestResolveAsGoI18n(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: resolves every message of every language at 40 counts on one goroutine (12 s under the race detector); the plain run checks them")
	}
	bundle := i18n.NewBundle(language.English)
	bundle.RegisterUnmarshalFunc("toml", toml.Unmarshal)
	names, err := fs.Glob(embedded, path.Join("messages", "*.toml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		b, err := fs.ReadFile(embedded, name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := bundle.ParseMessageFileBytes(b, name); err != nil {
			t.Fatal(err)
		}
	}
	c := Default()
	counts := []int{noCount, 100, 101, 102, 111, 112, 1000, 1001, 1_000_000}
	for n := range 31 {
		counts = append(counts, n)
	}
	checked := 0
	for _, lang := range c.Languages() {
		l := c.NewLocalizer(lang)
		want := i18n.NewLocalizer(bundle, lang)
		for _, id := range c.IDs() {
			if _, ok := c.Forms(lang, id); !ok {
				continue // read in a fallback language: the same rules there
			}
			for _, n := range counts {
				lc := &i18n.LocalizeConfig{MessageID: id, TemplateParser: template.IdentityParser{}}
				if n != noCount {
					lc.PluralCount = n
				}
				src, _ := want.Localize(lc)
				got, err := l.resolve(id, n)
				if src == "" {
					if err == nil {
						t.Errorf("%s %s count %d: resolved %v, go-i18n has no text", lang, id, n, got)
					}
					continue
				}
				if exp, _ := compile(src); fmt.Sprint(got) != fmt.Sprint(exp) || err != nil {
					t.Errorf("%s %s count %d: resolved %v (%v), want go-i18n's %q", lang, id, n, got, err, src)
				}
				checked++
			}
		}
	}
	if checked < 1000 {
		t.Errorf("only %d messages checked", checked)
	}
}
