package locale

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/BurntSushi/toml"
	"github.com/nicksnyder/go-i18n/v2/i18n"
	"github.com/nicksnyder/go-i18n/v2/i18n/template"
	"golang.org/x/text/language"
)

//go:embed messages/*.toml
var embedded embed.FS

// Base is the language every message exists in, and the last fallback.
const Base = "en"

// Catalog is a set of messages in one or more languages. It is safe for
// concurrent use.
type Catalog struct {
	// plurals holds one message per language, "form", whose plural forms
	// are their own names: go-i18n, asked for it with a count, names the
	// CLDR plural form of the count in that language. The messages
	// themselves are kept in sources, not in a go-i18n bundle, whose
	// templates (a map and a template per form of every message of every
	// language) took four fifths of the catalog's 5 MiB: the bot's live
	// heap, which a memory limit makes the garbage collector mark often.
	//
	// The texts are kept in few objects that hold no pointers (a string
	// of every source of a language, and spans into it), so that the
	// collector, which marks the catalog at every collection, marks a few
	// dozen objects instead of a message and its strings each (12,440
	// objects, a third of what the bot kept live at 50 busy matches, are
	// 1,472: TestCatalogFewObjects).
	plurals *i18n.Bundle
	ids     []string            // the message IDs of the base language, sorted
	files   map[string][]string // the message IDs of each file, by its base name
	index   map[string]int32    // every message ID of every language → its index in texts.messages
	sources map[string]*texts   // language tag → its messages
	tags    []language.Tag      // the languages, the base language first
	matcher language.Matcher    // over tags

	mu         sync.Mutex
	localizers map[string]*Localizer
}

// message is a message's source in one language, by plural form (the
// order of pluralForms); a message without a count has its text as
// "other".
type message [6]string

// texts are the messages of one language: the sources of all of them in
// one string, and each message's forms as spans of it, by the message's
// index in Catalog.index (the language lacks the message when its entry
// is not set).
type texts struct {
	all      string
	messages []entry
}

// entry is a message in texts: the span of each plural form's source in
// texts.all (in the order of pluralForms; empty for a form it lacks),
// and whether the language has the message.
type entry struct {
	forms [6]struct{ at, n uint32 }
	set   bool
}

// message returns message k (an index of Catalog.index) of the language,
// and whether the language has it.
func (t *texts) message(k int32) (message, bool) {
	if t == nil || int(k) >= len(t.messages) || !t.messages[k].set {
		return message{}, false
	}
	var m message
	for i, f := range t.messages[k].forms {
		m[i] = t.all[f.at : f.at+f.n]
	}
	return m, true
}

// pack returns the texts of a language from its messages by ID, indexed
// by index: one string for all their sources.
func pack(msgs map[string]*message, index map[string]int32) *texts {
	n := 0
	for _, m := range msgs {
		for _, src := range m {
			n += len(src)
		}
	}
	var all strings.Builder
	all.Grow(n)
	t := &texts{messages: make([]entry, len(index))}
	for id, m := range msgs {
		e := &t.messages[index[id]]
		e.set = true
		for i, src := range m {
			e.forms[i].at, e.forms[i].n = uint32(all.Len()), uint32(len(src))
			all.WriteString(src)
		}
	}
	t.all = all.String()
	return t
}

// pluralForms are the CLDR plural forms, in the order of a message's.
var pluralForms = [6]string{"zero", "one", "two", "few", "many", "other"}

// formOf returns the index in pluralForms of form, or -1.
func formOf(form string) int {
	for i, f := range pluralForms {
		if f == form {
			return i
		}
	}
	return -1
}

// pluralsID is the ID of the message of Catalog.plurals.
const pluralsID = "form"

var (
	defaultOnce    sync.Once
	defaultCatalog *Catalog
)

// Default returns the catalog embedded in the program. It panics if the
// embedded files do not load, which TestDefaultLoads rules out.
func Default() *Catalog {
	defaultOnce.Do(func() {
		c, err := Load(embedded, "messages")
		if err != nil {
			panic(fmt.Sprintf("locale: the embedded catalog does not load: %v", err))
		}
		defaultCatalog = c
	})
	return defaultCatalog
}

