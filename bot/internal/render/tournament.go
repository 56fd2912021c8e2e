package render

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot/internal/customid"
	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/locale"
	"github.com/connectn/connectn/sessions"
	"github.com/connectn/connectn/tournament"
)

// A tournament's messages in its channel: the sign-up (with Join and
// Leave), the pairings of each round, the standings (edited after every
// result) and the podium, and the private standings a member asks for.
// Each is a pure function of the tournament and a localizer.

// TournamentPublic returns the localizer of t's public messages.
func TournamentPublic(t *sessions.Tournament) *locale.Localizer {
	return locale.Default().Localizer(t.Settings.Locale)
}

// The colours of a tournament's messages: gold while it is open or runs,
// grey once it is over.
const (
	tournamentColor     = 0xF1C40F
	tournamentOverColor = ClosedColor
)

// maxListed is the most players the sign-up message names; the count says
// how many there are.
const maxListed = 60

// descriptionBudget is the most characters a tournament's embed
// description is given (Discord allows 4096, and 6000 for a whole
// message: the rest is left to the title, the footer and the legend).
const descriptionBudget = 3600

// TournamentName returns t's name as text that is safe in markdown, on
// one line.
func TournamentName(t *sessions.Tournament) string {
	return escapeText(strings.Join(strings.Fields(t.State.Config.Name), " "))
}

// escapeText escapes the markdown characters of s.
func escapeText(s string) string {
	var sb strings.Builder
	for _, c := range s {
		if strings.ContainsRune("\\*_~|<>[]()@`#", c) {
			sb.WriteByte('\\')
		}
		sb.WriteRune(c)
	}
	return sb.String()
}

// PlayerName returns the escaped display name of player id of t, in bold;
// a forgotten member reads as l's "a former player", in italics.
func PlayerName(l *locale.Localizer, t *sessions.Tournament, id string) string {
	if sessions.Forgotten(id) {
		return "*" + l.T("tournament_former_player") + "*"
	}
	return "**" + EscapeName(l, t.Names[id]) + "**"
}

// TournamentFormat says t's format in one line: "Swiss system · 5
// rounds", "Round robin", "Arena · 1 hour".
func TournamentFormat(l *locale.Localizer, t *sessions.Tournament) string {
	cfg := t.State.Config
	switch cfg.Format {
	case tournament.Swiss:
		if cfg.Rounds == 0 && len(t.State.Rounds) == 0 {
			return l.T("tournament_format_swiss_default")
		}
		return l.N("tournament_format_swiss", tournament.TotalRounds(t.State))
	case tournament.RoundRobin:
		if cfg.Double {
			return l.T("tournament_format_double_round_robin")
		}
		return l.T("tournament_format_round_robin")
	}
	return l.T("tournament_format_arena", "Duration", Duration(l, cfg.Duration))
}

// tournamentRules is the lines that say how t's games are played: the
// board, the turn time, whether they are rated.
func tournamentRules(l *locale.Localizer, t *sessions.Tournament, turn time.Duration) []string {
	cfg := t.State.Config.Game()
	lines := []string{l.T("tournament_board", "Connect", cfg.Connect, "Settings", settingsLine(l, cfg), "Turn", Duration(l, turn))}
	if t.State.Config.Rated && sessions.Rateable(cfg) {
		lines = append(lines, l.T("tournament_rated"))
	}
	return lines
}

