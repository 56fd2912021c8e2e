package bot_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot/discordtest"
	"github.com/connectn/connectn/sessions"
	"github.com/connectn/connectn/tournament"
)

// cup is a tournament under test, played through the fake Discord: its
// admin, its players, and where to find its messages and games.
type cup struct {
	e       *env
	t       *testing.T
	admin   user
	players []user
	byID    map[string]user
	id      int64
	// locale is the server's guild_locale in the admin's commands ("":
	// en-US): the language of the tournament's messages.
	locale string
	// roles are the players' roles when they click Join.
	roles []string
}

// newCupEnv starts a bot with a bot token (tournaments post with it) and
// n players.
func newCupEnv(t *testing.T, n int) *cup {
	t.Helper()
	e := newEnv(t)
	e.withBotToken(true)
	c := &cup{e: e, t: t, admin: user{ID: "1400000000000000099", Username: "tess", GlobalName: "Tess"}, byID: map[string]user{}}
	for i := range n {
		u := user{ID: fmt.Sprintf("14100000000000%05d", i+1), Username: fmt.Sprintf("p%d", i+1), GlobalName: fmt.Sprintf("Player %d", i+1)}
		c.players = append(c.players, u)
		c.byID[u.ID] = u
	}
	return c
}

// adminCmd sends /connectn-admin tournament sub by the admin in the
// test channel.
func (c *cup) adminCmd(sub string, args ...discordtest.Arg) *discordgo.InteractionResponse {
	c.t.Helper()
	en := from(c.admin)
	en.MemberPermissions, en.GuildLocale = adminPerms, c.locale
	return c.e.send(groupSlash(en, "tournament", sub, args...))
}

// memberCmd sends /connectn tournament sub by u in channel.
func (c *cup) memberCmd(u user, channel, sub string) *discordgo.InteractionResponse {
	c.t.Helper()
	en := from(u)
	en.ChannelID = channel
	return c.e.send(discordtest.SlashGroup(en, "connectn", "tournament", sub))
}

// create creates the tournament with args, and finds its ID and sign-up.
func (c *cup) create(args ...discordtest.Arg) *discordgo.Message {
	c.t.Helper()
	resp := c.adminCmd("create", args...)
	mustPrivate(c.t, resp, "created")
	list, err := c.e.store.Tournaments(context.Background(), guildID, 1)
	if err != nil || len(list) != 1 {
		c.t.Fatalf("Tournaments: %v, %v", list, err)
	}
	c.id = list[0].ID
	return c.signUp()
}

// tour returns the tournament as stored.
func (c *cup) tour() *sessions.Tournament {
	c.t.Helper()
	t, err := c.e.store.Tournament(context.Background(), c.id)
	if err != nil {
		c.t.Fatal(err)
	}
	return t
}

// signUp returns the sign-up message as it reads now.
func (c *cup) signUp() *discordgo.Message {
	c.t.Helper()
	id := c.tour().Posts.SignUp
	if id == "" {
		c.t.Fatal("no sign-up message recorded")
	}
	return c.e.message(id)
}

// standings returns the standings message as it reads now.
func (c *cup) standings() string {
	c.t.Helper()
	id := c.tour().Posts.Standings
	if id == "" {
		c.t.Fatal("no standings message recorded")
	}
	return messageText(c.e.message(id))
}

// joinAll has every player click Join.
func (c *cup) joinAll() {
	c.t.Helper()
	for _, u := range c.players {
		mustUpdate(c.t, c.join(u))
	}
}

// join clicks Join on the sign-up as u, with the cup's roles.
func (c *cup) join(u user) *discordgo.InteractionResponse {
	c.t.Helper()
	en := from(u)
	en.Roles = c.roles
	return c.e.send(discordtest.Click(en, c.signUp(), fmt.Sprintf("cn:tjoin:%d", c.id)))
}

