//go:build unix

package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot/discordtest"
	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/sessions"
	"github.com/connectn/connectn/sessions/postgres"
)

// freeAddr returns a loopback address with a port nobody listens on now.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// ack is a move a replica acknowledged: the board it answered with held it.
type ack struct {
	channel   string
	ply       int
	move      game.Action
	afterKill bool
}

// TestKillReplicaUnderLoad runs two `connectn serve` processes (the built
// binary) on one PostgreSQL database and plays several matches at once
// through both, as a load balancer spreads clicks; in the middle it kills
// one with SIGKILL. Every move either replica acknowledged (answered with
// the board that holds it) must be in the database, at its place, and the
// other replica must carry every match on to its end. It prints its
// verdict.
func TestKillReplicaUnderLoad(t *testing.T) {
	db := testPostgres(t)
	fake := discordtest.New(discordtest.WithToken(fakeToken), discordtest.WithApplicationID(fakeAppID))
	defer fake.Close()
	dir := t.TempDir()
	type proc struct {
		base string
		cmd  interface{ Wait() error }
		kill func() error
	}
	var procs []proc
	for range 2 {
		addr := freeAddr(t)
		cmd := binaryCmd(t, dir, map[string]string{"DISCORD_PUBLIC_KEY": testPublic, "CONNECTN_DISCORD_API": fake.URL() + "/api/v10",
			"CONNECTN_DB": db, "CONNECTN_ADDR": addr, "CONNECTN_LOG_LEVEL": "warn"}, "serve")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = cmd.Process.Signal(syscall.SIGTERM)
			_ = cmd.Wait()
		})
		procs = append(procs, proc{base: "http://" + addr, cmd: cmd, kill: func() error { return cmd.Process.Signal(syscall.SIGKILL) }})
	}
	for _, p := range procs {
		ready := false
		for end := time.Now().Add(20 * time.Second); time.Now().Before(end) && !ready; {
			if res, err := http.Get(p.base + "/readyz"); err == nil {
				res.Body.Close()
				ready = res.StatusCode == http.StatusOK
			}
			if !ready {
				time.Sleep(50 * time.Millisecond)
			}
		}
		if !ready {
			t.Fatalf("%s never became ready", p.base)
		}
	}
	st, err := postgres.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()

	const matches = 8
	var (
		killed atomic.Bool
		next   atomic.Int64
		mu     sync.Mutex
		acks   []ack
		wg     sync.WaitGroup
		ackedN atomic.Int64
		failed atomic.Int64 // clicks lost with the killed replica (no answer)
		// playing counts the matches past their challenge. The kill waits
		// for all: a challenge the killed replica stored but never
		// answered has no message to accept (in Discord too), and its
		// channel is taken until the challenge expires, minutes later.
		playing atomic.Int64
	)
	// endpoint spreads requests over the replicas alive, as a load
	// balancer that has not yet noticed the kill would: in turn, the dead
	// one included until it is known dead.
	endpoint := func() string {
		k := int(next.Add(1)) % len(procs)
		if killed.Load() {
			k = 1
		}
		return procs[k].base + "/interactions"
	}
	deliver := func(body []byte) (*discordgo.InteractionResponse, error) {
		return deliverTo(fake, endpoint(), body)
	}
	members := map[string]discordtest.User{aliceID: alice, bobID: bob}
	deadline := time.Now().Add(90 * time.Second)
	for n := range matches {
		ch := fmt.Sprintf("13000000000000009%02d", n)
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(n), 7))
			// The challenge and its acceptance, retried until a replica answers.
			for time.Now().Before(deadline) {
				s, err := st.Get(context.Background(), ch)
				switch {
				case err != nil:
					_, _ = deliver(discordtest.Slash(from(alice, ch), "connectn", "challenge",
						discordtest.UserArg("opponent", bob), discordtest.IntArg("wins", 1)))
					continue
				case s.Phase == sessions.PhaseChallenge:
					msgs := fake.ChannelMessages(ch)
					if len(msgs) > 0 {
						m := msgs[len(msgs)-1]
						if accept := discordtest.FindButton(m.Components, "Accept"); accept != nil {
							_, _ = deliver(discordtest.Click(from(bob, ch), m, accept.CustomID))
						}
					}
					continue
				}
				break
			}
			playing.Add(1)
			for time.Now().Before(deadline) {
				s, err := st.Get(context.Background(), ch)
				if err != nil {
					t.Errorf("%s: %v", ch, err)
					return
				}
				if !s.Phase.Active() {
					return
				}
				var cols []int
				for c := range s.Config.Columns {
					if s.Match.Round().CanDrop(c) {
						cols = append(cols, c)
					}
				}
				col := cols[rng.IntN(len(cols))]
				p := s.Match.ToMove()
				who := members[s.Member(p).ID]
				msgs := fake.ChannelMessages(ch)
				var m *discordgo.Message
				var drop *discordgo.Button
				if len(msgs) > 0 {
					m = msgs[len(msgs)-1]
					drop = discordtest.FindButton(m.Components, strconv.Itoa(col+1))
				}
				if drop == nil { // no live board in sight: ask for it again
					_, _ = deliver(discordtest.Slash(from(who, ch), "connectn", "board"))
					continue
				}
				resp, err := deliver(discordtest.Click(from(who, ch), m, drop.CustomID))
				switch {
				case err != nil:
					failed.Add(1) // no answer: not acknowledged
				case resp.Type == discordgo.InteractionResponseUpdateMessage:
					mu.Lock()
					acks = append(acks, ack{channel: ch, ply: s.Match.Plies(), move: game.Action{Kind: game.Drop, Player: p, Column: col}, afterKill: killed.Load()})
					mu.Unlock()
					ackedN.Add(1)
				default:
					// The board moved on without us seeing it (a move the killed
					// replica committed but never answered): post it again.
					_, _ = deliver(discordtest.Slash(from(who, ch), "connectn", "board"))
				}
			}
			t.Errorf("%s: the match did not end in time", ch)
		})
	}
	// Kill one replica once a good part of the moves are acknowledged.
	for (ackedN.Load() < 40 || playing.Load() < matches) && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if err := procs[0].kill(); err != nil {
		t.Fatal(err)
	}
	_ = procs[0].cmd.Wait()
	killed.Store(true)
	before := ackedN.Load()
	wg.Wait()

	mu.Lock()
	defer mu.Unlock()
	lost, after := 0, 0
	for _, a := range acks {
		if a.afterKill {
			after++
		}
		s, err := st.Get(context.Background(), a.channel)
		if err != nil {
			t.Fatal(err)
		}
		actions := s.Match.Actions()
		if a.ply >= len(actions) || actions[a.ply] != a.move {
			lost++
			t.Errorf("%s: acknowledged move %d (%v) is not in the database", a.channel, a.ply, a.move)
		}
	}
	finished := 0
	for n := range matches {
		s, err := st.Get(context.Background(), fmt.Sprintf("13000000000000009%02d", n))
		if err == nil && s.Phase == sessions.PhaseFinished {
			finished++
		}
	}
	if after == 0 {
		t.Error("no move was acknowledged after the kill: the other replica did not carry on")
	}
	if finished != matches {
		t.Errorf("matches finished = %d, want %d", finished, matches)
	}
	verdict := "PASS"
	if t.Failed() {
		verdict = "FAIL"
	}
	t.Logf("kill -9 verdict: %s: %d moves acknowledged (%d before the SIGKILL of one replica, %d after, by the other), %d lost; %d clicks went unanswered with the killed replica; %d of %d matches played to their end",
		verdict, len(acks), before, after, lost, failed.Load(), finished, matches)
}
