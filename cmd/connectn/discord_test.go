package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot/discordtest"
)

const fakeAppID = "1100000000000000001"

func fakeDiscord(t *testing.T) (*discordtest.Server, deps) {
	t.Helper()
	fake := discordtest.New(discordtest.WithToken(fakeToken), discordtest.WithApplicationID(fakeAppID))
	t.Cleanup(fake.Close)
	return fake, deps{newSession: fake.NewSession}
}

func TestRegister(t *testing.T) {
	tests := []struct {
		name  string
		vars  map[string]string
		guild string
	}{
		{"globally, application looked up", map[string]string{"DISCORD_TOKEN": fakeToken}, ""},
		{"in one guild", map[string]string{"DISCORD_TOKEN": fakeToken, "DISCORD_GUILD_ID": "1200000000000000001"}, "1200000000000000001"},
		{"with a Bot prefix and the app id given", map[string]string{"DISCORD_TOKEN": "Bot " + fakeToken, "DISCORD_APP_ID": fakeAppID}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake, d := fakeDiscord(t)
			r := runWith(t, context.Background(), []string{"register"}, tt.vars, d)
			if r.code != 0 {
				t.Fatalf("got exit %d, want 0\n%s", r.code, r.stderr)
			}
			cmds := fake.Commands(tt.guild)
			if len(cmds) != 1 || cmds[0].Name != "connectn" {
				t.Fatalf("got commands %+v in guild %q, want connectn", cmds, tt.guild)
			}
			if strings.Contains(r.stderr, fakeToken) {
				t.Fatalf("the token was logged:\n%s", r.stderr)
			}
		})
	}
}

func TestRegisterRejectedToken(t *testing.T) {
	_, d := fakeDiscord(t)
	other := "MTIzNDU2Nzg5MDEyMzQ1Njc4OQ.AbCdEf.b3RoZXItdG9rZW4tb3RoZXItdG9rZW4"
	r := runWith(t, context.Background(), []string{"register"}, map[string]string{"DISCORD_TOKEN": other}, d)
	if r.code != 1 || !strings.Contains(r.stderr, "401") {
		t.Fatalf("got exit %d, want 1 with the 401 reported\n%s", r.code, r.stderr)
	}
	if strings.Contains(r.stderr, other) {
		t.Fatalf("the token was logged:\n%s", r.stderr)
	}
}

// TestRunGateway starts `connectn run` against the fake, answers one
// interaction over the gateway, and stops cleanly when its context ends
// (as on SIGINT/SIGTERM).
func TestRunGateway(t *testing.T) {
	fake, d := fakeDiscord(t)
	db := filepath.Join(t.TempDir(), "connectn.db")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan result, 1)
	go func() {
		done <- runWith(t, ctx, []string{"run", "-db", db}, map[string]string{"DISCORD_TOKEN": fakeToken}, d)
	}()

	wait, waitCancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer waitCancel()
	if _, err := fake.WaitRequest(wait, func(r discordtest.Request) bool {
		return r.Method == "PUT" && strings.HasSuffix(r.Path, "/commands")
	}); err != nil {
		t.Fatalf("commands never registered: %v", err)
	}

	i := &discordgo.Interaction{
		ID: "1500000000000000001", AppID: fakeAppID, Type: discordgo.InteractionMessageComponent,
		Token: "dG9rZW4", ChannelID: "1300000000000000001", GuildID: "1200000000000000001",
		Member: &discordgo.Member{User: &discordgo.User{ID: "1400000000000000001", Username: "alice"}},
		Data:   discordgo.MessageComponentInteractionData{CustomID: "cn:drop:1:0:1", ComponentType: discordgo.ButtonComponent},
	}
	if err := fake.DispatchInteraction(i); err != nil {
		t.Fatal(err)
	}
	resp, err := fake.WaitResponse(wait, i.ID)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Data == nil || resp.Data.Flags&discordgo.MessageFlagsEphemeral == 0 || !strings.Contains(resp.Data.Content, "moved on") {
		t.Fatalf("got %+v, want a private stale-button message", resp.Data)
	}

	cancel()
	select {
	case r := <-done:
		if r.code != 0 {
			t.Fatalf("run: got exit %d, want 0\n%s", r.code, r.stderr)
		}
		if strings.Contains(r.stderr, fakeToken) {
			t.Fatalf("the token was logged:\n%s", r.stderr)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("run did not stop within 15s")
	}
}