// playGame plays moves in the game of round, board: on its board
// message, the live one of its session (in a thread, the newest message;
// in the tournament's channel, among the others).
func (c *cup) playGame(round, board int, moves []string) {
	c.t.Helper()
	place, s := c.game(round, board)
	players := [2]user{c.byID[s.Players[0].ID], c.byID[s.Players[1].ID]}
	for k, col := range moves {
		s := c.session(place.channel)
		msg := place.board()
		if place.channel == channelID {
			msg = c.e.message(s.MessageID)
		}
		mustUpdate(c.t, place.click(players[k%2], msg, col))
	}
}

// session returns the newest session of channel.
func (c *cup) session(channel string) *sessions.Session {
	c.t.Helper()
	s, err := c.e.store.Get(context.Background(), channel)
	if err != nil {
		c.t.Fatal(err)
	}
	return s
}

// game returns the place of the game of round, board and its session.
func (c *cup) game(round, board int) (*place, *sessions.Session) {
	c.t.Helper()
	g := c.tour().Games[round-1][board-1]
	if g.SessionID == 0 {
		c.t.Fatalf("game %d.%d has no session", round, board)
	}
	s, err := c.e.store.Get(context.Background(), g.ChannelID)
	if err != nil {
		c.t.Fatal(err)
	}
	p := &place{e: c.e, channel: g.ChannelID}
	if g.ChannelID != channelID {
		p.shape = func(u user, en *discordtest.Envelope) {
			en.ChannelType, en.ParentID = discordgo.ChannelTypeGuildPublicThread, channelID
		}
	}
	return p, s
}

// moves returns the moves of a game of the cup that the opener wins (a
// line in column 1) or the second wins (a line in column 2): on a 4 × 4
// board, connect 3, or on the standard board.
func (c *cup) moves(openerWon bool) []string {
	c.t.Helper()
	switch connect := c.tour().State.Config.Game().Connect; {
	case connect == 3 && openerWon:
		return []string{"1", "2", "1", "2", "1"}
	case connect == 3:
		return []string{"1", "2", "3", "2", "4", "2"}
	case connect == 4 && openerWon:
		return []string{"1", "2", "1", "2", "1", "2", "1"}
	case connect == 4:
		return []string{"1", "2", "3", "2", "4", "2", "6", "2"}
	}
	c.t.Fatal("the cup's games are played with connect 3 or 4")
	return nil
}

// playRound plays every game of round by clicks in its thread, the
// opener winning on boards where openerWon says so, and returns the
// results as played.
func (c *cup) playRound(round int, openerWon func(board int) bool) {
	c.t.Helper()
	for b, p := range c.tour().State.Rounds[round-1].Pairings {
		if p.Result != tournament.Pending {
			continue
		}
		_, s := c.game(round, b+1)
		if s.Players[0].ID != p.Opener || s.Players[1].ID != p.Second {
			c.t.Fatalf("game %d.%d is played by %s and %s, paired %s and %s", round, b+1, s.Players[0].ID, s.Players[1].ID, p.Opener, p.Second)
		}
		c.playGame(round, b+1, c.moves(openerWon(b+1)))
	}
}

