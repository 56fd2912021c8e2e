package bot_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot"
	"github.com/connectn/connectn/bot/discordtest"
	"github.com/connectn/connectn/locale"
	"github.com/connectn/connectn/sessions"
	"github.com/connectn/connectn/sessions/sqlite"
	"github.com/connectn/connectn/tournament"
)

// smallBoard are the options of a tournament on a 4 × 4 board, connect 3.
var smallBoard = []discordtest.Arg{discordtest.IntArg("rows", 4), discordtest.IntArg("columns", 4), discordtest.IntArg("connect", 3)}

// refusalHead is the start of a message's English text, before its
// first field, at most 40 bytes.
func refusalHead(id string) string {
	forms, _ := locale.Default().Forms(locale.Base, id)
	s := forms["other"]
	if i := strings.Index(s, "{{"); i > 0 {
		s = s[:i]
	}
	return s[:min(len(s), 40)]
}

// TestTournamentSignUpClicks: Join and Leave on the sign-up, and the
// clicks it refuses privately without changing anything: a crafted or
// foreign custom_id, a button on another message, a member without the
// role, a second Join, a full tournament, a Leave by a member who never
// joined, and a Join once a Swiss started.
func TestTournamentSignUpClicks(t *testing.T) {
	c := newCupEnv(t, 4)
	c.create(append(smallBoard, strArg("name", "Club night"), discordtest.IntArg("players", 3),
		discordtest.Arg{Name: "role", Type: discordgo.ApplicationCommandOptionRole, Value: playerRole})...)
	mustPrivate(t, c.join(c.players[0]), refusalHead("refusal_tournament_role"))
	c.roles = []string{playerRole}
	before := c.tour()
	mustUpdate(t, c.join(c.players[0]))
	mustPrivate(t, c.join(c.players[0]), refusalHead("refusal_tournament_joined"))
	mustUpdate(t, c.join(c.players[1]))
	mustUpdate(t, c.join(c.players[2]))
	mustPrivate(t, c.join(c.players[3]), refusalHead("refusal_tournament_full"))
	if got := c.tour(); got.Active() != 3 || got.Revision != before.Revision+3 {
		t.Fatalf("after the clicks: %d players, revision %d (was %d); want 3 and three writes", got.Active(), got.Revision, before.Revision)
	}
	mustContain(t, "sign-up", messageText(c.signUp()), "**3** players", "Up to 3 players", "<@&"+playerRole+">")

	// Crafted and foreign clicks.
	signUp := c.signUp()
	for _, id := range []string{"cn:tjoin:999", "cn:tleave:999"} {
		mustPrivate(t, c.e.clickID(c.players[3], signUp, id), refusalHead("refusal_tournament_button"))
	}
	for _, id := range []string{"cn:tjoin:0", "cn:tjoin:1:2", "cn:tjoin:01", "cn:tjoin:-1"} {
		mustPrivate(t, c.e.clickID(c.players[3], signUp, id), refusalHead("refusal_bad_custom_id"))
	}
	c.e.send(slashChallenge(alice, bob, nil)) // another message in the channel
	other := c.e.board()
	mustPrivate(t, c.e.clickID(c.players[3], other, fmt.Sprintf("cn:tjoin:%d", c.id)), refusalHead("refusal_tournament_button"))
	mustPrivate(t, c.e.clickID(carol, signUp, fmt.Sprintf("cn:tleave:%d", c.id)), refusalHead("refusal_tournament_not_joined"))
	if got := c.tour().Active(); got != 3 {
		t.Fatalf("refused clicks changed the players: %d", got)
	}

	// Leave before the start: no longer entered; a place is free.
	mustUpdate(t, c.e.click(c.players[2], c.signUp(), "Leave"))
	if _, ok := c.tour().Entry(c.players[2].ID); ok {
		t.Errorf("a player who left before the start is still entered")
	}
	mustUpdate(t, c.join(c.players[3]))

	mustPrivate(t, c.adminCmd("start"), "has started")
	mustPrivate(t, c.e.clickID(c.players[2], signUp, fmt.Sprintf("cn:tjoin:%d", c.id)), refusalHead("refusal_tournament_closed"))
}

