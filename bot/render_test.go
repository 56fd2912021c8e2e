package bot

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot/internal/render"

	"github.com/connectn/connectn/bot/internal/limits"
	"github.com/connectn/connectn/bot/internal/wire"

	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/game/ai"
	"github.com/connectn/connectn/locale"
	"github.com/connectn/connectn/sessions"
)

// update rewrites the golden files under testdata/ (render and replay).
var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// UpdateGolden lets the external tests see -update.
var UpdateGolden = update

// en is the English localizer the render tests draw with.
var en = locale.English()

// testRouter parses custom_ids by the route table.
var testRouter = newRouter(table(features{}), nil, nil)

// length counts s both ways Discord might: in code points and in UTF-16
// code units; the larger is what a limit is held against.
func length(s string) int {
	return max(utf8.RuneCountInString(s), len(utf16.Encode([]rune(s))))
}

// checkLimits returns what in msg breaks one of Discord's limits.
func checkLimits(msg *message) []string {
	var bad []string
	if n := length(msg.Content); n > limits.Content {
		bad = append(bad, fmt.Sprintf("content of %d characters", n))
	}
	total := 0
	for _, e := range msg.Embeds {
		if n := length(e.Title); n > limits.EmbedTitle {
			bad = append(bad, fmt.Sprintf("title of %d characters", n))
		}
		if n := length(e.Description); n > limits.EmbedDescription {
			bad = append(bad, fmt.Sprintf("description of %d characters", n))
		}
		total += length(e.Title) + length(e.Description)
		if e.Footer != nil {
			if n := length(e.Footer.Text); n > limits.EmbedFooter {
				bad = append(bad, fmt.Sprintf("footer of %d characters", n))
			}
			total += length(e.Footer.Text)
		}
	}
	if total > limits.EmbedsTotal {
		bad = append(bad, fmt.Sprintf("embeds of %d characters in all", total))
	}
	if len(msg.Components) > limits.ActionRows {
		bad = append(bad, fmt.Sprintf("%d action rows", len(msg.Components)))
	}
	seen := map[string]bool{}
	for _, row := range msg.Components {
		r, ok := wire.Component[discordgo.ActionsRow](row)
		if !ok {
			bad = append(bad, fmt.Sprintf("a top-level %T", row))
			continue
		}
		if len(r.Components) == 0 || len(r.Components) > limits.ButtonsPerRow {
			bad = append(bad, fmt.Sprintf("a row of %d components", len(r.Components)))
		}
		for _, c := range r.Components {
			b, ok := wire.Component[discordgo.Button](c)
			if !ok {
				bad = append(bad, fmt.Sprintf("a %T in a row", c))
				continue
			}
			if len(b.CustomID) > limits.CustomID || seen[b.CustomID] || b.CustomID == "" {
				bad = append(bad, fmt.Sprintf("custom_id %q (long, empty or repeated)", b.CustomID))
			}
			seen[b.CustomID] = true
			if length(b.Label) > limits.ButtonLabel {
				bad = append(bad, fmt.Sprintf("label %q", b.Label))
			}
			if _, _, err := testRouter.parse(b.CustomID); err != nil {
				bad = append(bad, fmt.Sprintf("custom_id %q does not parse: %v", b.CustomID, err))
			}
		}
	}
	return bad
}

// worstName is the longest display name after escaping: 32 runes that each
// need a backslash, and the ellipsis.
var worstName = strings.Repeat("*", 40)