// English returns the localizer of the base language of the default
// catalog.
func English() *Localizer { return Default().Localizer() }

// Load reads every *.toml file in folder dir of fsys as the messages of
// the language the last dot-separated part of its name gives (bot.en.toml,
// console.de.toml, bot.pt-BR.toml: a language may have several files),
// checks that the base language has a file, that no message ID is given
// twice in one language, and that every message of every file is a
// template of fields only ({{.Name}}). It returns an error naming the file
// and message that break a rule.
func Load(fsys fs.FS, dir string) (*Catalog, error) {
	plurals := i18n.NewBundle(language.English)
	unmarshal := map[string]i18n.UnmarshalFunc{"toml": toml.Unmarshal}
	names, err := fs.Glob(fsys, path.Join(dir, "*.toml"))
	if err != nil {
		return nil, err
	}
	c := &Catalog{plurals: plurals, localizers: map[string]*Localizer{}, files: map[string][]string{},
		index: map[string]int32{}, sources: map[string]*texts{}}
	loaded := map[string]map[string]*message{} // language tag → ID → message, packed at the end
	var ids []string                           // the message IDs, by index
	base := false
	for _, name := range names {
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		f, err := i18n.ParseMessageFileBytes(b, name, unmarshal)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		lang := f.Tag.String()
		if loaded[lang] == nil {
			loaded[lang] = map[string]*message{}
			forms := &i18n.Message{ID: pluralsID, Zero: pluralForms[0], One: pluralForms[1], Two: pluralForms[2],
				Few: pluralForms[3], Many: pluralForms[4], Other: pluralForms[5]}
			if err := plurals.AddMessages(f.Tag, forms); err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
		}
		for _, m := range f.Messages {
			for _, src := range []string{m.Zero, m.One, m.Two, m.Few, m.Many, m.Other} {
				if _, err := compile(src); err != nil {
					return nil, fmt.Errorf("%s: message %s: %w", name, m.ID, err)
				}
			}
			if _, dup := loaded[lang][m.ID]; dup {
				return nil, fmt.Errorf("%s: message %s is given twice in %s", name, m.ID, lang)
			}
			loaded[lang][m.ID] = &message{m.Zero, m.One, m.Two, m.Few, m.Many, m.Other}
			k, ok := c.index[m.ID]
			if !ok {
				k = int32(len(ids))
				c.index[m.ID] = k
				ids = append(ids, m.ID)
			}
			// The ID as first read: the other languages' copies of it
			// are let go.
			c.files[path.Base(name)] = append(c.files[path.Base(name)], ids[k])
		}
		if f.Tag == language.English {
			base = true
			for _, m := range f.Messages {
				c.ids = append(c.ids, ids[c.index[m.ID]])
			}
		}
	}
	if !base {
		return nil, fmt.Errorf("%s: no %s.toml, the base language", dir, Base)
	}
	slices.Sort(c.ids)
	for lang, msgs := range loaded {
		c.sources[lang] = pack(msgs, c.index)
	}
	c.tags = plurals.LanguageTags()
	c.matcher = language.NewMatcher(c.tags)
	return c, nil
}

// IDs returns the ID of every message of the base language, sorted.
func (c *Catalog) IDs() []string { return slices.Clone(c.ids) }

// IDsIn returns the IDs of the messages of file (its base name, such as
// "bot.en.toml"), sorted; none for a file the catalog does not have.
func (c *Catalog) IDsIn(file string) []string {
	ids := slices.Clone(c.files[file])
	slices.Sort(ids)
	return ids
}