// TestTournamentAdmin: who may create, starting with too few players,
// pause and resume between rounds, a player removed in the middle of a
// game (their game lost, not paired again), a member who withdraws, the
// private standings, and an end with a game under way (counted as it
// stands) that posts the podium.
func TestTournamentAdmin(t *testing.T) {
	c := newCupEnv(t, 6)
	en := from(c.players[0])
	en.MemberPermissions = memberPerms
	mustPrivate(t, c.e.send(groupSlash(en, "tournament", "create")), refusalHead("refusal_manage_server"))
	c.create(append(smallBoard, strArg("name", "Admin cup"), discordtest.IntArg("rounds", 4))...)
	mustPrivate(t, c.adminCmd("start"), refusalHead("refusal_tournament_few_players"))
	c.joinAll()
	mustPrivate(t, c.adminCmd("pause"), refusalHead("refusal_tournament_not_running"))
	mustPrivate(t, c.adminCmd("start"), "has started")

	// Round 1: pause, finish the games: round 2 waits for the resume.
	mustPrivate(t, c.adminCmd("pause"), "paused")
	c.playRound(1, func(int) bool { return true })
	c.e.runDue()
	if n := len(c.tour().State.Rounds); n != 1 {
		t.Fatalf("a paused tournament paired round %d", n)
	}
	mustContain(t, "paused standings", c.standings(), "Paused by an admin")
	mustPrivate(t, c.adminCmd("resume"), "goes on")
	if n := len(c.tour().State.Rounds); n != 2 {
		t.Fatalf("after the resume, %d rounds, want 2", n)
	}

	// Round 2: remove a player whose game is under way; one withdraws.
	place, s := c.game(2, 1)
	place.play(c.byID[s.Players[0].ID], c.byID[s.Players[1].ID], "1")
	removed := c.byID[s.Players[1].ID]
	resp := c.adminCmd("remove", discordtest.UserArg("player", removed))
	mustPrivate(t, resp, "is out of **Admin cup**")
	if got := c.tour().State.Rounds[1].Pairings[0].Result; got != tournament.OpenerWinsByForfeit {
		t.Errorf("the removed player's game: %q, want a win by forfeit for the opener (%s never moved)", got, removed.ID)
	}
	mustContain(t, "the removed player's board", messageText(place.board()), "wins by forfeit")
	_, s2 := c.game(2, 2)
	leaver := c.byID[s2.Players[0].ID]
	mustPrivate(t, c.memberCmd(leaver, channelID, "leave"), "You have withdrawn")
	mustPrivate(t, c.memberCmd(leaver, channelID, "leave"), refusalHead("refusal_tournament_not_found"))
	if got := c.tour().State.Rounds[1].Pairings[1].Result; got != tournament.SecondWinsByForfeit {
		t.Errorf("the leaver's game: %q, want a win by forfeit for the second", got)
	}
	c.playRound(2, func(int) bool { return true })
	c.e.runDue()
	for _, p := range c.tour().State.Rounds[2].Pairings {
		if p.Has(removed.ID) || p.Has(leaver.ID) {
			t.Errorf("round 3 pairs a player who left: %+v", p)
		}
	}
	resp = c.memberCmd(carol, channelID, "standings")
	if resp.Data == nil || resp.Data.Flags&discordgo.MessageFlagsEphemeral == 0 || !strings.Contains(text(resp), "Standings after round 2") {
		t.Errorf("standings answered %q, want them privately", text(resp))
	}

	// End with a game under way, level: a draw; the podium follows.
	place, s = c.game(3, 1)
	place.play(c.byID[s.Players[0].ID], c.byID[s.Players[1].ID], "1", "2")
	mustPrivate(t, c.adminCmd("end"), "has ended")
	tour := c.tour()
	if got := tour.State.Rounds[2].Pairings[0].Result; got != tournament.Draw {
		t.Errorf("the game under way at the end: %q, want a draw", got)
	}
	if !tour.Over() || tour.Posts.Podium == "" {
		t.Fatalf("after the end: over %t, podium %q", tour.Over(), tour.Posts.Podium)
	}
	mustContain(t, "podium", messageText(c.e.message(tour.Posts.Podium)), "Ended early by <@"+c.admin.ID+">", "🥇")
	mustContain(t, "the ended game's board", messageText(place.board()), "Ended by <@"+c.admin.ID+">", "counts for the tournament")
	mustPrivate(t, c.adminCmd("end"), refusalHead("refusal_tournament_not_found"))
}

