package bot

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/connectn/connectn/bot/internal/render"

	"github.com/connectn/connectn/locale"
	"github.com/connectn/connectn/sessions"
	"github.com/connectn/connectn/tournament"
)

var tourneyNow = time.Date(2026, 5, 1, 20, 0, 0, 0, time.UTC)

// sampleTournament returns a tournament of cfg with n players named name
// (their IDs snowflakes), started and played for rounds rounds (every
// game won by its opener), or in sign-up when rounds is negative.
func sampleTournament(t *testing.T, cfg tournament.Config, n, rounds int, name string) *sessions.Tournament {
	t.Helper()
	if cfg.Name == "" {
		cfg.Name = strings.Repeat("W", tournament.MaxNameLength)
	}
	if cfg.Format == "" {
		cfg.Format = tournament.Swiss
	}
	tt, err := sessions.NewTournament(sessions.TournamentRequest{GuildID: "1", ChannelID: "2", Config: cfg, Seed: 3,
		Settings: sessions.TournamentSettings{Threads: true, Role: "1800000000000000001", StartAt: tourneyNow.Add(time.Hour)}}, tourneyNow)
	if err != nil {
		t.Fatal(err)
	}
	tt.ID = 1 << 40
	for i := range n {
		if err := tt.Join(sessions.Member{ID: fmt.Sprintf("1410000000000%05d", i), Name: name}, 1500, true, tourneyNow); err != nil {
			t.Fatal(err)
		}
	}
	if rounds < 0 {
		return tt
	}
	if err := tt.Start(tourneyNow); err != nil {
		t.Fatal(err)
	}
	now := tourneyNow
	for r := 0; r < rounds; r++ {
		if _, err := tt.Step(now, sessions.DefaultPolicy()); err != nil && !strings.Contains(err.Error(), "nothing due") {
			t.Fatal(err)
		}
		last := tt.State.Rounds[len(tt.State.Rounds)-1]
		for b, p := range last.Pairings {
			tt.Games[len(tt.State.Rounds)-1][b] = sessions.TournamentGame{SessionID: int64(1000 + b), ChannelID: fmt.Sprintf("1500000000000%05d", b)}
			if p.Result == tournament.Pending {
				if tt.State, err = tournament.RecordResult(tt.State, last.Number, p.Opener, tournament.OpenerWins); err != nil {
					t.Fatal(err)
				}
			}
		}
		now = now.Add(time.Minute)
	}
	return tt
}

// samples are tournaments of every format and stage, their players
// named name: a Swiss of the given players in sign-up and after three rounds, a
// double round robin of 9 over (ended by an admin), an arena of 40 under
// way, one called off, and a small Swiss.
type samples struct {
	signUp, swiss, rr, arena, called, small *sessions.Tournament
	name                                    string
}

func newSamples(t *testing.T, name string, players int) samples {
	t.Helper()
	s := samples{name: name}
	s.swiss = sampleTournament(t, tournament.Config{Format: tournament.Swiss, Rated: true, PlayerLimit: 300}, players, 3, name)
	s.signUp = sampleTournament(t, tournament.Config{Format: tournament.Swiss, PlayerLimit: 300}, players, -1, name)
	s.rr = sampleTournament(t, tournament.Config{Format: tournament.RoundRobin, Double: true}, 9, 18, name)
	s.rr.Status, s.rr.EndedBy = sessions.TournamentFinished, "1400000000000000099"
	s.arena = sampleTournament(t, tournament.Config{Format: tournament.Arena, Duration: time.Hour}, 40, 3, name)
	s.called = sampleTournament(t, tournament.Config{Format: tournament.Swiss}, 1, -1, name)
	s.called.Status = sessions.TournamentFinished
	s.small = sampleTournament(t, tournament.Config{Format: tournament.Swiss}, 3, 2, name)
	return s
}

// messages renders every message of the tournaments' Discord side in l's
// language, on the samples: the sign-ups, each round's pairings, the
// standings (Swiss, paused, round robin, arena), the podiums (with the
// crosstable's legend, ended by an admin, called off), and the answers.
func (s samples) messages(t *testing.T, l *locale.Localizer) map[string]*message {
	t.Helper()
	out := map[string]*message{}
	out["sign-up"] = render.SignUp(l, s.signUp, 5*time.Minute, tourneyNow)
	out["sign-up, started"] = render.SignUp(l, s.swiss, 5*time.Minute, tourneyNow)
	for r := range s.swiss.State.Rounds {
		for k, m := range render.Pairings(l, s.swiss, r+1) {
			out[fmt.Sprintf("pairings %d.%d", r+1, k)] = m
		}
	}
	out["standings, Swiss"] = render.Standings(l, s.swiss)
	paused := s.swiss.Clone()
	if err := paused.Pause(tourneyNow); err != nil {
		t.Fatal(err)
	}
	out["standings, paused"] = render.Standings(l, paused)
	out["standings, round robin over"] = render.Standings(l, s.rr)
	out["podium, round robin"] = render.Podium(l, s.rr, "crosstable.png",
		l.T("tournament_crosstable_names", "Names", strings.Repeat("12 **"+render.EscapeName(l, s.name)+"** · ", 8)))
	out["signup, over"] = render.SignUp(l, s.rr, time.Hour, tourneyNow)
	out["sign-up, arena"] = render.SignUp(l, s.arena, time.Minute, tourneyNow)
	out["standings, arena"] = render.Standings(l, s.arena)
	out["podium, called off"] = render.Podium(l, s.called, "", "")
	out["standings, small"] = render.Standings(l, s.small)
	for _, id := range []string{"tournament_created", "tournament_started_done", "tournament_paused_done", "tournament_resumed_done",
		"tournament_ended_done", "tournament_removed_done", "tournament_left_done"} {
		out[id] = render.Ephemeral(l.T(id, "Name", render.TournamentName(s.swiss), "Channel", "<#1300000000000000001>",
			"Player", "**"+render.EscapeName(l, s.name)+"**")).Data
	}
	return out
}