// Forms returns the source of message id in language lang exactly (a tag
// of one of the catalog's files, no fallback), by CLDR plural form
// ("zero", "one", "two", "few", "many", "other"; only the forms it has),
// and whether the language has the message. For the tests that compare
// languages and check what code reads.
func (c *Catalog) Forms(lang, id string) (map[string]string, bool) {
	m, ok := c.sources[lang].message(c.index[id])
	if _, known := c.index[id]; !known || !ok {
		return nil, false
	}
	out := map[string]string{}
	for i, src := range m {
		if src != "" {
			out[pluralForms[i]] = src
		}
	}
	return out, true
}

// Languages returns the BCP 47 tags of the catalog's languages, the base
// language first.
func (c *Catalog) Languages() []string {
	var out []string
	for _, t := range c.plurals.LanguageTags() {
		out = append(out, t.String())
	}
	return out
}

// Localizer returns the localizer of a reader of langs (BCP 47 tags, or
// Discord's locale codes such as "en-US", "es-419", "zh-TW"): each message
// in the first language of Chain(langs...) that has it, the base language
// last. Localizers are kept and shared by the list of languages they were
// made for.
func (c *Catalog) Localizer(langs ...string) *Localizer {
	k := strings.Join(langs, ",")
	c.mu.Lock()
	defer c.mu.Unlock()
	if l := c.localizers[k]; l != nil {
		return l
	}
	l := c.NewLocalizer(langs...)
	c.localizers[k] = l
	return l
}

// NewLocalizer returns a localizer of its own (not shared, unlike
// Localizer's) for langs: its Resolved and Missing tell what it was asked
// for. Each message is read in the first language of its chain that has
// it (see Chain).
func (c *Catalog) NewLocalizer(langs ...string) *Localizer {
	chain := c.Chain(langs...)
	l := &Localizer{chain: chain, forms: map[string]*i18n.Localizer{}, index: c.index, sources: c.sources, cache: map[key]compiled{},
		missing: map[string]bool{}}
	for _, tag := range chain {
		l.forms[tag] = i18n.NewLocalizer(c.plurals, tag)
	}
	return l
}

// Chain returns the languages of the catalog a reader of langs (BCP 47
// tags or Discord's locale codes: "de", "es-419", "pt-BR", "zh-TW"; POSIX
// forms such as "de_DE.UTF-8" too) reads, best first: for each of langs,
// the catalog's language that matches it best (x/text's language
// matcher: es-MX finds es-419, pt-PT pt-BR, zh-HK zh-TW), then the
// catalog's other languages of the same base language (es-419, then
// es-ES), and the base language last. A language that matches none of the
// catalog's adds nothing.
func (c *Catalog) Chain(langs ...string) []string {
	var chain []string
	add := func(tag string) {
		if !slices.Contains(chain, tag) {
			chain = append(chain, tag)
		}
	}
	for _, lang := range langs {
		tag, err := language.Parse(posix(lang))
		if err != nil || lang == "" {
			continue
		}
		_, i, conf := c.matcher.Match(tag)
		if conf < language.High && c.tags[i].String() == Base && !c.sameBase(tag, language.English) {
			continue // matched nothing but the default
		}
		best := c.tags[i]
		add(best.String())
		for _, other := range c.tags {
			if c.sameBase(other, best) {
				add(other.String())
			}
		}
	}
	add(Base)
	return chain
}

// sameBase reports whether a and b are of one base language (es-419 and
// es-ES, zh-CN and zh-TW).
func (c *Catalog) sameBase(a, b language.Tag) bool {
	ba, _ := a.Base()
	bb, _ := b.Base()
	return ba == bb
}

// posix turns a POSIX locale name ("de_DE.UTF-8", "sr_RS@latin") into a
// BCP 47 tag ("de-DE"); "C" and "POSIX" read as the base language.
func posix(s string) string {
	s, _, _ = strings.Cut(s, ".")
	s, _, _ = strings.Cut(s, "@")
	if s == "C" || s == "POSIX" {
		return Base
	}
	return strings.ReplaceAll(s, "_", "-")
}

