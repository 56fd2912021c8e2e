package render

import (
	"strconv"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot/internal/customid"
	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/locale"
	"github.com/connectn/connectn/puzzle"
	"github.com/connectn/connectn/sessions"
)

// The puzzles' messages: an attempt as its member sees it (privately),
// the daily puzzle's public post, the leaderboard by puzzle rating and the
// puzzle line of /connectn stats. Every puzzle is drawn in the classic
// theme: its colours name the players in the task ("🔴 to play").
//
// The custom_ids of their buttons:
//
//	cn:pz:<attempt>:<ply>:<column>   a column, at the attempt's ply (its moves so far)
//	cn:pzhint:<attempt>:<ply>        the Hint button
//	cn:pznext                        Next puzzle, under a finished attempt
//	cn:pzday:<yyyymmdd>              Solve, under a daily post

// PuzzleView is an attempt at a puzzle as its member sees it.
type PuzzleView struct {
	Puzzle puzzle.Puzzle
	// Rating is the puzzle's rating when the attempt started.
	Rating float64
	// Attempt is the attempt's ID, which its buttons name.
	Attempt int64
	// Moves are the attempt's moves so far (zero-based columns from the
	// puzzle's position: the member's and the replies).
	Moves []int
	// Replied is set when the last of Moves is the solver's reply to the
	// member's correct move, to be announced.
	Replied bool
	// Hint, when set, is shown (the member asked for it).
	Hint *puzzle.Hint
	// Result is how the attempt stands; for a failed one Wrong is the
	// member's wrong move (the last of Moves), Step its judgement, and
	// Refutation and Solution the lines that say why.
	Result     sessions.AttemptResult
	Wrong      int
	Step       puzzle.Step
	Refutation []int
	Solution   []int
	// Change is what the finish did to the ratings (nil: not rated); First
	// says whether the attempt was the member's first at the puzzle;
	// Streak is the member's streak after the finish.
	Change *sessions.PuzzleRatingChange
	First  bool
	Streak int
}

// puzzleTheme is the theme puzzles are drawn in.
var puzzleTheme = Themes[0]

// PuzzleTask says the task of p: "🔴 to play and win in 5", "🟡 to play:
// find the only move that does not lose", or the defence's.
func PuzzleTask(l *locale.Localizer, p puzzle.Puzzle) string {
	disc := puzzleTheme.Disc[p.ToMove()]
	switch p.Kind {
	case puzzle.WinIn:
		return l.N("puzzle_task_win", p.N, "Disc", disc)
	case puzzle.Defence:
		return l.N("puzzle_task_defence", p.N, "Disc", disc)
	}
	return l.T("puzzle_task_only", "Disc", disc)
}

// PuzzleTheme names p's task and board, as a theme: "win in 5 · 6 × 7".
func PuzzleTheme(l *locale.Localizer, p puzzle.Puzzle) string {
	var task string
	switch p.Kind {
	case puzzle.WinIn:
		task = l.N("puzzle_theme_win", p.N)
	case puzzle.Defence:
		task = l.T("puzzle_theme_defence")
	default:
		task = l.T("puzzle_theme_only")
	}
	return task + " · " + l.T("puzzle_board", "Rows", p.Config.Rows, "Columns", p.Config.Columns)
}

// puzzleFooter is the footer of an attempt: its themes, its rating, and
// where it comes from when a match of the server gave it.
func puzzleFooter(l *locale.Localizer, p puzzle.Puzzle, r float64) string {
	out := l.T("puzzle_footer", "Theme", PuzzleTheme(l, p), "Rating", ratingValue(r))
	if src := p.Source; src.Kind == puzzle.FromMatch {
		out += "\n" + l.T("puzzle_from_match", "Player1", EscapeName(l, src.Players[0]), "Player2", EscapeName(l, src.Players[1]),
			"Round", src.Round, "Move", src.Move)
	}
	return out
}

