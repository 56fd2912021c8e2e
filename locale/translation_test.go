package locale

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// sparse are the languages whose files hold only what differs from the
// base language they fall back to (en-GB: British spelling over en).
var sparse = map[string]bool{"en-GB": true}

// parts are the catalog's files, by their part of the product.
var parts = []string{"bot", "console", "tournament", "puzzle", "card", "verdict"}

// translated returns the languages of the default catalog other than the
// base language.
func translated(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, l := range Default().Languages() {
		if l != Base {
			out = append(out, l)
		}
	}
	if len(out) == 0 {
		t.Skip("the catalog has no translation yet")
	}
	return out
}

// TestTranslationsHaveEveryMessage checks that every translated language
// has each message of the base language, in the same file, and nothing
// else (a sparse language: nothing else).
func TestTranslationsHaveEveryMessage(t *testing.T) {
	c := Default()
	for _, lang := range translated(t) {
		for _, part := range parts {
			base := c.IDsIn(part + "." + Base + ".toml")
			got := c.IDsIn(part + "." + lang + ".toml")
			for _, id := range got {
				if !slices.Contains(base, id) {
					t.Errorf("%s.%s.toml: message %s is not in the base language", part, lang, id)
				}
			}
			if sparse[lang] {
				continue
			}
			for _, id := range base {
				if !slices.Contains(got, id) {
					t.Errorf("%s.%s.toml lacks message %s", part, lang, id)
				}
			}
		}
	}
}

// TestTranslationsKeepTheFields checks that every form of every translated
// message reads the fields the base language's message reads, no more and
// no fewer, except that a form for one thing (zero, one, two) may leave the
// count out ("eine Runde").
func TestTranslationsKeepTheFields(t *testing.T) {
	c := Default()
	for _, lang := range translated(t) {
		for _, id := range c.IDs() {
			forms, ok := c.Forms(lang, id)
			if !ok {
				continue
			}
			want := fieldSet(t, c, Base, id)
			for form, src := range forms {
				got, err := Fields(src)
				if err != nil {
					t.Errorf("%s %s (%s): %v", lang, id, form, err)
					continue
				}
				for _, f := range got {
					if !slices.Contains(want, f) {
						t.Errorf("%s %s (%s) reads {{.%s}}, which the base language's message does not", lang, id, form, f)
					}
				}
				for _, f := range want {
					if f == "Count" && (form == "zero" || form == "one" || form == "two") {
						continue
					}
					if !slices.Contains(got, f) {
						t.Errorf("%s %s (%s) leaves out {{.%s}}: %q", lang, id, form, f, src)
					}
				}
			}
		}
	}
}

// fieldSet returns the fields any form of message id of lang reads.
func fieldSet(t *testing.T, c *Catalog, lang, id string) []string {
	t.Helper()
	forms, _ := c.Forms(lang, id)
	var out []string
	for _, src := range forms {
		fs, err := Fields(src)
		if err != nil {
			t.Fatalf("%s %s: %v", lang, id, err)
		}
		for _, f := range fs {
			if !slices.Contains(out, f) {
				out = append(out, f)
			}
		}
	}
	return out
}

// counts are the counts the plural test reads every counted message with:
// each CLDR form of the catalog's languages is among them (Polish "few"
// 2–4, 22–24 and "many" 5, 11–14, 25; French, Spanish, Italian and
// Portuguese "many" for a million).
var counts = []int{0, 1, 2, 3, 4, 5, 11, 12, 14, 21, 22, 25, 100, 101, 102, 1000, 1000000}

// TestTranslationsHaveEveryPluralForm reads every counted message (one the
// base language writes with more than one form) in every language at each
// of counts: go-i18n finds the form the language's CLDR rule picks, and a
// missing form shows as the message's ID.
func TestTranslationsHaveEveryPluralForm(t *testing.T) {
	c := Default()
	for _, lang := range translated(t) {
		for _, id := range c.IDs() {
			base, _ := c.Forms(Base, id)
			if len(base) < 2 {
				continue
			}
			if _, ok := c.Forms(lang, id); !ok {
				continue // a sparse language's fallback; TestTranslationsHaveEveryMessage checks the others
			}
			l := c.NewLocalizer(lang)
			for _, n := range counts {
				if got := l.N(id, n); strings.Contains(got, "["+id+"]") {
					t.Errorf("%s %s lacks the plural form for %d", lang, id, n)
					break
				}
			}
		}
	}
}

// englishWords are words whose presence in a translated message (outside
// `code` and fields) means English was left in it.
var englishWords = regexp.MustCompile(`(?i)\b(the|your|you|you're|with|and|click|column|columns|won|wins|forfeit|draw|challenge|player|turn|nobody)\b`)

