package bot_test

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot/discordtest"
	"github.com/connectn/connectn/bot/internal/customid"
	"github.com/connectn/connectn/bot/internal/render"
	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/locale"
	"github.com/connectn/connectn/puzzle"
	"github.com/connectn/connectn/sessions"
)

// TestPuzzleRenders plays the puzzles through the fake Discord, in English
// and in German, and checks what each of their messages promises: a fresh
// /connectn puzzle (its task, board and buttons are the stored attempt's),
// the answer to a correct move (the reply it names is the stored one, a
// longest defence), a failed attempt (the refutation it names wins for the
// opponent as fast as it says), the daily post with its count (the count
// is the number of members who solved it from the post, not of attempts)
// and /connectn leaderboard by:puzzles (its members in the order of their
// ratings, with their solved and rated puzzles). When CONNECTN_RENDERS
// names a folder, it also writes those messages there as JSON for
// discord-look, <lang>-<n>-<name>.json, and names.json (the members'
// names, for discord-look --names), making the folder if need be.
func TestPuzzleRenders(t *testing.T) {
	dir := os.Getenv("CONNECTN_RENDERS")
	dana := user{ID: "1400000000000000004", Username: "dana", GlobalName: "Dana"}
	members := []user{alice, bob, carol, dana}
	if dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		names := map[string]string{}
		for _, u := range members {
			names[u.ID] = u.GlobalName
		}
		b, _ := json.MarshalIndent(names, "", "  ")
		if err := os.WriteFile(filepath.Join(dir, "names.json"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, lang := range []string{"en", "de"} {
		t.Run(lang, func(t *testing.T) {
			r := &pzScene{t: t, e: newPuzzleEnv(t), lang: lang, l: locale.Default().Localizer(lang), dir: dir}
			if lang == "en" {
				r.lang = "en-US"
			}
			r.e.withBotToken(true)
			r.fresh(dana)
			r.correct(alice)
			r.failed(carol)
			r.daily(members)
			r.leaderboard(members)
		})
	}
}

// pzScene is one language's run of TestPuzzleRenders: every interaction
// comes from a member whose client, and whose server, speak lang.
type pzScene struct {
	t    *testing.T
	e    *env
	lang string // the Discord locale of the members and the server
	l    *locale.Localizer
	dir  string // "": write nothing
}

// as is the envelope of a new interaction by u, in the scene's language.
func (r *pzScene) as(u user) discordtest.Envelope {
	en := from(u)
	en.Locale, en.GuildLocale = r.lang, r.lang
	return en
}

// write writes the things a render shows (messages, interaction
// responses, and raw interaction payloads, which discord-look does not
// draw but reads names and "used /connectn …" from) as
// <lang>-<name>.json.
func (r *pzScene) write(name string, things ...any) {
	r.t.Helper()
	if r.dir == "" {
		return
	}
	// discordgo writes no components of a message (its field is json:"-").
	type shown struct {
		*discordgo.Message
		Components []discordgo.MessageComponent `json:"components"`
	}
	var out []any
	for _, x := range things {
		if m, ok := x.(*discordgo.Message); ok {
			// Without the fake's author: discord-look --author names the bot.
			c := *m
			c.Author = nil
			x = shown{&c, m.Components}
		}
		out = append(out, x)
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		r.t.Fatal(err)
	}
	lang, _, _ := strings.Cut(r.lang, "-")
	if err := os.WriteFile(filepath.Join(r.dir, lang+"-"+name+".json"), b, 0o644); err != nil {
		r.t.Fatal(err)
	}
}

// click clicks customID on msg as u, and returns the message as it reads
// after it.
func (r *pzScene) click(u user, msg *discordgo.Message, customID string) *discordgo.Message {
	r.t.Helper()
	r.e.send(discordtest.Click(r.as(u), msg, customID))
	return r.e.message(msg.ID)
}

// move plays column c (zero-based) of attempt a at ply on msg as u.
func (r *pzScene) move(u user, msg *discordgo.Message, a int64, ply, c int) *discordgo.Message {
	r.t.Helper()
	return r.click(u, msg, customid.New("pz", a, int64(ply), int64(c+1)).String())
}

// canvas is u's /connectn puzzle, the private message later attempts are
// played on (a click's custom_id names its attempt, not its message).
func (r *pzScene) canvas(u user) *discordgo.Message {
	r.t.Helper()
	mustPrivate(r.t, r.e.send(discordtest.Slash(r.as(u), "connectn", "puzzle")), "")
	return r.e.lastPrivate()
}

// mustShow fails unless the board in text is the position moves reach
// from the puzzle's.
func (r *pzScene) mustShow(what, text string, p puzzle.Puzzle, moves []int) {
	r.t.Helper()
	grid := render.Grid(render.Themes[0], render.PositionRound(p.Config, game.Player1, positionOf(r.t, p, game.MovesCode(moves))))
	if !strings.Contains(text, grid) {
		r.t.Errorf("%s: the board is not the attempt's position %v:\n%s\nwant the grid\n%s", what, moves, text, grid)
	}
}

// fresh: 1-puzzle, u's /connectn puzzle as it answers: the task, the
// board and the rating of the attempt it stored, a button per column and
// Hint.
func (r *pzScene) fresh(u user) {
	t := r.t
	body := discordtest.Slash(r.as(u), "connectn", "puzzle")
	resp := r.e.send(body)
	mustPrivate(t, resp, "")
	msg := r.e.lastPrivate()
	a := r.e.attempt(attemptOfButtons(t, msg))
	p, err := puzzle.Parse(a.Puzzle)
	if err != nil {
		t.Fatal(err)
	}
	got := messageText(msg)
	mustContain(t, "the fresh puzzle", got, r.l.T("puzzle_title"), render.PuzzleTask(r.l, p))
	footer := r.l.T("puzzle_footer", "Theme", render.PuzzleTheme(r.l, p), "Rating", strconv.Itoa(int(math.Round(a.PuzzleRating.R))))
	if f := msg.Embeds[0].Footer; f == nil || f.Text != footer {
		t.Errorf("the fresh puzzle's footer = %+v, want %q: its theme and the rating stored with the attempt", f, footer)
	}
	r.mustShow("the fresh puzzle", got, p, nil)
	want := []string{}
	for c := range p.Config.Columns {
		want = append(want, render.ColumnLabel(c, p.Config.Columns))
	}
	if l := labels(msg.Components); l != strings.Join(append(want, r.l.T("button_hint")), " ") {
		t.Errorf("buttons of the fresh puzzle = %q, want the %d columns and %s", l, p.Config.Columns, r.l.T("button_hint"))
	}
	if a.UserID != u.ID || !a.First || a.Result != sessions.AttemptOpen {
		t.Errorf("the fresh puzzle's attempt = %+v, want %s's first, open", a, u.Username)
	}
	r.write("1-puzzle", json.RawMessage(body), resp)
}

// correct: 2-correct, the answer to a correct first move of a win in 3:
// the reply it names is the one stored, a longest defence, and it says
// how far the win still is.
func (r *pzScene) correct(u user) {
	t := r.t
	// The win in 3 with the fewest discs (the most board to read) whose
	// longest defences are all off the solution's column, so that the
	// reply's column tells apart the reply and the move.
	var wins []puzzle.Puzzle
	for _, q := range puzzle.Starter() {
		if q.Kind == puzzle.WinIn && q.N == 3 && q.Config.Columns == 7 && q.Config.Rows == 6 {
			wins = append(wins, q)
		}
	}
	slices.SortStableFunc(wins, func(a, b puzzle.Puzzle) int { return len(a.Moves) - len(b.Moves) })
	var p puzzle.Puzzle
	for _, q := range wins {
		if !slices.Contains(longestDefences(t, q, q.Solution), q.Solution) {
			p = q
			break
		}
	}
	if p.ID == "" {
		t.Fatal("no win in 3 on 6 × 7 in the starter set whose defence leaves the solution's column")
	}
	msg := r.canvas(u)
	a := r.e.startAt(u, p, "")
	after := r.move(u, msg, a.ID, 0, p.Solution)
	now := r.e.attempt(a.ID)
	if now.Result != sessions.AttemptOpen || len(now.Moves) != 2 {
		t.Fatalf("after the solution's first move the attempt is %+v, want open with the move and a reply", now)
	}
	moves, _ := decodeColumns(now.Moves)
	reply := moves[1]
	member := p.ToMove()
	got := messageText(after)
	mustContain(t, "the answer to a correct move", got,
		r.l.T("puzzle_correct", "Disc", discs[member.Other()], "Column", strconv.Itoa(reply+1)),
		r.l.N("puzzle_left", p.N-1, "Disc", discs[member]))
	r.mustShow("the answer to a correct move", got, p, moves)
	if best := longestDefences(t, p, p.Solution); !slices.Contains(best, reply) {
		t.Errorf("the reply named, column %d, is none of the longest defences %v", reply+1, best)
	}
	if l := labels(after.Components); !strings.HasSuffix(l, r.l.T("button_hint")) {
		t.Errorf("buttons after a correct move = %q, want the columns and Hint", l)
	}
	r.write("2-correct", after)
}

// failed: 3-failed, a wrong first move that loses: it names the column
// and how soon it loses, and the refutation it shows is the opponent's
// line from there that wins that soon; the solution, under a spoiler,
// starts with the puzzle's solution; the rating goes down.
func (r *pzScene) failed(u user) {
	t := r.t
	// Of the wins in 2 or 3, the wrong move that loses latest within three
	// discs of the opponent: a refutation of a few plies, read at a glance
	// (a line of 17 plies wraps over two lines).
	var p puzzle.Puzzle
	var start []int
	wrong, in := -1, 0
	for _, q := range puzzle.Starter() {
		if q.Kind != puzzle.WinIn || q.N > 3 || q.Config.Columns != 7 || q.Config.Rows != 6 {
			continue
		}
		start, _ = q.MoveList()
		for _, v := range evaluate(t, q.Config, start) {
			if v.Legal && v.Column != q.Solution && v.Score < 0 && v.In > in && v.In <= 3 {
				p, wrong, in = q, v.Column, v.In
			}
		}
	}
	if wrong < 0 {
		t.Fatal("no win in 2 or 3 of the starter set has a losing move")
	}
	start, _ = p.MoveList()
	msg := r.canvas(u)
	a := r.e.startAt(u, p, "")
	after := r.move(u, msg, a.ID, 0, wrong)
	done := r.e.attempt(a.ID)
	if done.Result != sessions.AttemptFailed || done.Change == nil || done.Change.MemberAfter.R >= done.Change.MemberBefore.R {
		t.Fatalf("after a wrong move the attempt is %+v, want failed and rated down", done)
	}
	member := p.ToMove()
	got := messageText(after)
	mustContain(t, "the failed attempt", got, r.l.N("puzzle_wrong_loss", in, "Column", strconv.Itoa(wrong+1)),
		"||"+discs[member]+" "+strconv.Itoa(p.Solution+1))
	// The refutation: the opponent's discs first, alternately, to the
	// opponent's win in the number of discs said.
	prefix := r.l.T("puzzle_refutation", "Line", "")
	var line []int
	for _, ln := range strings.Split(got, "\n") {
		rest, ok := strings.CutPrefix(ln, prefix)
		if !ok {
			continue
		}
		who := member.Other()
		for _, part := range strings.Split(rest, " · ") {
			disc, col, _ := strings.Cut(part, " ")
			c, err := strconv.Atoi(col)
			if disc != discs[who] || err != nil {
				t.Fatalf("the refutation %q: %q is not %s and a column", rest, part, discs[who])
			}
			line = append(line, c-1)
			who = who.Other()
		}
	}
	if len(line) != 2*in-1 {
		t.Fatalf("the refutation %v has %d plies, want %d: the opponent's %d discs to the win", line, len(line), 2*in-1, in)
	}
	m, _ := game.NewMatch(p.Config)
	for _, c := range append(append(append([]int(nil), start...), wrong), line...) {
		if _, err := m.Play(m.ToMove(), c); err != nil {
			t.Fatalf("the refutation %v cannot be played: %v", line, err)
		}
	}
	if m.Winner() != member.Other() {
		t.Errorf("the refutation %v (column %d first) does not win for the opponent", line, line[0]+1)
	}
	before, now := int(math.Round(done.Change.MemberBefore.R)), int(math.Round(done.Change.MemberAfter.R))
	mustContain(t, "the failed attempt", got, r.l.T("puzzle_rating_change", "Before", strconv.Itoa(before), "After", strconv.Itoa(now),
		"Delta", "−"+strconv.Itoa(before-now)))
	r.mustShow("the failed attempt", got, p, []int{wrong})
	if l := labels(after.Components); l != r.l.T("button_next_puzzle") {
		t.Errorf("buttons after a wrong move = %q, want %s alone", l, r.l.T("button_next_puzzle"))
	}
	r.write("3-failed", after)
}

// daily: 4-daily, the daily post of the second day (the first day's
// answer under a spoiler) after three members solved it from the post (one
// of them twice) and a fourth failed: its count is three, the members
// who solved it, as the store counts them.
func (r *pzScene) daily(members []user) {
	t, e := r.t, r.e
	admin := r.as(carol)
	admin.MemberPermissions = adminPerms
	mustPrivate(t, e.send(groupSlash(admin, "settings", "daily-puzzle", dailyArgs(channelID, "08:00", "")...)), "")
	e.clock.Advance(14 * time.Hour) // 08:00 the next day
	e.runDue()
	first := e.clock.Now().Format(time.DateOnly)
	e.clock.Advance(24 * time.Hour)
	e.runDue()
	day := e.clock.Now().Format(time.DateOnly)
	posts := e.dailyPosts()
	if len(posts) != 2 {
		t.Fatalf("%d daily posts after two days, want 2", len(posts))
	}
	post := posts[1]
	solve := customid.New("pzday", render.DayNumber(day)).String()
	if b := buttons(post.Components); len(b) != 1 || b[0].CustomID != solve || b[0].Label != r.l.T("button_solve") {
		t.Fatalf("the daily post's buttons = %q, want %s alone", labels(post.Components), r.l.T("button_solve"))
	}
	solvers := map[string]bool{}
	for k, u := range []user{members[0], members[1], members[0], members[2], members[3]} {
		r.click(u, post, solve)
		msg := e.lastPrivate()
		id := attemptOfButtons(t, msg)
		if k == 4 { // the last fails
			a := e.attempt(id)
			p, _ := puzzle.Parse(a.Puzzle)
			r.move(u, msg, id, 0, wrongColumn(p))
			if a = e.attempt(id); a.Result != sessions.AttemptFailed {
				t.Fatalf("a wrong first move on the daily puzzle left %+v", a)
			}
			continue
		}
		r.solve(u, msg, id)
		solvers[u.ID] = true
	}
	e.clock.Advance(sessions.DailyEditEvery)
	e.runDue()
	stored := e.posted(day)
	if stored.Solvers != len(solvers) {
		t.Errorf("the store counts %d solvers of the daily post, want %d", stored.Solvers, len(solvers))
	}
	post = e.message(post.ID)
	got := messageText(post)
	prev, _ := puzzle.Parse(e.posted(first).Puzzle)
	p, _ := puzzle.Parse(stored.Puzzle)
	mustContain(t, "the daily post", got, r.l.T("daily_title"), render.PuzzleTask(r.l, p), r.l.N("daily_solvers", len(solvers)),
		r.l.T("daily_previous", "Task", render.PuzzleTask(r.l, prev), "Solution", "||"+discs[prev.ToMove()]+" "+strconv.Itoa(prev.Solution+1)+"||"))
	r.mustShow("the daily post", got, p, nil)
	r.write("4-daily", post)
}

// solve plays attempt id on msg as u to the end with the solver's best
// moves.
func (r *pzScene) solve(u user, msg *discordgo.Message, id int64) {
	r.t.Helper()
	for ply := 0; ; ply += 2 {
		a := r.e.attempt(id)
		if a.Result != sessions.AttemptOpen {
			if a.Result != sessions.AttemptSolved {
				r.t.Fatalf("attempt %d ended %s", id, a.Result)
			}
			return
		}
		p, _ := puzzle.Parse(a.Puzzle)
		col := p.Solution
		if ply > 0 {
			bestIn := 1 << 30
			for _, v := range evaluate(r.t, p.Config, positionOf(r.t, p, a.Moves)) {
				if v.Legal && v.Score > 0 && v.In < bestIn {
					col, bestIn = v.Column, v.In
				}
			}
		}
		r.move(u, msg, id, ply, col)
	}
}

// leaderboard: 5-leaderboard, /connectn leaderboard by:puzzles once each
// member has the rated attempts it takes (each solves or fails a few more
// only-move puzzles, by a pattern of their own): its rows are the members
// in the order of their puzzle ratings, each with their rating and their
// solved and rated puzzles as stored.
func (r *pzScene) leaderboard(members []user) {
	t, e := r.t, r.e
	patterns := map[string]string{aliceID: "SSSSSS", bobID: "SFSSFS", carolID: "FSFFSF", members[3].ID: "SSFSSF"}
	for _, u := range members {
		msg := r.canvas(u)
		seen, _ := e.store.SeenPuzzles(context.Background(), u.ID)
		pattern := patterns[u.ID]
		for _, p := range puzzle.Starter() {
			if pattern == "" {
				break
			}
			if p.Kind != puzzle.OnlyMove || p.Config.Columns != 7 || seen[p.ID] {
				continue
			}
			a := e.startAt(u, p, "")
			col := p.Solution
			if pattern[0] == 'F' {
				col = wrongColumn(p)
			}
			r.move(u, msg, a.ID, 0, col)
			pattern = pattern[1:]
		}
		if pattern != "" {
			t.Fatalf("too few only-move puzzles for %s's pattern", u.Username)
		}
	}
	body := discordtest.Slash(r.as(bob), "connectn", "leaderboard", discordtest.StringArg("by", "puzzles"))
	resp := e.send(body)
	got := text(resp)
	var players []sessions.PuzzlePlayer
	for _, u := range members {
		pl, err := e.store.PuzzlePlayer(context.Background(), u.ID)
		if err != nil {
			t.Fatal(err)
		}
		if pl.Rated < sessions.MinPuzzleAttempts {
			t.Fatalf("%s has %d rated puzzles, fewer than the leaderboard's %d", u.Username, pl.Rated, sessions.MinPuzzleAttempts)
		}
		players = append(players, pl)
	}
	slices.SortFunc(players, func(a, b sessions.PuzzlePlayer) int {
		switch {
		case a.R > b.R:
			return -1
		case a.R < b.R:
			return 1
		}
		return 0
	})
	mustContain(t, "the leaderboard", got, r.l.T("leaderboard_puzzles_title"))
	last := -1
	for n, pl := range players {
		rank := []string{"🥇", "🥈", "🥉"}
		want := r.l.T("leaderboard_puzzles_row", "Rank", r.l.T("leaderboard_rank", "Rank", n+1), "Member", "<@"+pl.UserID+">",
			"Rating", strconv.Itoa(int(math.Round(pl.R))), "Solved", pl.Solved, "Rated", pl.Rated)
		if n < len(rank) {
			want = r.l.T("leaderboard_puzzles_row", "Rank", rank[n], "Member", "<@"+pl.UserID+">",
				"Rating", strconv.Itoa(int(math.Round(pl.R))), "Solved", pl.Solved, "Rated", pl.Rated)
		}
		at := strings.Index(got, want)
		if at < 0 || at < last {
			t.Errorf("the leaderboard lacks row %d, %q, after the row above it:\n%s", n+1, want, got)
		}
		last = at
	}
	r.write("5-leaderboard", json.RawMessage(body), resp)
}

// longestDefences returns the columns (zero-based) that delay the loss
// longest after the member plays move in p's position.
func longestDefences(t *testing.T, p puzzle.Puzzle, move int) []int {
	t.Helper()
	start, _ := p.MoveList()
	vals := evaluate(t, p.Config, append(start, move))
	longest := 0
	for _, v := range vals {
		if v.Legal && v.Score < 0 && v.In > longest {
			longest = v.In
		}
	}
	var out []int
	for _, v := range vals {
		if v.Legal && v.Score < 0 && v.In == longest {
			out = append(out, v.Column)
		}
	}
	return out
}

// wrongColumn returns the first column of p's position that can be
// played and is not its solution.
func wrongColumn(p puzzle.Puzzle) int {
	start, _ := p.MoveList()
	round := render.PositionRound(p.Config, game.Player1, start)
	for c := range p.Config.Columns {
		if c != p.Solution && round.CanDrop(c) {
			return c
		}
	}
	return -1
}

// decodeColumns reads moves in the game's notation.
func decodeColumns(s string) ([]int, bool) {
	var out []int
	for _, ch := range s {
		c, ok := game.ParseColumnCode(ch)
		if !ok {
			return nil, false
		}
		out = append(out, c)
	}
	return out, true
}