// TestTournamentTurnRunsOut: a player who does not move loses the game
// when the turn's deadline passes, as in any match (by forfeit: they
// never dropped a disc), and the next round follows once the other game
// is played.
func TestTournamentTurnRunsOut(t *testing.T) {
	c := newCupEnv(t, 4)
	c.create(append(smallBoard, strArg("turn-timeout", "90s"))...)
	c.joinAll()
	c.adminCmd("start")
	place, s := c.game(1, 1)
	mustContain(t, "the board", messageText(place.board()), "<t:")
	c.playRoundPart(1, func(int) bool { return true }, 1, 2)
	c.e.clock.Advance(89 * time.Second)
	c.e.runDue()
	if got := c.tour().State.Rounds[0].Pairings[0].Result; got != tournament.Pending {
		t.Fatalf("before the deadline: %q", got)
	}
	c.e.clock.Advance(time.Second)
	c.e.runDue()
	tour := c.tour()
	if got := tour.State.Rounds[0].Pairings[0].Result; got != tournament.SecondWinsByForfeit {
		t.Fatalf("after the deadline: %q, want the second (%s) winning by forfeit", got, s.Players[1].ID)
	}
	if len(tour.State.Rounds) != 2 {
		t.Errorf("%d rounds after the deadline, want round 2 paired", len(tour.State.Rounds))
	}
	mustContain(t, "timed-out board", messageText(place.board()), "wins by timeout")
}

// TestTournamentRoundRobinPodium plays a round robin of four, one of them
// named in a script the picture's font cannot draw: the podium carries
// the crosstable as a PNG, and that name in its text.
func TestTournamentRoundRobinPodium(t *testing.T) {
	c := newCupEnv(t, 4)
	c.players[2].GlobalName = "さくら"
	c.byID[c.players[2].ID] = c.players[2]
	c.create(append(smallBoard, strArg("format", "round-robin"))...)
	c.joinAll()
	c.adminCmd("start")
	for round := 1; round <= 3; round++ {
		c.playRound(round, func(b int) bool { return b%2 == 1 })
		c.e.runDue()
	}
	tour := c.tour()
	if !tour.Over() {
		t.Fatalf("after 3 rounds: %s, %d rounds", tour.Status, len(tour.State.Rounds))
	}
	podium := c.e.message(tour.Posts.Podium)
	if len(podium.Attachments) != 1 || podium.Attachments[0].Filename != "crosstable.png" {
		t.Fatalf("podium attachments %+v", podium.Attachments)
	}
	png := c.e.attachment(podium.Attachments[0])
	if len(png) < 8 || string(png[1:4]) != "PNG" {
		t.Fatalf("the crosstable is not a PNG (%d bytes)", len(png))
	}
	if img := podium.Embeds[0].Image; img == nil || img.URL != "attachment://crosstable.png" {
		t.Errorf("the podium's embed does not show the crosstable: %+v", img)
	}
	mustContain(t, "podium", messageText(podium), "In the crosstable:", "**さくら**")
	mustContain(t, "the crosstable's alt text", altTextOf(t, c.e, podium.ID, "crosstable.png"), "Crosstable of", ": 4 players, each row", "First place: ")
}

// TestTournamentArena: an arena pairs the waiting players as games end,
// never the same two at once again, takes players while it runs, stops
// pairing at its end, plays out the games under way, and then posts its
// podium.
func TestTournamentArena(t *testing.T) {
	c := newCupEnv(t, 6)
	c.create(append(smallBoard, strArg("format", "arena"), strArg("duration", "10m"))...)
	for _, u := range c.players[:5] {
		mustUpdate(t, c.join(u))
	}
	c.adminCmd("start")
	tour := c.tour()
	if len(tour.State.Rounds) != 1 || len(tour.State.Rounds[0].Pairings) != 2 {
		t.Fatalf("arena start: %+v", tour.State.Rounds)
	}
	// A sixth player joins while it runs: paired with the one waiting.
	mustUpdate(t, c.join(c.players[5]))
	c.e.runDue()
	if n := len(c.tour().State.Rounds); n != 2 {
		t.Fatalf("after a late join, %d rounds of games, want 2", n)
	}
	first := c.tour().State.Rounds[0].Pairings[0]
	c.playRoundPart(1, func(int) bool { return true }, 0, 1)
	c.e.runDue()
	for _, r := range c.tour().State.Rounds[2:] {
		for _, p := range r.Pairings {
			if p.Has(first.Opener) && p.Has(first.Second) {
				t.Errorf("the arena paired %s and %s again at once", first.Opener, first.Second)
			}
		}
	}
	c.e.clock.Advance(10 * time.Minute)
	c.e.runDue()
	rounds := len(c.tour().State.Rounds)
	for r := 1; r <= rounds; r++ {
		c.playRound(r, func(int) bool { return true })
	}
	c.e.runDue()
	tour = c.tour()
	if len(tour.State.Rounds) != rounds {
		t.Errorf("the arena paired games after its end: %d rounds, was %d", len(tour.State.Rounds), rounds)
	}
	if !tour.Over() || tour.Posts.Podium == "" {
		t.Fatalf("after the end: over %t, podium %q", tour.Over(), tour.Posts.Podium)
	}
	mustContain(t, "arena standings", c.standings(), "Final standings", "perf.")
}