// TestTournamentSwissEndToEnd plays a Swiss of 64 players and 7 rounds
// through the fake Discord: the players join by clicking Join, the admin
// starts it, each round's games are played by clicks in their threads,
// each ending reports its result, the scheduler pairs and posts the next
// round, the standings are edited, and the podium is posted. Halfway
// through round 4 the bot restarts. Under the race detector (or -short) a
// field of 16 plays its 5 rounds instead: the race detector makes each
// click some ten times slower, and 16 players go through every path.
func TestTournamentSwissEndToEnd(t *testing.T) {
	n, rounds := 64, 7
	if raceEnabled || testing.Short() {
		n, rounds = 16, 5
	}
	c := newCupEnv(t, n)
	signUp := c.create(strArg("name", "Friday Swiss"), discordtest.IntArg("rows", 4), discordtest.IntArg("columns", 4),
		discordtest.IntArg("connect", 3))
	mustContain(t, "sign-up", messageText(signUp), "🏆 Friday Swiss", "Swiss system", "**0** players", "Connect 3")
	if labels(signUp.Components) != "Join Leave" {
		t.Fatalf("sign-up buttons %q", labels(signUp.Components))
	}
	c.joinAll()
	mustContain(t, "sign-up after the joins", messageText(c.signUp()), fmt.Sprintf("**%d** players", n), "**Player 1**")

	mustPrivate(t, c.adminCmd("start"), "has started")
	if labels(c.signUp().Components) != "" {
		t.Errorf("the sign-up keeps buttons %q after the start", labels(c.signUp().Components))
	}
	if got := tournament.TotalRounds(c.tour().State); got != rounds {
		t.Fatalf("%d rounds, want %d", got, rounds)
	}
	threadsBefore := 0
	for round := 1; round <= rounds; round++ {
		tour := c.tour()
		if len(tour.State.Rounds) != round {
			t.Fatalf("round %d: %d rounds paired", round, len(tour.State.Rounds))
		}
		games := len(tour.State.Rounds[round-1].Pairings)
		if threads := len(c.e.fake.Threads()); threads != threadsBefore+games {
			t.Fatalf("round %d: %d threads, want %d more than %d", round, threads, games, threadsBefore)
		}
		threadsBefore += games
		// The round's pairings were posted, each game links its thread,
		// and its first board pings both players.
		pairings := ""
		for _, m := range c.e.public() {
			if strings.Contains(messageText(m), fmt.Sprintf("Round %d of %d · pairings", round, rounds)) {
				pairings += messageText(m)
			}
		}
		place, s := c.game(round, 1)
		mustContain(t, fmt.Sprintf("round %d pairings", round), pairings, "<#"+place.channel+">", "**"+s.Players[0].Name+"**")
		first := place.messages()[0]
		mustContain(t, "first board", first.Content, "<@"+s.Players[0].ID+">", "<@"+s.Players[1].ID+">",
			fmt.Sprintf("round %d, board 1", round))
		if first.Content == "" || !slices.Contains(strings.Fields(first.Content), "🏆") {
			t.Errorf("the first board's content %q", first.Content)
		}
		won := func(b int) bool { return (b+round)%3 != 0 }
		if round == 4 {
			half := games / 2
			c.playRoundPart(round, won, 0, half)
			c.e.restart()
			c.playRoundPart(round, won, half, games)
		} else {
			c.playRound(round, won)
		}
		if round == 1 {
			// Every result is in the standings after the sweep.
			c.e.runDue()
			mustContain(t, "standings after round 1", c.standings(), "Standings after round 1", "Buchholz", "Sonneborn–Berger")
		} else {
			c.e.runDue()
		}
	}
	tour := c.tour()
	if tour.Status != sessions.TournamentFinished || !tour.Over() {
		t.Fatalf("after %d rounds: status %s", rounds, tour.Status)
	}
	if len(tour.State.Rounds) != rounds {
		t.Fatalf("%d rounds stored, want %d", len(tour.State.Rounds), rounds)
	}
	st, err := tournament.Standings(tour.State)
	if err != nil {
		t.Fatal(err)
	}
	podium := c.e.message(tour.Posts.Podium)
	mustContain(t, "podium", messageText(podium), "🥇 **"+c.byID[st[0].Player].GlobalName+"**", "🥈 **"+c.byID[st[1].Player].GlobalName+"**",
		"🥉 **"+c.byID[st[2].Player].GlobalName+"**", fmt.Sprintf("%d players · %d rounds", n, rounds))
	mustContain(t, "podium's content", podium.Content, "<@"+st[0].Player+">", "congratulations")
	mustContain(t, "final standings", c.standings(), "Final standings")
	// Nothing more is due, and a sweep changes nothing.
	before := len(c.e.fake.Messages())
	c.e.runDue()
	if after := len(c.e.fake.Messages()); after != before {
		t.Errorf("a sweep after the end wrote %d messages", after-before)
	}
}

// playRoundPart plays the games of round on boards from+1 to to.
func (c *cup) playRoundPart(round int, openerWon func(int) bool, from, to int) {
	c.t.Helper()
	for b := from; b < to; b++ {
		p := c.tour().State.Rounds[round-1].Pairings[b]
		if p.Result != tournament.Pending {
			continue
		}
		c.playGame(round, b+1, c.moves(openerWon(b+1)))
	}
}