// SignUp draws the sign-up message of t at now: its name, format and
// rules, when it starts, who may join and how many, the players who joined
// (their count, and their names up to maxListed, as many as fit), where it
// stands, and
// while members may join (t.Open), the Join and Leave buttons. turn is
// the time a turn lasts in its games.
func SignUp(l *locale.Localizer, t *sessions.Tournament, turn time.Duration, now time.Time) *Message {
	lines := []string{TournamentFormat(l, t)}
	lines = append(lines, tournamentRules(l, t, turn)...)
	switch {
	case t.Status != sessions.TournamentSignUp:
	case !t.Settings.StartAt.IsZero():
		unix := strconv.FormatInt(t.Settings.StartAt.Unix(), 10)
		lines = append(lines, l.T("tournament_starts_at", "When", "<t:"+unix+":F>", "In", "<t:"+unix+":R>"))
	default:
		lines = append(lines, l.T("tournament_starts_manual"))
	}
	if t.Settings.Role != "" {
		lines = append(lines, l.T("tournament_role", "Role", "<@&"+t.Settings.Role+">"))
	}
	if lim := t.State.Config.PlayerLimit; lim > 0 {
		lines = append(lines, l.N("tournament_limit", lim))
	}
	var status string
	switch {
	case t.Status == sessions.TournamentFinished:
		status = l.T("tournament_signup_over")
	case t.Open(now) && t.Status == sessions.TournamentSignUp:
		status = l.T("tournament_signup_open")
	case t.Open(now):
		status = l.T("tournament_signup_arena", "End", Timestamp(tournament.ArenaEnd(t.State)))
	default:
		status = l.T("tournament_signup_closed", "When", Timestamp(t.State.Started))
	}
	lines = append(lines, "", status, "", l.N("tournament_players", t.Active()))
	var names []string
	room := descriptionBudget - len([]rune(strings.Join(lines, "\n")))
	for _, p := range t.State.Players {
		if p.Withdrawn {
			continue
		}
		name := PlayerName(l, t, p.ID)
		room -= len([]rune(name)) + 3
		if len(names) == maxListed || room < 0 {
			names = append(names, l.N("tournament_players_more", t.Active()-len(names)))
			break
		}
		names = append(names, name)
	}
	if len(names) > 0 {
		lines = append(lines, strings.Join(names, " · "))
	}
	color := tournamentColor
	if t.Status == sessions.TournamentFinished {
		color = tournamentOverColor
	}
	msg := &Message{
		AllowedMentions: NoMentions(),
		Embeds: []*discordgo.MessageEmbed{{
			Title:       l.T("tournament_signup_title", "Name", TournamentName(t)),
			Description: strings.Join(lines, "\n"),
			Color:       color,
			Footer:      &discordgo.MessageEmbedFooter{Text: l.T("tournament_footer", "ID", t.ID)},
		}},
		Components: []discordgo.MessageComponent{},
	}
	if t.Open(now) {
		msg.Components = []discordgo.MessageComponent{discordgo.ActionsRow{Components: []discordgo.MessageComponent{
			discordgo.Button{Label: l.T("button_join"), Style: discordgo.SuccessButton, Emoji: &discordgo.ComponentEmoji{Name: "✋"},
				CustomID: customid.New("tjoin", t.ID).String()},
			discordgo.Button{Label: l.T("button_leave"), Style: discordgo.SecondaryButton,
				CustomID: customid.New("tleave", t.ID).String()},
		}}}
	}
	return msg
}

// Points writes a score as players read it: "3", "2½", "½", "9¾".
func Points(p float64) string {
	whole, frac := math.Modf(p)
	s := ""
	if whole != 0 || frac == 0 {
		s = strconv.Itoa(int(whole))
	}
	switch math.Round(frac * 4) {
	case 1:
		s += "¼"
	case 2:
		s += "½"
	case 3:
		s += "¾"
	}
	return s
}

// Pairings draws the pairings of round number of t (a Swiss or a round
// robin): each game with its board number, its opener (who drops the
// first disc) and second in their discs' colours, their points before the
// round, and the thread it is played in; a bye; a game won at once by
// forfeit. A long round is drawn as several messages, each within
// Discord's limits.
func Pairings(l *locale.Localizer, t *sessions.Tournament, number int) []*Message {
	th := ThemeNamed(t.Settings.Theme)
	before := t.State
	before.Rounds = before.Rounds[:number-1]
	points := map[string]float64{}
	if st, err := tournament.Standings(before); err == nil {
		for _, s := range st {
			points[s.Player] = s.Points
		}
	}
	round := t.State.Rounds[number-1]
	var lines []string
	for b, p := range round.Pairings {
		board := "`" + strconv.Itoa(b+1) + "`"
		switch {
		case p.IsBye():
			lines = append(lines, board+" "+l.T("tournament_pairing_bye", "Player", PlayerName(l, t, p.Opener)))
		default:
			line := board + " " + th.Disc[game.Player1] + " " + PlayerName(l, t, p.Opener) + " (" + Points(points[p.Opener]) + ") – " +
				th.Disc[game.Player2] + " " + PlayerName(l, t, p.Second) + " (" + Points(points[p.Second]) + ")"
			switch g := t.Games[number-1][b]; {
			case p.Result.Decided():
				line += " · " + l.T("tournament_pairing_decided", "Result", resultText(p.Result))
			case g.ChannelID != "" && g.ChannelID != t.ChannelID:
				line += " · <#" + g.ChannelID + ">"
			}
			lines = append(lines, line)
		}
	}
	title := l.T("tournament_pairings_title", "Name", TournamentName(t), "Round", number, "Rounds", tournament.TotalRounds(t.State))
	footer := l.T("tournament_pairings_footer")
	if !t.Settings.Threads {
		footer = l.T("tournament_pairings_footer_channel")
	}
	var out []*Message
	for _, chunk := range chunks(lines, descriptionBudget) {
		out = append(out, &Message{
			AllowedMentions: NoMentions(),
			Embeds: []*discordgo.MessageEmbed{{
				Title: title, Description: strings.Join(chunk, "\n"), Color: tournamentColor,
				Footer: &discordgo.MessageEmbedFooter{Text: footer},
			}},
			Components: []discordgo.MessageComponent{},
		})
	}
	return out
}