// Localizer speaks one language (with its fallbacks). It is safe for
// concurrent use.
type Localizer struct {
	chain   []string                   // the languages read, best first (Catalog.Chain)
	forms   map[string]*i18n.Localizer // by language of chain: go-i18n on Catalog.plurals, for the plural form
	index   map[string]int32           // the catalog's Catalog.index
	sources map[string]*texts          // the catalog's messages, by language

	mu      sync.RWMutex
	cache   map[key]compiled
	missing map[string]bool // IDs asked for that the catalog lacks
}

// Language returns the language this localizer reads first (a tag of one
// of the catalog's files, such as "de" or "es-419"; the base language when
// none of those asked for matched).
func (l *Localizer) Language() string { return l.chain[0] }

// key names a message as resolved for one count: n is the count, or
// noCount for a message read without one.
type key struct {
	id string
	n  int
}

// noCount is the n of a key for a message read without a count; counts
// from 0 to maxCached are cached, others resolved at each call.
const (
	noCount   = -1
	maxCached = 1000
)

// T returns message id filled in with args, pairs of a field name and its
// value ("Round", 2, "Player", name). Values are written as strings,
// integers (int, int64) or booleans; a value of another type (an error:
// pass err.Error()) is written "?", and a field without a value is left
// empty. A message the catalog lacks comes back as its ID in brackets,
// "[id]", which the tests of every package that reads the catalog rule
// out.
func (l *Localizer) T(id string, args ...any) string {
	return l.get(id, noCount).execute(args, 0, false)
}

// N is T for a message with plural forms: it picks the form of count by
// the language's CLDR rules, and the message reads count as {{.Count}}.
func (l *Localizer) N(id string, count int, args ...any) string {
	return l.get(id, count).execute(args, count, true)
}

// Has reports whether the catalog has message id in this localizer's
// language or a fallback.
func (l *Localizer) Has(id string) bool {
	_, err := l.resolve(id, noCount)
	return err == nil || !isNotFound(err)
}

func isNotFound(err error) bool {
	var nf *notFoundError
	return errors.As(err, &nf)
}

// get returns the compiled message id for count n (noCount: none).
func (l *Localizer) get(id string, n int) compiled {
	k := key{id, n}
	cacheable := n < maxCached
	if cacheable {
		l.mu.RLock()
		t, ok := l.cache[k]
		l.mu.RUnlock()
		if ok {
			return t
		}
	}
	t, err := l.resolve(id, n)
	l.mu.Lock()
	defer l.mu.Unlock()
	if err != nil && t == nil {
		t = compiled{{lit: "[" + id + "]"}}
		l.missing[id] = true
	}
	if cacheable {
		l.cache[k] = t
	}
	return t
}

// Resolved returns the IDs of the messages this localizer was asked for
// (counts up to 1000 at least), sorted, the missing ones included.
func (l *Localizer) Resolved() []string {
	l.mu.RLock()
	defer l.mu.RUnlock()
	var out []string
	for k := range l.cache {
		if !slices.Contains(out, k.id) {
			out = append(out, k.id)
		}
	}
	slices.Sort(out)
	return out
}

// Missing returns the IDs this localizer was asked for that the catalog
// does not have, sorted.
func (l *Localizer) Missing() []string {
	l.mu.RLock()
	defer l.mu.RUnlock()
	out := slices.Collect(maps.Keys(l.missing))
	slices.Sort(out)
	return out
}

// resolve finds the source of message id in the first language of the
// chain that has it, in the plural form of n in that language (asked of
// go-i18n; "other" for noCount), or in its "other" form when it lacks that
// one (as go-i18n falls back for a translation that lacks a form), and
// compiles it. It returns a *notFoundError when no language of the chain
// has the message.
func (l *Localizer) resolve(id string, n int) (compiled, error) {
	var (
		m     message
		tag   string
		found bool
	)
	if k, ok := l.index[id]; ok {
		for _, t := range l.chain {
			if m, found = l.sources[t].message(k); found {
				tag = t
				break
			}
		}
	}
	if !found {
		return nil, &notFoundError{id: id, tag: l.chain[0]}
	}
	form := len(pluralForms) - 1 // other
	if n != noCount {
		name, err := l.forms[tag].Localize(&i18n.LocalizeConfig{MessageID: pluralsID, PluralCount: n, TemplateParser: template.IdentityParser{}})
		if err != nil {
			return nil, err
		}
		if form = formOf(name); form < 0 {
			return nil, fmt.Errorf("message %s: unknown plural form %q", id, name)
		}
	}
	src := m[form]
	if src == "" {
		src = m[len(pluralForms)-1]
	}
	if src == "" {
		return nil, fmt.Errorf("message %s in %s has neither the %s form nor other", id, tag, pluralForms[form])
	}
	t, err := compile(src)
	if err != nil {
		return nil, err // Load rejected such files; not reached
	}
	return t, nil
}