// LineText writes a line of moves from a position where player moves
// first: "🔴 4 · 🟡 3 · 🔴 4", each disc with its column's label.
func LineText(columns int, player game.Player, moves []int) string {
	parts := make([]string, len(moves))
	for k, c := range moves {
		parts[k] = puzzleTheme.Disc[player] + " " + ColumnLabel(c, columns)
		player = player.Other()
	}
	return strings.Join(parts, " · ")
}

// Puzzle draws an attempt: the task, the board after the attempt's
// moves, what the last move did, and the buttons: a column each and Hint
// while it is open, Next puzzle once it has ended.
func Puzzle(l *locale.Localizer, v PuzzleView) *Message {
	p := v.Puzzle
	start, _ := p.MoveList()
	all := append(append([]int(nil), start...), v.Moves...)
	r := PositionRound(p.Config, game.Player1, all)
	member := p.ToMove()
	cols := p.Config.Columns
	var lines []string
	switch v.Result {
	case sessions.AttemptSolved:
		lines = append(lines, l.T("puzzle_solved"))
		if len(v.Moves) > 0 {
			lines[0] = Sentences(l, lines[0], l.T("puzzle_solved_by", "Disc", puzzleTheme.Disc[member], "Column", ColumnLabel(v.Moves[len(v.Moves)-1], cols)))
		}
	case sessions.AttemptFailed:
		lines = append(lines, wrongLine(l, v, cols))
		if len(v.Refutation) > 0 {
			lines = append(lines, l.T("puzzle_refutation", "Line", LineText(cols, member.Other(), v.Refutation)))
		}
		if len(v.Solution) > 0 {
			// The solution starts from the position before the wrong
			// move: the member's turn.
			lines = append(lines, l.T("puzzle_solution", "Line", "||"+LineText(cols, member, v.Solution)+"||"))
		}
	default:
		if v.Replied && len(v.Moves) >= 2 {
			lines = append(lines, l.T("puzzle_correct", "Disc", puzzleTheme.Disc[member.Other()],
				"Column", ColumnLabel(v.Moves[len(v.Moves)-1], cols)))
		}
		// The task says whose move it is; after a reply, how far the win
		// still is.
		if p.Kind == puzzle.WinIn && len(v.Moves) > 0 {
			lines = append(lines, l.N("puzzle_left", p.N-len(v.Moves)/2, "Disc", puzzleTheme.Disc[member]))
		}
	}
	if v.Hint != nil {
		lines = append(lines, l.T("puzzle_hint", "Area", hintText(l, *v.Hint, cols)))
	}
	if v.Result != sessions.AttemptOpen {
		lines = append(lines, resultLines(l, v)...)
	}
	desc := PuzzleTask(l, p) + "\n\n" + Grid(puzzleTheme, r)
	if len(lines) > 0 {
		desc += "\n" + strings.Join(lines, "\n")
	}
	color := puzzleTheme.ColorOf(member)
	switch v.Result {
	case sessions.AttemptSolved:
		color = 0x57F287
	case sessions.AttemptFailed:
		color = 0xED4245
	}
	return &Message{
		Flags:           discordgo.MessageFlagsEphemeral,
		AllowedMentions: NoMentions(),
		Embeds: []*discordgo.MessageEmbed{{
			Title:       l.T("puzzle_title"),
			Description: desc,
			Color:       color,
			Footer:      &discordgo.MessageEmbedFooter{Text: puzzleFooter(l, p, v.Rating)},
		}},
		Components: puzzleButtons(l, v, r),
	}
}

// wrongLine says why the member's move was wrong, from its value: a win
// too slow, a draw, a loss (sooner than the best defence, for a defence).
func wrongLine(l *locale.Localizer, v PuzzleView, cols int) string {
	col := ColumnLabel(v.Wrong, cols)
	val := v.Step.Value
	switch {
	case !val.Settled:
		return l.T("puzzle_wrong", "Column", col)
	case val.Score > 0:
		return l.N("puzzle_wrong_slow", val.In, "Column", col)
	case val.Score == 0:
		return l.T("puzzle_wrong_draw", "Column", col)
	}
	return l.N("puzzle_wrong_loss", val.In, "Column", col)
}