// resultText writes a result as the standings' crosstables do: "1–0",
// "½–½", "+/−" for a win by forfeit.
func resultText(r tournament.Result) string {
	switch r {
	case tournament.OpenerWins:
		return "1–0"
	case tournament.SecondWins:
		return "0–1"
	case tournament.Draw:
		return "½–½"
	case tournament.OpenerWinsByForfeit:
		return "+/−"
	case tournament.SecondWinsByForfeit:
		return "−/+"
	case tournament.DoubleForfeit:
		return "−/−"
	}
	return string(r)
}

// chunks splits lines into runs whose text (joined by line breaks) stays
// within budget characters.
func chunks(lines []string, budget int) [][]string {
	var out [][]string
	var cur []string
	n := 0
	for _, line := range lines {
		k := len([]rune(line)) + 1
		if n+k > budget && len(cur) > 0 {
			out = append(out, cur)
			cur, n = nil, 0
		}
		cur = append(cur, line)
		n += k
	}
	if len(cur) > 0 || len(out) == 0 {
		out = append(out, cur)
	}
	return out
}

// Standings draws the standings of t: one line per player, best first
// (rank, name, points, games, and the tie-breaks' values), as many as fit,
// and under them a line that names the tie-breaks in their order. Its
// title says after which round (or, at the end, that they are final).
func Standings(l *locale.Localizer, t *sessions.Tournament) *Message {
	st, err := tournament.Standings(t.State)
	if err != nil {
		st = nil
	}
	arena := t.State.Config.Format == tournament.Arena
	var lines []string
	n := 0
	for i, s := range st {
		line := "`" + strconv.Itoa(s.Rank) + ".` " + PlayerName(l, t, s.Player)
		if s.OnFire {
			line += " 🔥"
		}
		games := l.N("tournament_games", s.Games)
		if arena {
			line += " — " + l.T("tournament_standings_row_arena", "Points", Points(s.Points), "Games", games,
				"Performance", strconv.Itoa(int(math.Round(s.TieBreaks.Performance))))
		} else {
			line += " — " + l.T("tournament_standings_row", "Points", Points(s.Points), "Games", games,
				"Buchholz", Points(s.TieBreaks.Buchholz), "SB", Points(s.TieBreaks.SonnebornBerger))
		}
		if s.Withdrawn {
			line += " · " + l.T("tournament_withdrawn_mark")
		}
		if n+len([]rune(line))+1 > descriptionBudget {
			lines = append(lines, l.N("tournament_standings_more", len(st)-i))
			break
		}
		n += len([]rune(line)) + 1
		lines = append(lines, line)
	}
	if len(lines) == 0 {
		lines = append(lines, l.T("tournament_standings_empty"))
	}
	legend := l.T("tournament_standings_legend")
	if arena {
		legend = l.T("tournament_standings_legend_arena")
	}
	var title string
	done := 0
	for _, r := range t.State.Rounds {
		if r.Finished() {
			done = r.Number
		}
	}
	switch {
	case t.Over():
		title = l.T("tournament_standings_final", "Name", TournamentName(t))
	case arena || done == 0:
		title = l.T("tournament_standings_title", "Name", TournamentName(t))
	default:
		title = l.T("tournament_standings_after", "Name", TournamentName(t), "Round", done)
	}
	status := ""
	switch t.Status {
	case sessions.TournamentPaused:
		status = l.T("tournament_paused") + "\n\n"
	case sessions.TournamentRunning:
		if arena {
			status = l.T("tournament_arena_ends", "End", Timestamp(tournament.ArenaEnd(t.State))) + "\n\n"
		}
	}
	color := tournamentColor
	if t.Over() {
		color = tournamentOverColor
	}
	return &Message{
		AllowedMentions: NoMentions(),
		Embeds: []*discordgo.MessageEmbed{{
			Title:       title,
			Description: status + strings.Join(lines, "\n") + "\n\n" + legend,
			Color:       color,
			Footer:      &discordgo.MessageEmbedFooter{Text: TournamentFormat(l, t) + " · " + l.T("tournament_footer", "ID", t.ID)},
		}},
		Components: []discordgo.MessageComponent{},
	}
}

