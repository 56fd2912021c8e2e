package discordtest_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"
)

func TestCommandsBulkOverwrite(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	sess, err := srv.NewSession(srv.Token())
	if err != nil {
		t.Fatal(err)
	}
	appID := srv.ApplicationID()
	cmds := []*discordgo.ApplicationCommand{
		{Name: "play", Description: "Start a game", Options: []*discordgo.ApplicationCommandOption{
			{Type: discordgo.ApplicationCommandOptionUser, Name: "opponent", Description: "Who to play", Required: true},
		}},
		{Name: "stats", Description: "Show statistics"},
	}
	global, err := sess.ApplicationCommandBulkOverwrite(appID, "", cmds)
	if err != nil {
		t.Fatal(err)
	}
	if len(global) != 2 || global[0].ID == "" || global[0].ApplicationID != appID || global[0].Type != discordgo.ChatApplicationCommand {
		t.Fatalf("global overwrite returned %+v", global)
	}
	if _, err := sess.ApplicationCommandBulkOverwrite(appID, "99", cmds[:1]); err != nil {
		t.Fatal(err)
	}

	if got := srv.Commands(""); len(got) != 2 || got[0].Name != "play" || got[1].Name != "stats" || got[0].ID != global[0].ID {
		t.Errorf("Commands(\"\") = %+v", got)
	}
	if got := srv.Commands("99"); len(got) != 1 || got[0].GuildID != "99" || got[0].Options[0].Name != "opponent" {
		t.Errorf("Commands(99) = %+v", got)
	}
	if got := srv.Commands("98"); got != nil {
		t.Errorf("Commands(98) = %+v, want nil", got)
	}

	// Overwriting keeps the id of a command with the same name.
	again, err := sess.ApplicationCommandBulkOverwrite(appID, "", cmds[1:])
	if err != nil {
		t.Fatal(err)
	}
	if len(again) != 1 || again[0].ID != global[1].ID || len(srv.Commands("")) != 1 {
		t.Errorf("second overwrite = %+v", again)
	}

	// Discord's validation: upper-case names are rejected.
	_, err = sess.ApplicationCommandBulkOverwrite(appID, "", []*discordgo.ApplicationCommand{{Name: "Play", Description: "x"}})
	if status, code := restCode(t, err); status != http.StatusBadRequest || code != 50035 {
		t.Errorf("invalid name: status %d code %d", status, code)
	}
	if len(srv.Commands("")) != 1 {
		t.Errorf("rejected overwrite changed the commands")
	}
}

func TestTransportAndErrors(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	client := &http.Client{Transport: srv.Transport()}
	get := func(method, url, auth string) (int, map[string]any) {
		t.Helper()
		req, err := http.NewRequest(method, url, nil)
		if err != nil {
			t.Fatal(err)
		}
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		var v map[string]any
		if err := json.Unmarshal(body, &v); err != nil {
			t.Fatalf("%s %s: body %q is not JSON: %v", method, url, body, err)
		}
		return resp.StatusCode, v
	}

	status, v := get("GET", "https://discord.com/api/v9/gateway", "")
	if url, _ := v["url"].(string); status != 200 || !strings.HasPrefix(url, "ws://127.0.0.1:") {
		t.Errorf("GET /gateway = %d %v", status, v)
	}
	auth := "Bot " + srv.Token()
	if status, v := get("GET", "https://discord.com/api/v9/gateway/bot", ""); status != 401 || v["message"] != "401: Unauthorized" || v["code"] != 0.0 {
		t.Errorf("GET /gateway/bot without a token = %d %v", status, v)
	}
	if status, v := get("GET", "https://discord.com/api/v10/gateway/bot", auth); status != 200 || v["shards"] != 1.0 {
		t.Errorf("GET /gateway/bot = %d %v", status, v)
	}
	if status, v := get("GET", "https://discord.com/api/v9/no/such/route", auth); status != 404 || v["message"] != "404: Not Found" {
		t.Errorf("unknown route = %d %v", status, v)
	}
	if status, v := get("DELETE", "https://discord.com/api/v9/gateway", auth); status != 405 || v["code"] != 0.0 {
		t.Errorf("wrong method = %d %v", status, v)
	}
	if status, v := get("GET", "https://discord.com/api/v9/oauth2/applications/@me", auth); status != 200 || v["id"] != srv.ApplicationID() {
		t.Errorf("GET /oauth2/applications/@me = %d %v", status, v)
	}
	reqs := srv.Requests()
	if len(reqs) != 6 || reqs[3].Path != "/no/such/route" || reqs[3].Status != 404 || reqs[0].Host != "discord.com" {
		t.Errorf("requests = %+v", reqs)
	}
}