// resultLines are the lines under a finished attempt: the rating's change
// (or why it did not change) and the streak.
func resultLines(l *locale.Localizer, v PuzzleView) []string {
	var out []string
	switch {
	case v.Change != nil:
		out = append(out, l.T("puzzle_rating_change", "Before", ratingValue(v.Change.MemberBefore.R),
			"After", ratingValue(v.Change.MemberAfter.R), "Delta", ratingDelta(v.Change.MemberBefore.R, v.Change.MemberAfter.R)))
	case !v.First:
		out = append(out, l.T("puzzle_unrated"))
	}
	if v.Streak > 0 {
		out = append(out, l.N("puzzle_streak", v.Streak))
	}
	return out
}

// hintText words a hint: "on the left (columns 1–2)".
func hintText(l *locale.Localizer, h puzzle.Hint, cols int) string {
	id := map[puzzle.Area]string{puzzle.Left: "puzzle_area_left", puzzle.Centre: "puzzle_area_centre", puzzle.Right: "puzzle_area_right"}[h.Area]
	if id == "" {
		id = "puzzle_area_centre"
	}
	return l.T(id, "From", ColumnLabel(h.First, cols), "To", ColumnLabel(h.Last, cols))
}

// puzzleButtons are an open attempt's column buttons (disabled when full)
// on balanced rows, and Hint on a row of its own (disabled once shown);
// Next puzzle alone under a finished one.
func puzzleButtons(l *locale.Localizer, v PuzzleView, r *game.Round) []discordgo.MessageComponent {
	if v.Result != sessions.AttemptOpen {
		return []discordgo.MessageComponent{discordgo.ActionsRow{Components: []discordgo.MessageComponent{
			discordgo.Button{Label: l.T("button_next_puzzle"), Style: discordgo.PrimaryButton, Emoji: &discordgo.ComponentEmoji{Name: "🧩"},
				CustomID: customid.New("pznext").String()},
		}}}
	}
	cols := r.Columns()
	ply := int64(len(v.Moves))
	rows := (cols + rowButtons - 1) / rowButtons
	var out []discordgo.MessageComponent
	for k, from := 0, 0; k < rows; k++ {
		to := from + cols/rows
		if k < cols%rows {
			to++
		}
		var row []discordgo.MessageComponent
		for c := from; c < to; c++ {
			row = append(row, discordgo.Button{Label: ColumnLabel(c, cols), Style: discordgo.SecondaryButton, Disabled: !r.CanDrop(c),
				CustomID: customid.New("pz", v.Attempt, ply, int64(c+1)).String()})
		}
		out = append(out, discordgo.ActionsRow{Components: row})
		from = to
	}
	return append(out, discordgo.ActionsRow{Components: []discordgo.MessageComponent{
		discordgo.Button{Label: l.T("button_hint"), Style: discordgo.SecondaryButton, Emoji: &discordgo.ComponentEmoji{Name: "💡"},
			Disabled: v.Hint != nil, CustomID: customid.New("pzhint", v.Attempt, ply).String()},
	}})
}

// DayNumber is a day ("2006-01-02") as the number a daily post's Solve
// button names (20060102), or 0 for anything else.
func DayNumber(day string) int64 {
	t, err := time.Parse(time.DateOnly, day)
	if err != nil {
		return 0
	}
	return int64(t.Year()*10000 + int(t.Month())*100 + t.Day())
}

// DayOfNumber is DayNumber's inverse: "" for a number that names no day.
func DayOfNumber(n int64) string {
	t := time.Date(int(n/10000), time.Month(n/100%100), int(n%100), 0, 0, 0, 0, time.UTC)
	if DayNumber(t.Format(time.DateOnly)) != n {
		return ""
	}
	return t.Format(time.DateOnly)
}