// sameAsEnglish are the messages a translation may write as the base
// language does (names of the product, symbols, numbers).
var sameAsEnglish = map[string]bool{
	"percent": true, "settings_size": true, "leaderboard_rank": true, "leaderboard_row": true,
	"challenge_players": true, "analysis_move": true, "name_stats": true,
	// A colour French writes as English does.
	"colour_orange": true,
	// Words many languages share with English: the arena, an option's
	// name or format, the pause, the podium, the "Pts" of points, a
	// performance's "perf.".
	"choice_format_arena": true, "name_option_name": true, "name_option_format": true, "name_pause": true,
	"tournament_podium_title": true, "tournament_crosstable_points": true,
	"tournament_standings_row_arena": true,
}

// TestTranslationsLeaveNoEnglish checks that no translated message (in a
// language not based on English) is the base language's text, or holds an
// English word outside `code`, fields and the product's name.
func TestTranslationsLeaveNoEnglish(t *testing.T) {
	c := Default()
	code := regexp.MustCompile("`[^`]*`|\\{\\{[^}]*\\}\\}|Connect ?N|Connect|ConnectN|connectn|https?://\\S+")
	for _, lang := range translated(t) {
		if strings.HasPrefix(lang, "en") {
			continue
		}
		for _, id := range c.IDs() {
			forms, ok := c.Forms(lang, id)
			if !ok || sameAsEnglish[id] {
				continue
			}
			base, _ := c.Forms(Base, id)
			for form, src := range forms {
				if src == base[form] && strings.ContainsFunc(code.ReplaceAllString(src, ""), isLetter) {
					t.Errorf("%s %s (%s) is the English text: %q", lang, id, form, src)
					continue
				}
				if w := englishWords.FindString(code.ReplaceAllString(src, "")); w != "" {
					t.Errorf("%s %s (%s) holds the English word %q: %q", lang, id, form, w, src)
				}
			}
		}
	}
}

func isLetter(r rune) bool { return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' }

// discordName is Discord's rule for a command's or option's name in a
// locale: 1 to 32 letters, digits, - and _ (CHAT_INPUT command naming,
// https://discord.com/developers/docs/interactions/application-commands#application-command-object-application-command-naming),
// lowercase where the script has case.
var discordName = regexp.MustCompile(`^[-_\p{L}\p{N}\p{Devanagari}\p{Thai}]{1,32}$`)

// TestTranslationsNameAndQuoteCommands checks every localized subcommand
// and option name against Discord's rule, and that a message quoting a
// name in `code` in the base language quotes that name as the language
// writes it (a German help text names `/connectn herausfordern`, as the
// German client lists it).
func TestTranslationsNameAndQuoteCommands(t *testing.T) {
	c := Default()
	var names []string
	for _, id := range c.IDs() {
		if strings.HasPrefix(id, "name_") && id != "name_someone" { // name_someone is a word, not a name
			names = append(names, id)
		}
	}
	if len(names) == 0 {
		t.Fatal("the base language names no subcommand or option")
	}
	quoted := regexp.MustCompile("`[^`]*`")
	word := regexp.MustCompile(`[a-z]+`)
	// An option's value (by:wins, opponent:@member) is a choice or an
	// example, not a name: Discord shows a choice by its own label.
	value := regexp.MustCompile(":[^\\s`]*")
	for _, lang := range append([]string{Base}, translated(t)...) {
		l := c.NewLocalizer(lang)
		local := map[string]string{} // English name → the language's
		for _, id := range names {
			en := English().T(id)
			n := l.T(id)
			if !discordName.MatchString(n) || strings.ToLower(n) != n {
				t.Errorf("%s %s = %q: want 1–32 lowercase letters, digits, - or _", lang, id, n)
			}
			local[en] = n
		}
		for _, id := range c.IDs() {
			base, _ := c.Forms(Base, id)
			forms, ok := c.Forms(lang, id)
			if !ok || slices.Contains(names, id) {
				continue
			}
			for form, src := range forms {
				for _, q := range quoted.FindAllString(base[form], -1) {
					for _, w := range word.FindAllString(value.ReplaceAllString(q, ""), -1) {
						n, isName := local[w]
						if !isName {
							continue
						}
						if !strings.Contains(src, n) {
							t.Errorf("%s %s (%s): the base language quotes %s, so this should quote %q: %q", lang, id, form, q, n, src)
						}
					}
				}
			}
		}
	}
}

// TestFileNamesAreDiscordLocales checks that every language file is named
// by one of Discord's locale codes (or the base language), so that the
// interaction's locale finds it.
func TestFileNamesAreDiscordLocales(t *testing.T) {
	discord := []string{"id", "da", "de", "en-GB", "en-US", "es-ES", "es-419", "fr", "hr", "it", "lt", "hu", "nl",
		"no", "pl", "pt-BR", "ro", "fi", "sv-SE", "vi", "tr", "cs", "el", "bg", "ru", "uk", "hi", "th", "zh-CN", "ja",
		"zh-TW", "ko"}
	for _, l := range Default().Languages() {
		if l != Base && !slices.Contains(discord, l) {
			t.Errorf("language %s is not one of Discord's locales %v", l, discord)
		}
	}
}