// TestTournamentMessagesFitInEveryLanguage holds every tournament
// message, in every language of the catalog, with the longest names and
// the largest fields (160 players, a tournament name of 100 characters),
// against Discord's limits.
func TestTournamentMessagesFitInEveryLanguage(t *testing.T) {
	worst := newSamples(t, worstName, 160) // 80 boards: pairings over two messages, standings cut
	for _, lang := range locale.Default().Languages() {
		l := locale.Default().NewLocalizer(lang)
		for what, msg := range worst.messages(t, l) {
			if bad := checkLimits(msg); len(bad) > 0 {
				t.Errorf("%s, %s: %v", lang, what, bad)
			}
		}
		if n := len([]rune(render.GameThreadName(l, worst.small, sessions.GameRef{Round: 1, Board: 1}))); n > 100 {
			t.Errorf("%s: thread name of %d characters", lang, n)
		}
		if m := l.Missing(); len(m) > 0 {
			t.Errorf("%s: messages missing: %q", lang, m)
		}
	}
}

// TestCatalogCoversTournaments renders every tournament message and the
// commands, and checks that every message of tournament.en.toml is read
// somewhere: by the renders, or by name in the code.
func TestCatalogCoversTournaments(t *testing.T) {
	l := locale.Default().NewLocalizer()
	newSamples(t, "Alice", 12).messages(t, l)
	for k, cmd := range commands(l) {
		localize(cmd, commands(l)[k], l, "xx")
	}
	renderHelp(l, time.Minute)
	for _, r := range sessions.Reasons() {
		l.T(r.MessageID())
	}
	s := testSession(t, tournament.Config{}.Game(), "classic", nil, "Alice", "Bob")
	s.Tournament = sessions.TournamentLink{ID: 1, Round: 2, Board: 3}
	render.Board(l, s)
	tt := sampleTournament(t, tournament.Config{}, 2, 1, "Bob")
	render.GameThreadName(l, tt, sessions.GameRef{Round: 1, Board: 1})
	render.TournamentCreated(l, tt)
	if m := l.Missing(); len(m) > 0 {
		t.Errorf("the renders ask for messages the catalog lacks: %q", m)
	}
	read, literals := namedInCode(t)
	resolved := l.Resolved()
	for _, id := range locale.Default().IDsIn("tournament.en.toml") {
		if !slices.Contains(resolved, id) && !literals[id] && !read[id] {
			t.Errorf("message %q of tournament.en.toml is never read", id)
		}
	}
}

// TestParseStart reads the ways an admin writes a start time.
func TestParseStart(t *testing.T) {
	now := time.Date(2026, 5, 1, 18, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name, in string
		want     time.Time
		ok       bool
	}{
		{"a delay", "2h", now.Add(2 * time.Hour), true},
		{"a delay in words", "in 90m", now.Add(90 * time.Minute), true},
		{"a date and time in UTC", "2026-05-01 20:00", time.Date(2026, 5, 1, 20, 0, 0, 0, time.UTC), true},
		{"with its offset", "2026-05-01T20:00:00+02:00", time.Date(2026, 5, 1, 18, 0, 0, 0, time.UTC), true},
		{"a Discord timestamp", "<t:1777665600:F>", time.Unix(1777665600, 0).UTC(), true},
		{"a Unix time", "1777665600", time.Unix(1777665600, 0).UTC(), true},
		{"words", "tomorrow evening", time.Time{}, false},
		{"too far ahead", "2027-01-01 20:00", time.Time{}, false},
		{"empty", " ", time.Time{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseStart(tc.in, now)
			if (err == nil) != tc.ok || !got.Equal(tc.want) {
				t.Errorf("parseStart(%q) = %v, %v; want %v, ok %t", tc.in, got, err, tc.want, tc.ok)
			}
			if err != nil && !sessions.IsRefusal(err, reasonTournamentStartFormat) {
				t.Errorf("parseStart(%q) error %v, want the refusal %s", tc.in, err, reasonTournamentStartFormat)
			}
		})
	}
}