// DailyView is a day's public post of the daily puzzle.
type DailyView struct {
	Puzzle puzzle.Puzzle
	Rating float64
	// Day is the server's date of the post, and At its time (shown as a
	// Discord timestamp, in each reader's own format).
	Day string
	At  time.Time
	// Solvers counts the members who solved it from the post.
	Solvers int
	// Previous, when set, is the previous post's puzzle, whose solution
	// the post reveals.
	Previous *puzzle.Puzzle
}

// DailyPost draws the daily puzzle's post: the date, the task, the
// position, how many members solved it, the previous day's solution
// (behind a spoiler), and the Solve button, which starts it privately.
func DailyPost(l *locale.Localizer, v DailyView) *Message {
	p := v.Puzzle
	start, _ := p.MoveList()
	r := PositionRound(p.Config, game.Player1, start)
	lines := []string{"<t:" + strconv.FormatInt(v.At.Unix(), 10) + ":D>", "", PuzzleTask(l, p), "", Grid(puzzleTheme, r)}
	if v.Solvers > 0 {
		lines = append(lines, l.N("daily_solvers", v.Solvers))
	} else {
		lines = append(lines, l.T("daily_solvers_none"))
	}
	if q := v.Previous; q != nil {
		lines = append(lines, "", l.T("daily_previous", "Task", PuzzleTask(l, *q),
			"Solution", "||"+puzzleTheme.Disc[q.ToMove()]+" "+ColumnLabel(q.Solution, q.Config.Columns)+"||"))
	}
	return &Message{
		AllowedMentions: NoMentions(),
		Embeds: []*discordgo.MessageEmbed{{
			Title:       l.T("daily_title"),
			Description: strings.Join(lines, "\n"),
			Color:       puzzleTheme.ColorOf(p.ToMove()),
			Footer:      &discordgo.MessageEmbedFooter{Text: puzzleFooter(l, p, v.Rating) + "\n" + l.T("daily_footer")},
		}},
		Components: []discordgo.MessageComponent{discordgo.ActionsRow{Components: []discordgo.MessageComponent{
			discordgo.Button{Label: l.T("button_solve"), Style: discordgo.PrimaryButton, Emoji: &discordgo.ComponentEmoji{Name: "🧩"},
				CustomID: customid.New("pzday", DayNumber(v.Day)).String()},
		}}},
	}
}

// PuzzleLeaderboard draws the ranking by puzzle rating: "🥇 @Alice —
// 1612 · 14/20", rating and puzzles solved of those rated, with the rule
// under it.
func PuzzleLeaderboard(l *locale.Localizer, top []sessions.PuzzlePlayer) *Message {
	var lines []string
	if len(top) == 0 {
		lines = append(lines, l.T("leaderboard_puzzles_empty"))
	}
	for n, p := range top {
		rank := l.T("leaderboard_rank", "Rank", n+1)
		if n < len(medals) {
			rank = medals[n]
		}
		lines = append(lines, l.T("leaderboard_puzzles_row", "Rank", rank, "Member", Mention(p.UserID),
			"Rating", ratingValue(p.R), "Solved", p.Solved, "Rated", p.Rated))
	}
	return &Message{
		AllowedMentions: NoMentions(),
		Embeds: []*discordgo.MessageEmbed{{
			Title:       l.T("leaderboard_puzzles_title"),
			Description: strings.Join(lines, "\n") + "\n\n" + l.T("leaderboard_puzzles_footer", "Min", sessions.MinPuzzleAttempts),
			Color:       Themes[0].ColorOf(0),
		}},
		Components: []discordgo.MessageComponent{},
	}
}

// AddPuzzleStats adds the member's puzzle record to the stats message
// msg (Stats's), as its last line, when they finished a rated attempt.
func AddPuzzleStats(l *locale.Localizer, msg *Message, p sessions.PuzzlePlayer) {
	if p.Rated == 0 || len(msg.Embeds) == 0 {
		return
	}
	msg.Embeds[0].Description += "\n" + l.N("stats_puzzles", p.Rated, "Rating", ratingValue(p.R), "Solved", p.Solved,
		"Best", p.BestStreak)
}
