// Package locale is ConnectN's text catalog: every string a user reads —
// boards, round records, refusals, help, stats, the slash command's and its
// options' descriptions, the console's prompts — keyed by message ID, per
// language, in the TOML files embedded under messages/: one file per part
// of the product and language, named <part>.<BCP 47 tag>.toml (bot.en.toml,
// console.en.toml; a translation adds bot.de.toml, console.de.toml). The
// files are read with go-i18n (github.com/nicksnyder/go-i18n/v2), which
// also picks the language (the best match among those the catalog has,
// then English) and the CLDR plural form of a count.
//
// A message is a template whose only actions are fields of its data,
// {{.Name}}; a message with a count has its CLDR plural forms (one, few,
// many, other, ...) and reads the count as {{.Count}}:
//
//	[board_status_to_play]
//	other = "**Round {{.Round}}** · {{.Player}} to play."
//
//	[settings_rounds]
//	one = "first to win {{.Count}} round"
//	other = "first to win {{.Count}} rounds"
//
// Usage:
//
//	l := locale.Default().Localizer("de", "en-US") // a member's locale, then a fallback
//	l.T("board_status_to_play", "Round", 2, "Player", name)
//	l.N("settings_rounds", cfg.Wins)
//
// A Localizer resolves a message once per message ID and count (through
// go-i18n) and keeps the compiled template, so that a board drawn at every
// move costs map lookups and string concatenation, not template
// execution. Adding a language is adding a file.
package locale