// TestTournamentRatedAfterTheDailyCap: two members who played the day's
// rated matches with each other still have their tournament game rated:
// the cap is for the matches members start, not the ones the bot pairs.
func TestTournamentRatedAfterTheDailyCap(t *testing.T) {
	c := newCupEnv(t, 0)
	for k := range sessions.RatedPerDay {
		first, second := alice, bob
		if k%2 == 1 {
			first, second = bob, alice
		}
		c.e.send(slashChallenge(first, second, map[string]int{"wins": 1}))
		mustUpdate(t, c.e.click(second, c.e.board(), "Accept"))
		c.e.play(first, second, "1", "2", "1", "2", "1", "2", "1")
	}
	c.e.send(slashChallenge(alice, bob, map[string]int{"wins": 1}))
	c.e.click(bob, c.e.board(), "Accept")
	if s := c.e.session(); s.Rated || !s.RatedCapped {
		t.Fatalf("the fourth challenge of the day: rated %t, capped %t; want capped", s.Rated, s.RatedCapped)
	}
	c.players = []user{alice, bob}
	c.byID = map[string]user{aliceID: alice, bobID: bob}
	c.create(strArg("name", "Rated cup"))
	c.joinAll()
	c.adminCmd("start")
	place, s := c.game(1, 1)
	if !s.Rated {
		t.Fatalf("the tournament game is not rated")
	}
	place.play(c.byID[s.Players[0].ID], c.byID[s.Players[1].ID], c.moves(true)...)
	_, s = c.game(1, 1)
	if s.Ratings == nil {
		t.Fatalf("the tournament game changed no rating")
	}
}

// TestTournamentGamesInTheChannel: with threads off, the games are played
// in the tournament's channel, one after another.
func TestTournamentGamesInTheChannel(t *testing.T) {
	c := newCupEnv(t, 4)
	c.create(append(smallBoard, boolArg("threads", false))...)
	c.joinAll()
	c.adminCmd("start")
	tour := c.tour()
	if g := tour.Games[0]; g[0].ChannelID != channelID || g[1].SessionID != 0 {
		t.Fatalf("games %+v, want the first in the channel and the second waiting", g)
	}
	if len(c.e.fake.Threads()) != 0 {
		t.Errorf("%d threads opened with threads off", len(c.e.fake.Threads()))
	}
	c.playRoundPart(1, func(int) bool { return true }, 0, 1)
	c.e.clock.Advance(10 * time.Second)
	c.e.runDue()
	if g := c.tour().Games[0][1]; g.ChannelID != channelID || g.SessionID == 0 {
		t.Fatalf("after the first game, the second %+v, want it started in the channel", g)
	}
}

// flakyStore fails the creation of tournament games while fail is
// positive, as a database that hiccups.
type flakyStore struct {
	*sqlite.Store
	fail  atomic.Int32
	taken atomic.Bool // answer as if another process had started the game
}

func (f *flakyStore) Create(ctx context.Context, s *sessions.Session) (*sessions.Session, error) {
	if s.Tournament.Set() && f.taken.Load() {
		return nil, fmt.Errorf("create: %w", sessions.ErrGameTaken)
	}
	if s.Tournament.Set() && f.fail.Add(-1) >= 0 {
		return nil, errors.New("database hiccup")
	}
	return f.Store.Create(ctx, s)
}

