package bot_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// recordedMatch is the scripted match behind testdata/replay: a 4x4 board,
// connect 3, one round win. Each step is who acts and what they click.
var recordedMatch = []struct{ name, who, click string }{
	{"challenge", "alice", ""},
	{"accept", "bob", "Accept"},
	{"drop-1", "alice", "1"},
	{"out-of-turn", "alice", "2"},
	{"drop-2", "bob", "2"},
	{"drop-2", "alice", "2"},
	{"drop-3", "bob", "3"},
	{"drop-3", "alice", "3"},
	{"drop-1", "bob", "1"},
	{"drop-3-wins", "alice", "3"},
}

// TestRecordedInteractions replays the interaction JSON under
// testdata/replay (Discord's documented payloads: a slash command with its
// USER option resolved, then button clicks carrying data.custom_id and the
// message) through the handler, and compares every response with its
// golden file. With -update it writes the interactions (when missing) and
// the goldens.
func TestRecordedInteractions(t *testing.T) {
	dir := filepath.Join("testdata", "replay")
	if *update {
		writeRecordedInteractions(t, dir)
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.interaction.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no recorded interactions in %s (run with -update): %v", dir, err)
	}
	sort.Strings(files)
	store, _ := mustOpenStore(t)
	h := newHandler(store)
	for _, f := range files {
		body, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var i discordgo.Interaction
		if err := json.Unmarshal(body, &i); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		resp, err := h.Handle(context.Background(), &i)
		if err != nil {
			t.Fatalf("%s: Handle: %v", f, err)
		}
		got, err := json.MarshalIndent(resp, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, '\n')
		golden := strings.TrimSuffix(f, ".interaction.json") + ".response.golden.json"
		if *update {
			if err := os.WriteFile(golden, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (run with -update)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: response differs from %s:\ngot:\n%s\nwant:\n%s", f, golden, got, want)
		}
	}
}

// writeRecordedInteractions plays recordedMatch once and saves each
// interaction it sent, unless the files exist already.
func writeRecordedInteractions(t *testing.T, dir string) {
	t.Helper()
	if existing, _ := filepath.Glob(filepath.Join(dir, "*.interaction.json")); len(existing) > 0 {
		return
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	store, _ := mustOpenStore(t)
	h := direct(newHandler(store))
	n := 0
	var record transport = func(t *testing.T, body []byte) *discordgo.InteractionResponse {
		t.Helper()
		step := recordedMatch[n]
		var pretty bytes.Buffer
		json.Indent(&pretty, body, "", "  ")
		pretty.WriteByte('\n')
		name := filepath.Join(dir, strings.Join([]string{twoDigits(n + 1), step.who, step.name}, "-")+".interaction.json")
		if err := os.WriteFile(name, pretty.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		n++
		return h(t, body)
	}
	ch := newChannel(t, record)
	users := map[string]user{"alice": alice, "bob": bob}
	for _, step := range recordedMatch {
		if step.click == "" {
			ch.command(slashChallenge(alice, bob, map[string]int{"rows": 4, "columns": 4, "connect": 3, "wins": 1}))
			continue
		}
		ch.click(users[step.who], step.click)
	}
}

func twoDigits(n int) string {
	return string(rune('0'+n/10)) + string(rune('0'+n%10))
}
