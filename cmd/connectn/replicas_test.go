package main

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot/discordtest"
	"github.com/connectn/connectn/sessions/postgres"
	"github.com/connectn/connectn/sessions/sessionstest"
)

// testPostgres returns a URL to a schema of its own in the PostgreSQL
// server of CONNECTN_TEST_POSTGRES, or skips the test when it is unset.
func testPostgres(t *testing.T) string {
	t.Helper()
	u := os.Getenv("CONNECTN_TEST_POSTGRES")
	if u == "" {
		t.Skip("CONNECTN_TEST_POSTGRES is not set: set it to a PostgreSQL URL, such as postgres://postgres@127.0.0.1:5432/test?sslmode=disable, to run the tests of several replicas on one database")
	}
	return sessionstest.PostgresSchema(t, u)
}

// replica is one `connectn serve` running in this test process, with its
// own store, cache, handler and scheduler, as a separate process would
// have them.
type replica struct {
	endpoint, base string
	done           chan result
	cancel         context.CancelFunc
}

// startReplica runs `connectn serve` on db with CONNECTN_DISCORD_API at
// fake and args added, and waits until it listens.
func startReplica(t *testing.T, fake *discordtest.Server, db string, args ...string) *replica {
	t.Helper()
	listen, addrs := listenSpy()
	ctx, cancel := context.WithCancel(context.Background())
	r := &replica{done: make(chan result, 1), cancel: cancel}
	go func() {
		r.done <- runWith(t, ctx, append([]string{"serve", "-addr", "127.0.0.1:0", "-db", db}, args...),
			map[string]string{"DISCORD_PUBLIC_KEY": testPublic, "CONNECTN_DISCORD_API": fake.URL() + "/api/v10"},
			deps{listen: listen, newSession: func(string) (*discordgo.Session, error) { return discordgo.New("") }})
	}()
	select {
	case addr := <-addrs:
		r.base = "http://" + addr
		r.endpoint = r.base + "/interactions"
	case res := <-r.done:
		cancel()
		t.Fatalf("serve ended early: exit %d\n%s", res.code, res.stderr)
	case <-time.After(15 * time.Second):
		cancel()
		t.Fatal("serve did not listen within 15s")
	}
	t.Cleanup(func() { r.stop(t) })
	return r
}

// stop ends the replica as SIGTERM would, once, and checks it exits 0
// without logging a secret.
func (r *replica) stop(t *testing.T) {
	t.Helper()
	if r.cancel == nil {
		return
	}
	r.cancel()
	r.cancel = nil
	select {
	case res := <-r.done:
		if res.code != 0 {
			t.Errorf("serve: exit %d\n%s", res.code, res.stderr)
		}
		if strings.Contains(res.stderr, "aW50ZXJhY3Rpb24") {
			t.Errorf("an interaction token was logged:\n%s", res.stderr)
		}
	case <-time.After(15 * time.Second):
		t.Error("serve did not stop within 15s")
	}
}

// deliverTo delivers the interaction body to endpoint as Discord would
// and returns the bot's answer.
func deliverTo(fake *discordtest.Server, endpoint string, body []byte) (*discordgo.InteractionResponse, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return fake.DeliverJSON(ctx, endpoint, testPrivate, body)
}