// session returns a session of cfg in theme with moves played by whoever
// is to move, as phase.
func testSession(t testing.TB, cfg game.Config, theme string, moves []int, p1, p2 string) *sessions.Session {
	t.Helper()
	m, err := game.NewMatch(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range moves {
		if _, err := m.Play(m.ToMove(), c); err != nil {
			t.Fatalf("play %d: %v", c, err)
		}
	}
	s := &sessions.Session{
		ID: 123456789, ChannelID: "1300000000000000001", GuildID: "1200000000000000001",
		Players: [2]sessions.Member{{ID: "1400000000000000001", Name: p1}, {ID: "1400000000000000002", Name: p2}},
		Config:  m.Config(), Match: m, Phase: sessions.PhasePlaying, Theme: theme, PostSeq: 3,
		Deadline:  time.Date(2026, 11, 22, 18, 5, 0, 0, time.UTC),
		MessageID: "1700000000000000001",
	}
	if m.Over() {
		s.Phase, s.End = sessions.PhaseFinished, sessions.EndWon
	}
	return s
}

// fillRound plays random legal moves (seeded) in the current round of cfg
// until it ends, and returns them.
func fillRound(cfg game.Config, seed uint64) []int {
	m, _ := game.NewMatch(cfg)
	rng := rand.New(rand.NewPCG(seed, 1))
	var moves []int
	for m.Round().Number() == 1 && !m.Round().Over() {
		c := rng.IntN(cfg.Columns)
		if !m.Round().CanDrop(c) {
			continue
		}
		m.Play(m.ToMove(), c)
		moves = append(moves, c)
	}
	return moves
}

// worstAnalysis is a review of r whose every line is the longest a move
// can get, with its first change at the first move.
func worstAnalysis(r *game.Round) *ai.Analysis {
	a := &ai.Analysis{FirstChange: 0}
	p := r.Opener()
	for k, c := range r.Moves() {
		a.Moves = append(a.Moves, ai.MoveReview{Ply: k, Player: p, Column: c, Settled: true, Before: 1, After: -1})
		p = p.Other()
	}
	return a
}

// allMessages renders every message the bot shows about s and its phases.
func allMessages(s *sessions.Session) map[string]*message { return allMessagesIn(en, s) }

// allMessagesIn is allMessages in l's language.
func allMessagesIn(en *locale.Localizer, s *sessions.Session) map[string]*message {
	out := map[string]*message{}
	m := s.Match
	switch {
	case !m.Over():
		out["board"] = render.Board(en, s)
		s2 := *s
		s2.Phase = sessions.PhaseChallenge
		out["challenge"] = render.Challenge(en, &s2)
		for _, end := range []sessions.End{sessions.EndDeclined, sessions.EndWithdrawn, sessions.EndExpired, sessions.EndAbandoned} {
			s2.Phase, s2.End = sessions.PhaseCancelled, end
			out["closed "+string(end)] = render.ClosedChallenge(en, &s2)
		}
	default:
		out["match over"] = render.MatchOver(en, s, &sessions.PairRecord{Wins: 999999, Losses: 999999}, "", true)
		out["match over, rematched"] = render.MatchOver(en, s, &sessions.PairRecord{Wins: 1, Losses: 2}, en.T("match_rematch_asked", "Inviter", render.Name(en, s, game.Player2)), true)
		s2 := *s
		s2.End = sessions.EndTimeout
		out["timeout"] = render.MatchOver(en, &s2, nil, "", false)
		if ai.Solvable(s.Config) {
			out["analysis"] = &message{Embeds: []*discordgo.MessageEmbed{render.Analysis(en, s, m.Round(), worstAnalysis(m.Round()))}}
		}
	}
	vsBot := *s
	vsBot.AI, vsBot.Players[1].Name = "perfect", render.BotName
	if vsBot.Phase == sessions.PhasePlaying {
		out["board against the bot"] = render.Board(en, &vsBot)
	}
	if prev := m.Previous(); prev != nil {
		out["round record"] = render.RoundRecord(en, s, prev)
	}
	return out
}

// TestMessagesFitDiscordLimits renders every message for every board size,
// connect length and theme the options allow, with the longest names, in
// every phase, and holds each against Discord's limits.
func TestMessagesFitDiscordLimits(t *testing.T) {
	checked := 0
	for rows := minRows; rows <= maxRows; rows++ {
		for columns := minColumns; columns <= maxColumns; columns++ {
			for connect := minConnect; connect <= max(rows, columns); connect++ {
				for ti, th := range render.Themes {
					cfg := game.Config{Rows: rows, Columns: columns, Connect: connect, Wins: 2}
					round := fillRound(cfg, uint64(rows*1000+columns*10+connect+ti))
					// Mid-round, and a round just ended (round 2 starts);
					// with wins 1 the same round ends the match.
					cases := []*sessions.Session{
						testSession(t, cfg, th.Name, round[:len(round)/2], worstName, worstName),
						testSession(t, cfg, th.Name, round, worstName, worstName),
					}
					one := cfg
					one.Wins = 1
					cases = append(cases, testSession(t, one, th.Name, round, worstName, worstName))
					for _, s := range cases {
						for phase, msg := range allMessages(s) {
							if bad := checkLimits(msg); len(bad) > 0 {
								t.Fatalf("%dx%d connect %d, theme %s, %s: %v", rows, columns, connect, th.Name, phase, bad)
							}
							checked++
						}
					}
				}
			}
		}
	}
	// The other messages, at their largest.
	top := make([]sessions.Stats, leaderboardTop)
	for k := range top {
		top[k] = sessions.Stats{UserID: "14000000000000000" + fmt.Sprint(10+k), Matches: 1 << 30, Wins: 1 << 30, Losses: 1 << 30, RoundsWon: 1 << 30, RoundsLost: 1 << 30}
	}
	big := sessions.Stats{Matches: 1 << 30, Wins: 1 << 30, Losses: 1 << 30, RoundsWon: 1 << 30, RoundsLost: 1 << 30, RoundsDrawn: 1 << 30, Streak: 1 << 30, BestStreak: 1 << 30}
	others := map[string]*message{
		"leaderboard": render.Leaderboard(en, false, top),
		"stats":       render.Stats(en, false, worstName, big, big, &sessions.PairRecord{Wins: 1 << 30, Losses: 1 << 30}, worstName, sessions.MemberRating{Games: 1 << 30, Best: 99999}),
	}
	for p := range helpPages {
		others[fmt.Sprint("help page ", p)] = helpMessage(en, 59*time.Minute+59*time.Second, p)
	}
	for name, msg := range others {
		if bad := checkLimits(msg); len(bad) > 0 {
			t.Errorf("%s: %v", name, bad)
		}
		checked++
	}
	if checked < 5000 {
		t.Fatalf("only %d messages checked", checked)
	}
}

// TestCheckLimitsBites makes sure the limit check itself catches each kind
// of excess.
func TestCheckLimitsBites(t *testing.T) {
	row := func(n int) discordgo.ActionsRow {
		var bs []discordgo.MessageComponent
		for k := 0; k < n; k++ {
			bs = append(bs, discordgo.Button{Label: "x", CustomID: fmt.Sprintf("cn:accept:%d", k+1)})
		}
		return discordgo.ActionsRow{Components: bs}
	}
	tests := map[string]*message{
		"content":     {Content: strings.Repeat("a", 2001)},
		"description": {Embeds: []*discordgo.MessageEmbed{{Description: strings.Repeat("🟦", 4097)}}},
		"total":       {Embeds: []*discordgo.MessageEmbed{{Description: strings.Repeat("a", 4000)}, {Description: strings.Repeat("a", 2001)}}},
		"rows":        {Components: []discordgo.MessageComponent{row(1), row(1), row(1), row(1), row(1), row(1)}},
		"row width":   {Components: []discordgo.MessageComponent{row(6)}},
		"custom_id":   {Components: []discordgo.MessageComponent{discordgo.ActionsRow{Components: []discordgo.MessageComponent{discordgo.Button{Label: "x", CustomID: "cn:" + strings.Repeat("1", 100)}}}}},
	}
	for name, msg := range tests {
		if len(checkLimits(msg)) == 0 {
			t.Errorf("%s: no problem found", name)
		}
	}
}

// TestThemesDistinct checks that within each theme the empty cell, the
// discs and the winning marks are all different and none is render.LastMark, so a
// board never reads two ways; and that across themes an emoji keeps one
// meaning: no theme's winning mark or disc is another theme's empty cell
// (the colour-blind theme's winning 🟦 was the classic empty cell), and no
// theme's winning mark is another's disc.
func TestThemesDistinct(t *testing.T) {
	role := map[string]string{render.LastMark: "the last-disc mark"}
	for _, th := range render.Themes {
		all := []string{th.Empty, th.Disc[1], th.Disc[2], th.Win[1], th.Win[2], render.LastMark}
		seen := map[string]bool{}
		for _, e := range all {
			if e == "" || seen[e] {
				t.Errorf("theme %s: %q empty or repeated in %q", th.Name, e, all)
			}
			seen[e] = true
		}
		for e, r := range map[string]string{th.Empty: "an empty cell", th.Disc[1]: "a disc", th.Disc[2]: "a disc",
			th.Win[1]: "a winning mark", th.Win[2]: "a winning mark"} {
			if was, ok := role[e]; ok && was != r {
				t.Errorf("theme %s: %s is %s, but %s in another theme", th.Name, e, r, was)
			}
			role[e] = r
		}
		if render.ThemeNamed(th.Name).Name != th.Name {
			t.Errorf("theme %s not found by name", th.Name)
		}
	}
	if render.ThemeNamed("retired").Name != "classic" {
		t.Error("an unknown theme does not fall back to classic")
	}
}

// endedMatches returns a finished match for every way one ends, by name:
// won by a line in its only round ("line"), won by a line in its third
// round ("rounds"), by timeout, by a forfeit of the match, and by a
// forfeited round that decides it.
func endedMatches(t testing.TB) map[string]*sessions.Session {
	t.Helper()
	one := game.Config{Rows: 6, Columns: 7, Connect: 4, Wins: 1}
	two := game.Config{Rows: 6, Columns: 7, Connect: 4, Wins: 2}
	line := testSession(t, one, "forest", []int{0, 1, 1, 2, 2, 3, 2, 3, 3, 6, 3}, "Alice", "Bob")
	// Round 1 to Alice up column 1; round 2 (Bob opens) to Bob up column 7;
	// round 3 to Alice along the bottom row.
	rounds := testSession(t, two, "classic", []int{0, 1, 0, 1, 0, 1, 0, 6, 5, 6, 5, 6, 5, 6, 0, 0, 1, 1, 2, 2, 3}, "Alice", "Bob")
	timeout := testSession(t, two, "classic", []int{3}, "Alice", "Bob")
	timeout.Match.Forfeit(game.Player2)
	timeout.Phase, timeout.End = sessions.PhaseFinished, sessions.EndTimeout
	forfeit := testSession(t, one, "colorblind", []int{3, 3}, "Alice", "Bob")
	forfeit.Match.Forfeit(game.Player1)
	forfeit.Phase, forfeit.End = sessions.PhaseFinished, sessions.EndForfeit
	roundForfeit := testSession(t, one, "classic", []int{3}, "Alice", "Bob")
	roundForfeit.Match.ForfeitRound(game.Player2)
	roundForfeit.Phase, roundForfeit.End = sessions.PhaseFinished, sessions.EndWon
	for name, s := range map[string]*sessions.Session{"line": line, "rounds": rounds, "timeout": timeout, "forfeit": forfeit, "round forfeit": roundForfeit} {
		if !s.Match.Over() {
			t.Fatalf("%s: the match is not over", name)
		}
	}
	return map[string]*sessions.Session{"line": line, "rounds": rounds, "timeout": timeout, "forfeit": forfeit, "round forfeit": roundForfeit}
}

// readable returns everything a user reads in msg: content, and each
// embed's title, description and footer.
func readable(msg *message) string {
	all := msg.Content
	for _, e := range msg.Embeds {
		all += "\n" + e.Title + "\n" + e.Description
		if e.Footer != nil {
			all += "\n" + e.Footer.Text
		}
	}
	return all
}

// TestMatchResultSaysItOnce: however a match ends, its message says "wins"
// once (not in the content, the round's result and the match's line), says
// how when it was not played out (by timeout, by forfeit), never an
// exclaimed score as if it had been, and mentions nobody in its content.
func TestMatchResultSaysItOnce(t *testing.T) {
	want := map[string]string{
		"line":          "🏆 🟣 **Alice** wins the match!",
		"rounds":        "🏆 🔴 **Alice** wins round 3 and the match!",
		"timeout":       "⌛ 🔴 **Alice** wins by timeout: 🟡 **Bob** did not play in time.",
		"forfeit":       "🏳️ 🟠 **Bob** wins by forfeit: 🔵 **Alice** gave up the match.",
		"round forfeit": "🏳️ 🔴 **Alice** wins by forfeit: 🟡 **Bob** forfeited round 1.",
	}
	for name, s := range endedMatches(t) {
		msg := render.MatchOver(en, s, &sessions.PairRecord{Wins: 1}, "", true)
		all := readable(msg)
		if !strings.Contains(all, want[name]) {
			t.Errorf("%s: lacks %q:\n%s", name, want[name], all)
		}
		if n := strings.Count(all, "wins"); n != 1 {
			t.Errorf("%s: says %q %d times:\n%s", name, "wins", n, all)
		}
		if strings.Contains(all, "!\n") && name != "line" && name != "rounds" || strings.Contains(all, "– 0!") {
			t.Errorf("%s: reads as a match played out:\n%s", name, all)
		}
		if msg.Content != "" {
			t.Errorf("%s: content %q, want none (it said who won again)", name, msg.Content)
		}
	}
}

// TestClosedChallenges: a challenge that ended without a match is grey,
// titled by how it ended, says who ended it without a mention, and clears
// the content that mentioned the opponent.
func TestClosedChallenges(t *testing.T) {
	want := map[sessions.End][2]string{
		sessions.EndDeclined:  {"Connect 4 challenge declined", "🟡 **Bob** declined. Start a new match"},
		sessions.EndWithdrawn: {"Connect 4 challenge withdrawn", "🔴 **Alice** withdrew it. Start a new match"},
		sessions.EndExpired:   {"Connect 4 challenge expired", "⌛ Nobody accepted it in time. Start a new match"},
		sessions.EndAbandoned: {"Connect 4 challenge called off", "\n\nStart a new match"},
	}
	for end, w := range want {
		s := testSession(t, game.Config{Rows: 6, Columns: 7, Connect: 4, Wins: 2}, "", nil, "Alice", "Bob")
		s.Phase, s.End = sessions.PhaseCancelled, end
		msg := render.ClosedChallenge(en, s)
		e := msg.Embeds[0]
		if e.Title != w[0] || !strings.Contains(e.Description, w[1]) {
			t.Errorf("%s: title %q, description %q; want %q and %q", end, e.Title, e.Description, w[0], w[1])
		}
		if e.Color != render.ClosedColor {
			t.Errorf("%s: colour %#x, want grey %#x", end, e.Color, render.ClosedColor)
		}
		if msg.Content != "" || strings.Contains(readable(msg), "<@") || len(msg.Components) != 0 {
			t.Errorf("%s: content %q, mentions or buttons left:\n%s", end, msg.Content, readable(msg))
		}
	}
}

// TestDuration says a turn's time in the largest whole unit, in the plural
// it takes.
func TestDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		time.Second: "1 second", 30 * time.Second: "30 seconds", 90 * time.Second: "90 seconds", 1500 * time.Millisecond: "2 seconds",
		time.Minute: "1 minute", 5 * time.Minute: "5 minutes", time.Hour: "1 hour", 2 * time.Hour: "2 hours", 61 * time.Minute: "61 minutes",
	} {
		if got := render.Duration(en, d); got != want {
			t.Errorf("render.Duration(%v) = %q, want %q", d, got, want)
		}
	}
}