// TestTournamentSpareThread: when a game's thread is open but its session
// cannot be stored, the thread is archived and the game started again
// soon, in a new thread; when another process started the game first, the
// spare thread is archived and the game is left to that process (tried
// again only when its claim runs out).
func TestTournamentSpareThread(t *testing.T) {
	c := newCupEnv(t, 4)
	flaky := &flakyStore{Store: c.e.store}
	flaky.fail.Store(1)
	h := bot.NewHandler(flaky, slog.New(slog.DiscardHandler), bot.WithClock(c.e.clk), bot.WithMessenger(bot.NewDiscordMessenger(c.e.rest)))
	t.Cleanup(func() { h.Close(context.Background()) })
	c.create(smallBoard...)
	c.joinAll()
	if _, err := c.e.store.UpdateTournament(context.Background(), c.id, func(x *sessions.Tournament) error { return x.Start(c.e.clock.Now()) }); err != nil {
		t.Fatal(err)
	}
	due := func() {
		t.Helper()
		if _, err := h.RunDue(context.Background()); err != nil {
			t.Fatal(err)
		}
		if err := h.WaitIdle(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	archived := func() (n int) {
		for _, th := range c.e.fake.Threads() {
			if th.Archived {
				n++
			}
		}
		return n
	}
	due()
	if n, a := len(c.e.fake.Threads()), archived(); n != 2 || a != 1 || c.tour().Games[0][0].SessionID != 0 || c.tour().Games[0][1].SessionID == 0 {
		t.Fatalf("after a failed store: %d threads, %d archived, games %+v; want the first game's thread archived, the second game started", n, a, c.tour().Games[0])
	}
	c.e.clock.Advance(5 * time.Second)
	due()
	g := c.tour().Games[0][0]
	if n, a := len(c.e.fake.Threads()), archived(); n != 3 || a != 1 || g.SessionID == 0 || g.ChannelID != c.e.fake.Threads()[2].ID {
		t.Fatalf("on the retry: %d threads, %d archived, game %+v; want the game in a third thread", n, a, g)
	}

	// Another process wins the race for the games of round 2.
	c.playRound(1, func(int) bool { return true })
	flaky.taken.Store(true)
	due()
	if n, a := len(c.e.fake.Threads()), archived(); n != 5 || a != 3 {
		t.Fatalf("games another process started: %d threads, %d archived; want two spare threads, archived", n, a)
	}
	flaky.taken.Store(false)
	c.e.clock.Advance(10 * time.Second)
	due()
	if n := len(c.e.fake.Threads()); n != 5 {
		t.Fatalf("a game claimed by another process was started again before its claim ran out: %d threads", n)
	}
	c.e.clock.Advance(sessions.DefaultPostLease)
	due()
	for b, g := range c.tour().Games[1] {
		if g.SessionID == 0 {
			t.Errorf("round 2, board %d: not started after the claim ran out", b+1)
		}
	}
}

// TestTournamentTwoReplicas: two bots on one database (two replicas)
// sweep at the same moments while a Swiss is played: each round is paired
// once, each game has one session, and a thread opened by the replica
// that lost a race is archived.
func TestTournamentTwoReplicas(t *testing.T) {
	c := newCupEnv(t, 8)
	other, err := sqlite.Open(context.Background(), c.e.path, sessions.WithClock(c.e.clk))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	replica := bot.NewHandler(other, slog.New(slog.DiscardHandler), bot.WithClock(c.e.clk), bot.WithMessenger(bot.NewDiscordMessenger(c.e.rest)))
	t.Cleanup(func() { replica.Close(context.Background()) })
	c.create(smallBoard...)
	c.joinAll()
	c.adminCmd("start")
	for round := 1; round <= 4; round++ {
		c.playRound(round, func(b int) bool { return (b+round)%2 == 0 })
		var wg sync.WaitGroup
		for _, h := range []*bot.Handler{c.e.h, replica} {
			wg.Go(func() {
				if _, err := h.RunDue(context.Background()); err != nil {
					t.Error(err)
				}
				h.WaitIdle(context.Background())
			})
		}
		wg.Wait()
		c.e.idle()
	}
	tour := c.tour()
	if len(tour.State.Rounds) != 4 || !tour.Over() {
		t.Fatalf("%d rounds, over %t; want 4 rounds played", len(tour.State.Rounds), tour.Over())
	}
	games := 0
	for r := range tour.State.Rounds {
		for b := range tour.State.Rounds[r].Pairings {
			if g := tour.Games[r][b]; g.SessionID != 0 {
				games++
				if s, err := c.e.store.Get(context.Background(), g.ChannelID); err != nil || s.ID != g.SessionID {
					t.Errorf("game %d.%d: session %v in %s, %v", r+1, b+1, g.SessionID, g.ChannelID, err)
				}
			}
		}
	}
	if games != 16 {
		t.Errorf("%d games with a session, want 16", games)
	}
	if threads := len(c.e.fake.Threads()); threads != games {
		t.Errorf("%d threads opened for %d games", threads, games)
	}
	podiums, standings := 0, 0
	for _, m := range c.e.public() {
		for _, e := range m.Embeds {
			switch {
			case strings.HasSuffix(e.Title, "· Podium"):
				podiums++
			case strings.Contains(e.Title, "Standings") || strings.Contains(e.Title, "standings"):
				standings++
			}
		}
	}
	if podiums != 1 || standings != 1 {
		t.Errorf("%d podiums and %d standings messages posted, want one each", podiums, standings)
	}
}

// TestTournamentStartsAtItsTime: a tournament given a start time starts
// by itself when it comes (the scheduler's sweep), its sign-up showing
// the time until then; one that nobody but one member joined is called
// off at its time.
func TestTournamentStartsAtItsTime(t *testing.T) {
	c := newCupEnv(t, 3)
	c.create(append(smallBoard, strArg("starts-at", "10m"))...)
	at := c.e.clock.Now().Add(10 * time.Minute).Unix()
	mustContain(t, "sign-up", messageText(c.signUp()), fmt.Sprintf("<t:%d:F>", at), fmt.Sprintf("<t:%d:R>", at))
	c.joinAll()
	c.e.clock.Advance(10*time.Minute - time.Second)
	c.e.runDue()
	if n := len(c.tour().State.Rounds); n != 0 {
		t.Fatalf("a second before its time, %d rounds", n)
	}
	c.e.clock.Advance(time.Second)
	c.e.runDue()
	tour := c.tour()
	if tour.Status != sessions.TournamentRunning || len(tour.State.Rounds) != 1 || tour.Games[0][0].SessionID == 0 {
		t.Fatalf("at its time: %s, %d rounds, games %+v; want round 1 started", tour.Status, len(tour.State.Rounds), tour.Games)
	}

	lonely := newCupEnv(t, 1)
	lonely.create(strArg("starts-at", "1h"))
	lonely.joinAll()
	lonely.e.clock.Advance(time.Hour)
	lonely.e.runDue()
	tour = lonely.tour()
	if tour.Status != sessions.TournamentFinished || tour.Posts.Podium == "" {
		t.Fatalf("one player at its time: %s, podium %q; want it called off", tour.Status, tour.Posts.Podium)
	}
	mustContain(t, "called off", messageText(lonely.e.message(tour.Posts.Podium)), "was called off")
	if labels(lonely.signUp().Components) != "" {
		t.Errorf("the called-off tournament's sign-up keeps its buttons")
	}
}

// TestTournamentPostLostAnswer: Discord makes the sign-up message but the
// answer is lost (the connection reset after the message was made), and
// the bot tries again. Every try carries the post's nonce with
// enforce_nonce, so Discord answers the second with the message the first
// made: one sign-up in the channel, recorded, never two. (Without the
// nonce, the retry posts a second sign-up.)
func TestTournamentPostLostAnswer(t *testing.T) {
	e := newFaultEnv(t, 3*time.Second, 300*time.Millisecond, 5*time.Millisecond)
	e.withBotToken(true)
	c := &cup{e: e, t: t, admin: user{ID: "1400000000000000099", Username: "tess", GlobalName: "Tess"}, byID: map[string]user{}}
	c.e.fake.Inject(isChannelPost, discordtest.FaultLostReset, 0)
	signUp := c.create(append(smallBoard, strArg("name", "Club night"))...)
	if signUps := c.e.withButton("cn:tjoin:"); len(signUps) != 1 || signUps[0].ID != signUp.ID {
		t.Fatalf("%d sign-up messages in the channel, want one, the recorded %s", len(signUps), signUp.ID)
	}
	var nonces []string
	for _, r := range c.e.fake.Requests() {
		if isChannelPost(r) {
			var body struct {
				Nonce        string `json:"nonce"`
				EnforceNonce bool   `json:"enforce_nonce"`
			}
			if err := json.Unmarshal(r.Body, &body); err != nil || !body.EnforceNonce {
				t.Errorf("a post without enforce_nonce (%v): %s", err, r.Body)
			}
			nonces = append(nonces, body.Nonce)
		}
	}
	if len(nonces) != 2 || nonces[0] == "" || nonces[0] != nonces[1] {
		t.Errorf("the posts' nonces: %q, want the lost one and its retry with one nonce", nonces)
	}
}