// notFoundError means no language of a localizer's chain has a message.
type notFoundError struct{ id, tag string }

func (e *notFoundError) Error() string {
	return fmt.Sprintf("message %q not found in %s or its fallbacks", e.id, e.tag)
}

// compiled is a message as literal text between fields: each segment
// writes lit, then the value of field (when not "").
type compiled []segment

type segment struct {
	lit, field string
}

// compile reads src, whose only actions may be fields ({{.Name}}), into
// segments. It returns an error for any other action.
func compile(src string) (compiled, error) {
	var t compiled
	for {
		i := strings.Index(src, "{{")
		if i < 0 {
			if strings.Contains(src, "}}") {
				return nil, errors.New(`"}}" without "{{"`)
			}
			return append(t, segment{lit: src}), nil
		}
		j := strings.Index(src[i:], "}}")
		if j < 0 {
			return nil, errors.New(`"{{" without "}}"`)
		}
		action := strings.TrimSpace(src[i+2 : i+j])
		field, ok := strings.CutPrefix(action, ".")
		if !ok || field == "" || strings.ContainsFunc(field, func(r rune) bool {
			return !(r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9')
		}) {
			return nil, fmt.Errorf("action {{%s}}: only fields such as {{.Name}} are allowed", action)
		}
		t = append(t, segment{lit: src[:i], field: field})
		src = src[i+j+2:]
	}
}

// Fields returns the names of the fields message src reads, in order of
// first use, or an error when src is not a template of fields only. For
// the tests that compare languages.
func Fields(src string) ([]string, error) {
	t, err := compile(src)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, s := range t {
		if s.field != "" && !slices.Contains(out, s.field) {
			out = append(out, s.field)
		}
	}
	return out, nil
}

// execute writes t with the fields of args (name, value pairs) and, when
// counted, Count.
func (t compiled) execute(args []any, count int, counted bool) string {
	if len(t) == 1 && t[0].field == "" {
		return t[0].lit // a message without fields: nothing to build
	}
	n := 0
	for _, s := range t {
		n += len(s.lit)
	}
	for k := 1; k < len(args); k += 2 {
		if v, ok := args[k].(string); ok {
			n += len(v)
		} else {
			n += 8
		}
	}
	var b strings.Builder
	b.Grow(n) // one allocation for the whole text, most of the time
	for _, s := range t {
		b.WriteString(s.lit)
		if s.field == "" {
			continue
		}
		if counted && s.field == "Count" {
			b.WriteString(strconv.Itoa(count))
			continue
		}
		for k := 0; k+1 < len(args); k += 2 {
			if name, _ := args[k].(string); name == s.field {
				writeValue(&b, args[k+1])
				break
			}
		}
	}
	return b.String()
}

func writeValue(b *strings.Builder, v any) {
	// Only these types, without fmt: a value passed to fmt escapes to the
	// heap, and with it every argument of every T at every move.
	switch v := v.(type) {
	case string:
		b.WriteString(v)
	case int:
		b.WriteString(strconv.Itoa(v))
	case int64:
		b.WriteString(strconv.FormatInt(v, 10))
	case bool:
		b.WriteString(strconv.FormatBool(v))
	default:
		b.WriteString("?") // a type the catalog does not format: TestWriteValueTypes
	}
}