// goldenCase is a rendered message kept under testdata/render, with the
// facts its golden file must show, checked apart from the golden
// comparison: phrases it holds, phrases it must not hold, phrases it holds
// exactly once, and its buttons row by row.
type goldenCase struct {
	name    string
	msg     *message
	facts   []string
	absent  []string
	once    []string
	buttons []int
}

// goldenCases is the spread of rendered messages kept under
// testdata/render: sizes, themes and phases.
func goldenCases(t *testing.T) []goldenCase {
	classic := game.Config{Rows: 6, Columns: 7, Connect: 4, Wins: 2}
	wide := game.Config{Rows: 12, Columns: 12, Connect: 5, Wins: 3}
	eleven := game.Config{Rows: 5, Columns: 11, Connect: 4, Wins: 1}
	small := game.Config{Rows: 4, Columns: 4, Connect: 3, Wins: 2}

	challenge := testSession(t, classic, "classic", nil, "Alice", "Bob")
	challenge.Phase, challenge.PostSeq = sessions.PhaseChallenge, 0
	oneRound := testSession(t, game.Config{Rows: 6, Columns: 7, Connect: 4, Wins: 1}, "forest", nil, "Alice", "Bob")
	oneRound.Phase, oneRound.PostSeq = sessions.PhaseChallenge, 0
	fresh := testSession(t, classic, "classic", nil, "Alice", "Bob")
	midClassic := testSession(t, classic, "classic", []int{3, 3, 4, 2}, "Alice", "Bob")
	midWide := testSession(t, wide, "colorblind", []int{0, 11, 5, 6, 6, 5, 11}, "Ünïcødé_name", "b")
	midEleven := testSession(t, eleven, "forest", []int{10, 0, 2, 3}, "Alice", "Bob")
	record := testSession(t, classic, "classic", []int{0, 1, 0, 1, 0, 1, 0}, "Alice", "Bob")
	draw := testSession(t, small, "colorblind", []int{0, 1, 2, 3, 2, 2, 2, 0, 3, 3, 0, 0, 3, 1, 1, 1}, "Alice", "Bob")
	ended := endedMatches(t)
	expired := testSession(t, classic, "classic", nil, "Alice", "Bob")
	expired.Phase, expired.End = sessions.PhaseCancelled, sessions.EndExpired
	declined := testSession(t, classic, "colorblind", nil, "Alice", "Bob")
	declined.Phase, declined.End = sessions.PhaseCancelled, sessions.EndDeclined

	return []goldenCase{
		{name: "challenge-6x7-classic", msg: render.Challenge(en, challenge),
			facts:  []string{"<@1400000000000000002>, **Alice** challenges you to a match of Connect 4!", "first to win 2 rounds", "the opener alternates", "**Bob** may accept", "expires <t:1795370700:R>"},
			absent: []string{"<@1400000000000000001>", "Connect 4 ·"}, once: []string{"<@", "Connect 4 challenge"}, buttons: []int{2}},
		{name: "challenge-one-round", msg: render.Challenge(en, oneRound),
			facts: []string{"🟣 **Alice** plays first.", "first to win 1 round"}, absent: []string{"alternates"}, once: []string{"<@"}, buttons: []int{2}},
		{name: "board-fresh", msg: render.Board(en, fresh),
			facts:  []string{"1️⃣2️⃣3️⃣4️⃣5️⃣6️⃣7️⃣\n", strings.Repeat("🟦", 7) + "\n\n" + "🔴 **Alice** to play."},
			absent: []string{"Longest run", "0 · 0", render.LastMark}, once: []string{"Connect 4", "Round 1"}, buttons: []int{4, 3, 1}},
		{name: "board-6x7-classic", msg: render.Board(en, midClassic),
			facts: []string{"🔴 **Alice** 0 – 0 **Bob** 🟡", "1️⃣2️⃣⬇️4️⃣5️⃣6️⃣7️⃣\n", "🟦🟦🟡🔴🔴🟦🟦\n\n⬇️ Last disc: 🟡 column 3 · Longest run: 🔴 **2** · 🟡 **2**",
				"🔴 **Alice** to play. The turn runs out", "6 rows × 7 columns · first to win 2 rounds"},
			absent: []string{"❤️", "💛"}, once: []string{"Connect 4", "Round 1"}, buttons: []int{4, 3, 1}},
		{name: "board-12x12-colorblind", msg: render.Board(en, midWide),
			facts:  []string{"🇦\u200b🇧", "🇰\u200b⬇️\n", "🔵", "🟠", "🔳", "⬇️ Last disc: 🔵 column L", "\n🇦\u200b🇧\u200b🇨\u200b🇩\u200b🇪\u200b🇫\u200b🇬\u200b🇭\u200b🇮\u200b🇯\u200b🇰\u200b🇱\n\n⬇️"},
			absent: []string{"💙"}, once: []string{"Connect 5", "Round 1", render.LastMark + "\n"}, buttons: []int{4, 4, 4, 1}},
		{name: "board-5x11-forest", msg: render.Board(en, midEleven),
			facts: []string{"🇦\u200b🇧", "🟫", "🟣", "🟢", "first to win 1 round", "⬇️ Last disc: 🟢 column D"}, buttons: []int{4, 4, 3, 1}},
		{name: "round-record-6x7", msg: render.RoundRecord(en, record, record.Match.Previous()),
			facts:  []string{"Connect 4 · Round 1 result", "🟥 4 in a row: column 1, rows 1–4", "🔴 **Alice** wins the round.", "🔴 **Alice** 1 – 0 **Bob** 🟡", "Round 2 starts"},
			absent: []string{"Longest run"}, once: []string{"wins", "Round 1"}},
		{name: "round-record-draw-4x4", msg: render.RoundRecord(en, draw, draw.Match.Previous()),
			facts: []string{"A draw: the board is full.", "1 draw"}, once: []string{"Round 1"}},
		{name: "match-over-forest", msg: render.MatchOver(en, ended["line"], &sessions.PairRecord{Wins: 3, Losses: 1}, "", true),
			facts:  []string{"Match over", "🟪 4 in a row: diagonal from column 1, row 1 to column 4, row 4", "🏆 🟣 **Alice** wins the match!", "Alice **3** – **1** Bob"},
			absent: []string{"1 – 0!", "<@"}, once: []string{"wins", "Connect 4"}, buttons: []int{3}},
		{name: "match-over-rounds", msg: render.MatchOver(en, ended["rounds"], &sessions.PairRecord{Wins: 3, Losses: 1}, "", true),
			facts: []string{"🔴 **Alice** 2 – 1 **Bob** 🟡", "🟥 4 in a row: the bottom row, columns 1–4", "🏆 🔴 **Alice** wins round 3 and the match!"},
			once:  []string{"wins"}, buttons: []int{3}},
		{name: "match-over-timeout", msg: render.MatchOver(en, ended["timeout"], &sessions.PairRecord{Wins: 1}, "", false),
			facts:  []string{"⌛ 🔴 **Alice** wins by timeout: 🟡 **Bob** did not play in time."},
			absent: []string{"1 – 0!", "<@"}, once: []string{"wins"}, buttons: []int{2}},
		{name: "match-over-forfeit", msg: render.MatchOver(en, ended["forfeit"], nil, "", true),
			facts:  []string{"🏳️ 🟠 **Bob** wins by forfeit: 🔵 **Alice** gave up the match."},
			absent: []string{"1 – 0!", "<@"}, once: []string{"wins"}, buttons: []int{3}},
		{name: "challenge-expired", msg: render.ClosedChallenge(en, expired),
			facts: []string{"Connect 4 challenge expired", "⌛ Nobody accepted it in time."}, absent: []string{"<@"}},
		{name: "challenge-declined", msg: render.ClosedChallenge(en, declined),
			facts: []string{"Connect 4 challenge declined", "🟠 **Bob** declined."}, absent: []string{"<@"}},
		{name: "stats", msg: render.Stats(en, false, "Alice", sessions.Stats{Matches: 5, Wins: 3, Losses: 2, RoundsWon: 7, RoundsLost: 4, RoundsDrawn: 1, Streak: 2, BestStreak: 3}, sessions.Stats{Matches: 2, Wins: 1, Losses: 1}, &sessions.PairRecord{Wins: 2, Losses: 1}, "Bob", sessions.MemberRating{}),
			facts:  []string{"**Wins:** 3", "**Win rate:** 60%", "**Streak:** 2 wins in a row · **Longest:** 3", "Alice vs Bob: **2–1**", "Alice vs Connect N: **1–1**"},
			absent: []string{"you", "<@"}},
		{name: "stats-no-streak", msg: render.Stats(en, false, "Bob", sessions.Stats{Matches: 3, Wins: 1, Losses: 2, RoundsWon: 2, RoundsLost: 4, BestStreak: 1}, sessions.Stats{}, &sessions.PairRecord{Losses: 2}, "Alice", sessions.MemberRating{}),
			facts:  []string{"**Streak:** – · **Longest:** 1 win in a row", "Bob vs Alice: **0–2**"},
			absent: []string{"you", "vs Connect N"}},
		{name: "leaderboard", msg: render.Leaderboard(en, false, []sessions.Stats{{UserID: "1400000000000000001", Matches: 4, Wins: 3, Losses: 1, RoundsWon: 6, RoundsLost: 2}, {UserID: "1400000000000000002", Matches: 4, Wins: 1, Losses: 3, RoundsWon: 2, RoundsLost: 6}, {UserID: "1400000000000000003", Matches: 12, Wins: 0, Losses: 12}, {UserID: "1400000000000000004", Matches: 1, Wins: 0, Losses: 1}}),
			facts: []string{"🥇 <@1400000000000000001> — **3–1** · 75%\n", "🥈 <@1400000000000000002> — **1–3** · 25%\n", "🥉 <@1400000000000000003> — **0–12** · 0%\n", "**4.** <@1400000000000000004> — **0–1** · 0%\n",
				"Wins–losses and win rate against members; ranked by wins, then win rate, then rounds won − lost."},
			absent: []string{"Rounds:", "Win rate:", "played"}},
		{name: "help", msg: renderHelp(en, 5*time.Minute).Data,
			facts:   []string{"How to play Connect N", "A turn lasts **5 minutes** here", "leave `opponent` out", "`/connectn challenge opponent:@member`"},
			absent:  []string{"`/connectn board`", "`level`"},
			buttons: []int{3, 2}},
		{name: "help-commands", msg: helpMessage(en, 5*time.Minute, pageCommands),
			facts: []string{"Connect N help · Commands", "`/connectn board`", "`/connectn forget-me`", "**Where:**",
				"🔴 🟡 discs · 🟦 empty · ⬇️ over the column of the last disc · 🟥 🟨 the winning line"},
			buttons: []int{3, 2}},
		{name: "help-bot", msg: helpMessage(en, 5*time.Minute, pageBot),
			facts: []string{"Connect N help · Playing the bot", "`level`", "- Perfect: unbeatable where the solver settles the board", "**Rematch**", "**Picture**",
				"**Analysis**", "`/connectn analyze moves:4453`", "`/connectn puzzle`"},
			buttons: []int{3, 2}},
		{name: "help-ratings", msg: helpMessage(en, 5*time.Minute, pageRatings),
			facts:   []string{"Connect N help · Ratings", "Glicko-2", "After 5 rated matches", "at most 3 rated matches", "`/connectn stats [user]`", "`/connectn leaderboard`"},
			buttons: []int{3, 2}},
		{name: "help-admins", msg: helpMessage(en, 5*time.Minute, pageAdmins),
			facts:   []string{"Connect N help · Admins", "`/connectn-admin`", "`/connectn-admin tournament create`"},
			buttons: []int{3, 2}},
	}
}