// TestTwoReplicasRaceOverHTTP runs two `connectn serve` replicas on one
// PostgreSQL database behind no proxy at all: Discord's clicks go to
// either. For each turn, the player to move clicks the same column on the
// board many times at once, half the copies to each replica (as a
// double-click split by a load balancer, or Discord retrying): exactly one
// move applies per turn; every other click gets the private answer a
// click that lost the race gets from one process, never an apology. The
// count of moves in the database is then exact. Then a turn runs out with
// both schedulers running: the deadline fires once between them.
func TestTwoReplicasRaceOverHTTP(t *testing.T) {
	db := testPostgres(t)
	fake := discordtest.New(discordtest.WithToken(fakeToken), discordtest.WithApplicationID(fakeAppID))
	defer fake.Close()
	replicas := []*replica{startReplica(t, fake, db, "-turn-timeout", "3s"), startReplica(t, fake, db, "-turn-timeout", "3s")}
	const channel = "1300000000000000777"
	newest := func() *discordgo.Message {
		t.Helper()
		msgs := fake.ChannelMessages(channel)
		if len(msgs) == 0 {
			t.Fatal("no message in the channel")
		}
		return msgs[len(msgs)-1]
	}
	challenge := discordtest.Slash(from(alice, channel), "connectn", "challenge",
		discordtest.UserArg("opponent", bob), discordtest.IntArg("rows", 6), discordtest.IntArg("columns", 7))
	if _, err := deliverTo(fake, replicas[0].endpoint, challenge); err != nil {
		t.Fatal(err)
	}
	msg := newest()
	accept := discordtest.FindButton(msg.Components, "Accept")
	if accept == nil {
		t.Fatal("no button \"Accept\" on the challenge")
	}
	if _, err := deliverTo(fake, replicas[1].endpoint, discordtest.Click(from(bob, channel), msg, accept.CustomID)); err != nil {
		t.Fatal(err)
	}

	// race clicks label for who copies times at once, spread over the
	// replicas in turn (all on replicas[0] when one is true), and returns
	// the boards applied and the private texts of the others.
	race := func(who discordtest.User, label string, copies int, one bool) (applied int, refusals []string) {
		t.Helper()
		m := newest()
		b := discordtest.FindButton(m.Components, label)
		if b == nil {
			t.Fatalf("no button %q on the newest message", label)
		}
		var (
			wg    sync.WaitGroup
			mu    sync.Mutex
			start = make(chan struct{})
		)
		for k := range copies {
			i := discordtest.Click(from(who, channel), m, b.CustomID)
			r := replicas[k%len(replicas)]
			if one {
				r = replicas[0]
			}
			wg.Go(func() {
				<-start
				resp, err := deliverTo(fake, r.endpoint, i)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err != nil:
					t.Errorf("click %d: %v", k, err)
				case resp.Type == discordgo.InteractionResponseUpdateMessage:
					applied++
				case resp.Data != nil && resp.Data.Flags&discordgo.MessageFlagsEphemeral != 0:
					refusals = append(refusals, resp.Data.Content)
				default:
					t.Errorf("click %d: answer of type %v, want a board or a private refusal", k, resp.Type)
				}
			})
		}
		close(start)
		wg.Wait()
		return applied, refusals
	}

	// What a click that lost the race reads when one process took both.
	_, single := race(alice, "4", 6, true)
	if len(single) != 5 {
		t.Fatalf("one replica, six copies of one click: %d refused, want 5", len(single))
	}
	lost := single[0]
	if !strings.Contains(lost, "moved on") {
		t.Fatalf("a click that lost the race in one process reads %q, want the moved-on answer", lost)
	}
	// Columns 4 and 5 filled in alternate colours, bottom to top: no line
	// of four, so the round goes on; Bob is to move after the last.
	plan := []string{"4", "5", "5", "4", "4", "5", "5", "4", "4", "5"}
	players := []discordtest.User{bob, alice}
	for turn, label := range plan {
		applied, refusals := race(players[turn%2], label, 8, false)
		if applied != 1 {
			t.Fatalf("turn %d: %d clicks applied over two replicas, want exactly 1", turn+2, applied)
		}
		for _, text := range refusals {
			if text != lost {
				t.Errorf("turn %d: a click that lost the race to the other replica reads %q, want %q as in one process", turn+2, text, lost)
			}
		}
		if len(refusals) != 7 {
			t.Errorf("turn %d: %d private refusals, want 7", turn+2, len(refusals))
		}
	}
	st, err := postgres.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s, err := st.Get(context.Background(), channel)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := s.Match.Plies(), 1+len(plan); got != want {
		t.Fatalf("moves in the database = %d, want exactly %d (one per turn)", got, want)
	}

	// Bob, to move, lets his 3 s turn run out: both replicas' schedulers
	// see the deadline; it fires once between them.
	wait, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := fake.WaitMessage(wait, func(m discordtest.Message) bool {
		return m.Kind == discordtest.WebhookMessageEdit && len(m.Message.Embeds) > 0 && strings.Contains(m.Message.Embeds[0].Description, "did not play in time")
	}); err != nil {
		t.Fatalf("the turn never ran out on the board: %v", err)
	}
	// The schedulers run on the real clock here, as in production, once a
	// second each: give the other one a full tick past the deadline, so
	// that it would fire a second time if it could (sessionstest's
	// DeadlineFiresOnce proves the same without a clock).
	time.Sleep(schedulerInterval + 200*time.Millisecond)
	fired := 0.0
	for _, r := range replicas {
		_, body := get(t, r.base+"/metrics")
		n, _ := metricValue(body, `connectn_deadlines_fired_total{kind="turn"}`)
		fired += n
	}
	if fired != 1 {
		t.Errorf("turn deadlines fired over both replicas = %v, want 1", fired)
	}
	stats, err := st.Stats(context.Background(), guildID, bobID, false)
	if err != nil || stats.Losses != 1 || stats.Matches != 1 {
		t.Errorf("Stats(bob) = %+v, %v, want one match lost, counted once", stats, err)
	}
	edits := 0
	for _, m := range fake.Messages() {
		if m.Kind == discordtest.WebhookMessageEdit && len(m.Message.Embeds) > 0 && strings.Contains(m.Message.Embeds[0].Description, "did not play in time") {
			edits++
		}
	}
	if edits != 1 {
		t.Errorf("board edits for the deadline = %d, want 1", edits)
	}
}
