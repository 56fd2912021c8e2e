package bot_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot"
	"github.com/connectn/connectn/bot/discordtest"
)

const gatewayToken = "MTEwMDAwMDAwMDAwMDAwMDAwMQ.GhJkLm.Z2F0ZXdheS10ZXN0LXRva2Vu"

// viaGateway returns a transport that dispatches each interaction as an
// INTERACTION_CREATE event on the fake gateway and waits for the bot's
// InteractionRespond callback.
func viaGateway(fake *discordtest.Server) transport {
	return func(t *testing.T, body []byte) *discordgo.InteractionResponse {
		t.Helper()
		var i discordgo.Interaction
		if err := json.Unmarshal(body, &i); err != nil {
			t.Fatalf("decode interaction: %v", err)
		}
		// discordgo's Message drops components when encoded; the fake
		// re-encodes them, but the click only needs the message ID.
		if err := fake.DispatchInteraction(&i); err != nil {
			t.Fatalf("dispatch: %v", err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		resp, err := fake.WaitResponse(ctx, i.ID)
		if err != nil {
			t.Fatalf("wait for the response to %s: %v", i.ID, err)
		}
		return resp
	}
}

// startGateway runs the bot's gateway transport against a fake Discord and
// waits until it has registered its commands. The returned stop function
// ends Run and reports its error.
func startGateway(t *testing.T, fake *discordtest.Server, guild string) func() error {
	t.Helper()
	store, _ := mustOpenStore(t)
	s, err := fake.NewSession(gatewayToken)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	g := &bot.Gateway{Session: s, Handler: newHandler(store), GuildID: guild, Log: slog.New(slog.DiscardHandler)}
	go func() { done <- g.Run(ctx) }()

	wait, waitCancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer waitCancel()
	if _, err := fake.WaitRequest(wait, func(r discordtest.Request) bool {
		return r.Method == "PUT" && strings.HasSuffix(r.Path, "/commands")
	}); err != nil {
		cancel()
		t.Fatalf("commands never registered: %v (Run: %v)", err, <-done)
	}
	stopped := false
	stop := func() error {
		if stopped {
			return nil
		}
		stopped = true
		cancel()
		select {
		case err := <-done:
			return err
		case <-time.After(15 * time.Second):
			return errors.New("Gateway.Run did not return within 15s of cancel")
		}
	}
	t.Cleanup(func() { stop() })
	return stop
}

func TestCompleteMatchGateway(t *testing.T) {
	fake := discordtest.New(discordtest.WithToken(gatewayToken), discordtest.WithApplicationID(appID))
	defer fake.Close()
	stop := startGateway(t, fake, guildID)

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	id, err := fake.WaitIdentify(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if id.Intents != 0 {
		t.Errorf("IDENTIFY asked for intents %d, want none", id.Intents)
	}

	cmds := fake.Commands(guildID)
	if len(cmds) != 1 || cmds[0].Name != "connectn" {
		t.Fatalf("guild commands: got %+v, want one named connectn", cmds)
	}
	if global := fake.Commands(""); len(global) != 0 {
		t.Errorf("with a guild set, %d commands were registered globally", len(global))
	}
	challenge := cmds[0].Options[0]
	if challenge.Name != "challenge" || challenge.Type != discordgo.ApplicationCommandOptionSubCommand {
		t.Fatalf("got first option %+v, want subcommand challenge", challenge)
	}
	bounds := map[string][2]float64{}
	for _, o := range challenge.Options {
		if o.MinValue != nil {
			bounds[o.Name] = [2]float64{*o.MinValue, o.MaxValue}
		}
	}
	wantBounds := map[string][2]float64{"rows": {4, 12}, "columns": {4, 12}, "connect": {3, 12}, "wins": {1, 9}}
	for name, want := range wantBounds {
		if got := bounds[name]; got != want {
			t.Errorf("option %s: got bounds %v, want %v", name, got, want)
		}
	}
	if o := challenge.Options[0]; o.Name != "opponent" || o.Type != discordgo.ApplicationCommandOptionUser || !o.Required {
		t.Errorf("got first option %+v, want required USER opponent", o)
	}

	playCompleteMatch(t, newChannel(t, viaGateway(fake)), nil)

	if err := stop(); err != nil {
		t.Fatalf("Run: %v", err)
	}
}

func TestGatewayRegistersGlobally(t *testing.T) {
	fake := discordtest.New(discordtest.WithToken(gatewayToken), discordtest.WithApplicationID(appID))
	defer fake.Close()
	stop := startGateway(t, fake, "")
	if got := fake.Commands(""); len(got) != 1 || got[0].Name != "connectn" {
		t.Fatalf("global commands: got %+v, want connectn", got)
	}
	if err := stop(); err != nil {
		t.Fatalf("Run: %v", err)
	}
}

func TestGatewayBadToken(t *testing.T) {
	fake := discordtest.New(discordtest.WithToken(gatewayToken), discordtest.WithApplicationID(appID))
	defer fake.Close()
	store, _ := mustOpenStore(t)
	s, err := fake.NewSession("MTE.wrong.token")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	g := &bot.Gateway{Session: s, Handler: newHandler(store), Log: slog.New(slog.DiscardHandler)}
	if err := g.Run(ctx); err == nil {
		t.Fatal("Run with a wrong token: got nil error")
	}
}