// TestRenderGolden compares the rendered messages with testdata/render
// (refresh with -update) and checks the facts each promises.
func TestRenderGolden(t *testing.T) {
	for _, tc := range goldenCases(t) {
		t.Run(tc.name, func(t *testing.T) { checkGolden(t, tc) })
	}
}

// checkGolden compares tc's message with its golden file under
// testdata/render (rewritten with -update) and checks the facts it
// promises, its buttons and Discord's limits.
func checkGolden(t *testing.T, tc goldenCase) {
	t.Helper()
	dir := filepath.Join("testdata", "render")
	resp := &discordgo.InteractionResponse{Type: discordgo.InteractionResponseChannelMessageWithSource, Data: tc.msg}
	got, err := json.MarshalIndent(resp, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	all := readable(tc.msg)
	for _, f := range tc.facts {
		if !strings.Contains(all, f) {
			t.Errorf("lacks %q:\n%s", f, all)
		}
	}
	for _, f := range tc.absent {
		if strings.Contains(all, f) {
			t.Errorf("holds %q:\n%s", f, all)
		}
	}
	for _, f := range tc.once {
		if n := strings.Count(all, f); n != 1 {
			t.Errorf("holds %q %d times, want once:\n%s", f, n, all)
		}
	}
	var rows []int
	for _, row := range tc.msg.Components {
		r, _ := wire.Component[discordgo.ActionsRow](row)
		rows = append(rows, len(r.Components))
	}
	if fmt.Sprint(rows) != fmt.Sprint(tc.buttons) {
		t.Errorf("rows of %v buttons, want %v", rows, tc.buttons)
	}
	if bad := checkLimits(tc.msg); len(bad) > 0 {
		t.Errorf("breaks Discord's limits: %v", bad)
	}
	path := filepath.Join(dir, tc.name+".golden.json")
	if *update {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("differs from %s:\ngot:\n%s", path, got)
	}
}
