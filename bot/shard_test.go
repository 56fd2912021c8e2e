package bot_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot"
	"github.com/connectn/connectn/bot/discordtest"
	"github.com/connectn/connectn/bot/transport"
	"github.com/connectn/connectn/internal/clock/clocktest"
	"github.com/connectn/connectn/sessions"
)

func TestShardOf(t *testing.T) {
	tests := []struct {
		guild string
		count int
		want  int
	}{
		{guild: "", count: 4, want: 0},                    // a direct message
		{guild: "1200000000000000001", count: 1, want: 0}, // one shard serves all
		{guild: strconv.FormatUint(3<<22, 10), count: 2, want: 1},
		{guild: strconv.FormatUint(3<<22|0x3fffff, 10), count: 4, want: 3}, // the low 22 bits do not count
		{guild: strconv.FormatUint(8<<22, 10), count: 4, want: 0},
		{guild: "not a snowflake", count: 4, want: 0},
	}
	for _, tt := range tests {
		if got := transport.ShardOf(tt.guild, tt.count); got != tt.want {
			t.Errorf("ShardOf(%q, %d) = %d, want %d", tt.guild, tt.count, got, tt.want)
		}
	}
}

// guildOfShard returns a guild ID (a snowflake) that Discord routes to
// shard of count, the n-th such.
func guildOfShard(shard, count, n int) string {
	return strconv.FormatUint(uint64(1000*count+n*count+shard)<<22|12345, 10)
}

// TestShardedGateways runs two gateway processes as shards 0 and 1 of the
// count the fake Discord recommends (2), each on its own store: each
// answers the interactions of its own servers only, and only shard 0
// registers the commands.
func TestShardedGateways(t *testing.T) {
	c := clocktest.New()
	fake := newFake(t, c, discordtest.WithShards(2))
	ctx, cancel := context.WithCancel(context.Background())
	var stores [2]interface {
		Get(context.Context, string) (*sessions.Session, error)
	}
	done := make(chan error, 2)
	for shard := range 2 {
		store, _ := mustOpenStore(t, c)
		stores[shard] = store
		s, err := fake.NewSession(gatewayToken)
		if err != nil {
			t.Fatal(err)
		}
		h := bot.NewHandler(store, slog.New(slog.DiscardHandler), bot.WithClock(c), bot.WithMessenger(bot.NewDiscordMessenger(s)), bot.WithSeed(1))
		t.Cleanup(func() { h.Close(context.Background()) })
		g := &transport.Gateway{Session: s, Handler: h, Commands: bot.Commands(), OnReady: h.SetBotUser, ShardID: shard, Log: slog.New(slog.DiscardHandler)}
		go func() { done <- g.Run(ctx) }()
	}
	t.Cleanup(func() {
		cancel()
		for range 2 {
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("Gateway.Run: %v", err)
				}
			case <-time.After(15 * time.Second):
				t.Error("Gateway.Run did not return within 15s of cancel")
			}
		}
	})
	wait, waitCancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer waitCancel()
	if err := fake.WaitConnections(wait, 2); err != nil {
		t.Fatalf("two shards never connected: %v", err)
	}
	if _, err := fake.WaitRequest(wait, func(r discordtest.Request) bool {
		return r.Method == "PUT" && strings.HasSuffix(r.Path, "/commands")
	}); err != nil {
		t.Fatalf("commands never registered: %v", err)
	}

	// A challenge in two servers of each shard.
	for shard := range 2 {
		for n := range 2 {
			guild := guildOfShard(shard, 2, n)
			e := from(alice)
			e.GuildID, e.ChannelID = guild, "chan-"+guild
			body := discordtest.Slash(e, "connectn", "challenge", discordtest.UserArg("opponent", bob))
			if err := fake.DispatchInteractionJSON(body); err != nil {
				t.Fatalf("dispatch to shard %d: %v", shard, err)
			}
			resp, err := fake.WaitResponse(wait, e.ID)
			if err != nil {
				t.Fatalf("no answer in server %s of shard %d: %v", guild, shard, err)
			}
			if resp.Type != discordgo.InteractionResponseChannelMessageWithSource || resp.Data.Flags&discordgo.MessageFlagsEphemeral != 0 {
				t.Errorf("answer in server %s: type %v flags %v, want the public challenge", guild, resp.Type, resp.Data.Flags)
			}
			for k, st := range stores {
				_, err := st.Get(context.Background(), "chan-"+guild)
				switch {
				case k == shard && err != nil:
					t.Errorf("shard %d has no session in its own server %s: %v", k, guild, err)
				case k != shard && !errors.Is(err, sessions.ErrNotFound):
					t.Errorf("shard %d handled server %s of shard %d: Get() error = %v, want not found", k, guild, shard, err)
				}
			}
		}
	}
	puts := 0
	for _, r := range fake.Requests() {
		if r.Method == "PUT" && strings.HasSuffix(r.Path, "/commands") {
			puts++
		}
	}
	if puts != 1 {
		t.Errorf("command registrations = %d, want 1 (by shard 0 only)", puts)
	}
}

// TestGatewayShardOutOfRange checks that a shard number at or above the
// count stops Run with a clear error before connecting.
func TestGatewayShardOutOfRange(t *testing.T) {
	c := clocktest.New()
	fake := newFake(t, c, discordtest.WithShards(2))
	s, err := fake.NewSession(gatewayToken)
	if err != nil {
		t.Fatal(err)
	}
	store, _ := mustOpenStore(t, c)
	h := bot.NewHandler(store, slog.New(slog.DiscardHandler))
	t.Cleanup(func() { h.Close(context.Background()) })
	g := &transport.Gateway{Session: s, Handler: h, Commands: bot.Commands(), OnReady: h.SetBotUser, ShardID: 2, Log: slog.New(slog.DiscardHandler)}
	err = g.Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("shard %d is out of range for %d shards", 2, 2)) {
		t.Errorf("Run() as shard 2 of 2 error = %v, want out of range", err)
	}
}