// Podium draws the end of t: the three best players with their medals
// and points (out of the rounds played, 5½/7, but in an arena), the
// winner congratulated and the three mentioned, how many
// played how many rounds, who ended it early if an admin did; or, for a
// tournament called off at its start, that it was. picture names the
// attached crosstable's file ("" for none: its embed shows it), and
// legend, when not empty, gives in text the names the picture could not
// draw.
func Podium(l *locale.Localizer, t *sessions.Tournament, picture, legend string) *Message {
	name := TournamentName(t)
	if len(t.State.Rounds) == 0 {
		return &Message{
			Content:         l.T("tournament_called_off", "Name", name),
			AllowedMentions: NoMentions(),
			Components:      []discordgo.MessageComponent{},
		}
	}
	st, _ := tournament.Standings(t.State)
	var lines, mentions []string
	of := "" // points out of the rounds, as chess writes them (5½/7); an arena's points alone
	if t.State.Config.Format != tournament.Arena {
		of = "/" + strconv.Itoa(len(t.State.Rounds))
	}
	for i := range min(3, len(st)) {
		lines = append(lines, medals[i]+" "+PlayerName(l, t, st[i].Player)+" — **"+Points(st[i].Points)+"**"+of)
		if !sessions.Forgotten(st[i].Player) {
			mentions = append(mentions, st[i].Player)
		}
	}
	lines = append(lines, "", l.T("tournament_summary", "Players", l.N("tournament_players_count", len(t.State.Players)),
		"Rounds", l.N("tournament_rounds_count", len(t.State.Rounds))))
	if t.EndedBy != "" {
		lines = append(lines, l.T("tournament_ended_by", "Admin", Mention(t.EndedBy)))
	}
	if legend != "" {
		lines = append(lines, "", legend)
	}
	content := l.T("tournament_over", "Name", name)
	if len(st) > 0 && !sessions.Forgotten(st[0].Player) {
		content = l.T("tournament_over_winner", "Name", name, "Winner", Mention(st[0].Player))
	}
	embed := &discordgo.MessageEmbed{
		Title:       l.T("tournament_podium_title", "Name", name),
		Description: strings.Join(lines, "\n"),
		Color:       tournamentColor,
		Footer:      &discordgo.MessageEmbedFooter{Text: TournamentFormat(l, t) + " · " + l.T("tournament_footer", "ID", t.ID)},
	}
	if picture != "" {
		embed.Image = &discordgo.MessageEmbedImage{URL: "attachment://" + picture}
	}
	return &Message{
		Content:         content,
		AllowedMentions: &discordgo.MessageAllowedMentions{Parse: []discordgo.AllowedMentionType{}, Users: mentions},
		Embeds:          []*discordgo.MessageEmbed{embed},
		Components:      []discordgo.MessageComponent{},
	}
}

// CrosstableCell writes one player's games against another as a
// crosstable cell: "1", "½", "0", "+" and "−" for a win and a loss by
// forfeit, the games of a double round robin side by side ("1 ½").
func CrosstableCell(cells []tournament.Cell) string {
	var out []string
	for _, c := range cells {
		switch {
		case c.Forfeit && c.Points == 1:
			out = append(out, "+")
		case c.Forfeit:
			out = append(out, "−")
		default:
			out = append(out, Points(c.Points))
			if c.Points == 0 {
				out[len(out)-1] = "0"
			}
		}
	}
	return strings.Join(out, " ")
}

// GameThreadName names the thread of game ref of t: the tournament, the
// round and the two players, as plain text within Discord's 100
// characters.
func GameThreadName(l *locale.Localizer, t *sessions.Tournament, ref sessions.GameRef) string {
	p := t.State.Rounds[ref.Round-1].Pairings[ref.Board-1]
	name := l.T("tournament_thread_name", "Name", strings.Join(strings.Fields(t.State.Config.Name), " "), "Round", ref.Round,
		"Player1", bareName(l, t.Names[p.Opener]), "Player2", bareName(l, t.Names[p.Second]))
	return truncate(name, threadNameMax)
}

// gameStart is the content of the first board of a tournament game: both
// players mentioned (so that both are pinged and added to its thread),
// the round and board, and who opens.
func gameStart(l *locale.Localizer, s *sessions.Session) (string, *discordgo.MessageAllowedMentions) {
	return l.T("tournament_game_start", "Opener", Mention(s.Players[0].ID), "Second", Mention(s.Players[1].ID),
			"Round", s.Tournament.Round, "Board", s.Tournament.Board),
		&discordgo.MessageAllowedMentions{Parse: []discordgo.AllowedMentionType{}, Users: []string{s.Players[0].ID, s.Players[1].ID}}
}

// TournamentCreated is the private answer to the admin who created t.
func TournamentCreated(l *locale.Localizer, t *sessions.Tournament) string {
	return l.T("tournament_created", "Name", TournamentName(t), "Channel", "<#"+t.ChannelID+">")
}
