package bot_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot"
	"github.com/connectn/connectn/game/ai"
	"github.com/connectn/connectn/sessions"
)

// update is -update, defined with the internal tests.
var update = bot.UpdateGolden

// replayStep is one interaction of the recorded session behind
// testdata/replay, with what its response must show whatever the golden
// file says: the response type and a phrase of its text.
type replayStep struct {
	name string
	// build returns the interaction JSON, given the channel as it stands
	// (for clicks: the message and the button).
	build func(e *env) []byte
	typ   discordgo.InteractionResponseType
	fact  string
}

// on returns a click by who on the button labelled label of the newest
// public message (or of the newest private one when private is set).
func on(who user, label string, private bool) func(e *env) []byte {
	return func(e *env) []byte {
		m := e.board()
		if private {
			m = e.lastPrivate()
		}
		return componentClick(who, m, findButton(e.t, m.Components, label).CustomID)
	}
}

// onMessage clicks label on the public message n (counted from 0).
func onMessage(n int, who user, label string) func(e *env) []byte {
	return func(e *env) []byte {
		m := e.public()[n]
		return componentClick(who, m, findButton(e.t, m.Components, label).CustomID)
	}
}

// cmd returns a step that sends the interaction build makes, when the step
// is recorded.
func cmd(build func() []byte) func(*env) []byte { return func(*env) []byte { return build() } }

// rematchAgain returns a click by who on Rematch under the channel's last
// finished match, as a client that still shows the button sends it (the
// message has disabled it since).
func rematchAgain(who user) func(e *env) []byte {
	return func(e *env) []byte {
		hist, err := e.store.History(context.Background(), channelID, 0)
		if err != nil {
			e.t.Fatal(err)
		}
		for _, s := range hist {
			if s.Phase == sessions.PhaseFinished {
				msg := e.fake.Message(s.MessageID)
				return componentClick(who, msg, "cn:rematch:"+strconv.FormatInt(s.ID, 10))
			}
		}
		e.t.Fatal("no finished match")
		return nil
	}
}

// recordedSession uses every command and every button once at least.
var recordedSession = []replayStep{
	{"alice-challenge", cmd(func() []byte {
		return slash(alice, "challenge", "opponent", bob, "rows", 4, "columns", 4, "connect", 3, "wins", 1, "first", "challenger", "theme", "colorblind")
	}),
		discordgo.InteractionResponseChannelMessageWithSource, "challenges you to a match of Connect 3"},
	{"bob-accept", on(bob, "Accept", false), discordgo.InteractionResponseUpdateMessage, "Alice** to play"},
	{"alice-drop-1", on(alice, "1", false), discordgo.InteractionResponseUpdateMessage, "Bob** to play"},
	{"alice-out-of-turn", on(alice, "2", false), discordgo.InteractionResponseChannelMessageWithSource, "not your turn"},
	{"bob-board", cmd(func() []byte { return slash(bob, "board") }),
		discordgo.InteractionResponseChannelMessageWithSource, "Bob** to play"},
	{"bob-drop-on-old-board", onMessage(0, bob, "2"), discordgo.InteractionResponseChannelMessageWithSource, "This board moved: play on [the live board]("},
	{"bob-drop-2", on(bob, "2", false), discordgo.InteractionResponseUpdateMessage, "Alice** to play"},
	{"alice-forfeit", on(alice, "Forfeit match", false), discordgo.InteractionResponseChannelMessageWithSource, "Forfeit the match?"},
	{"alice-keep-playing", on(alice, "Keep playing", true), discordgo.InteractionResponseUpdateMessage, "the match goes on"},
	{"alice-drop-1", on(alice, "1", false), discordgo.InteractionResponseUpdateMessage, "Bob** to play"},
	{"bob-drop-2", on(bob, "2", false), discordgo.InteractionResponseUpdateMessage, "Alice** to play"},
	{"alice-drop-1-wins", on(alice, "1", false), discordgo.InteractionResponseUpdateMessage, "🔷 3 in a row: column 1, rows 1–3\n\n🏆 🔵 **Alice** wins the match!"},
	{"carol-picture", on(carol, "Picture", false), discordgo.InteractionResponseDeferredChannelMessageWithSource, ""},
	{"carol-rematch", on(carol, "Rematch", false), discordgo.InteractionResponseChannelMessageWithSource, "not playing in this match"},
	{"bob-rematch", on(bob, "Rematch", false), discordgo.InteractionResponseUpdateMessage, "**Bob** asked for a rematch"},
	{"alice-rematch-too", rematchAgain(alice), discordgo.InteractionResponseChannelMessageWithSource, "**Bob** asked for a rematch already"},
	{"alice-accepts-rematch", on(alice, "Accept", false), discordgo.InteractionResponseUpdateMessage, "Bob** to play"},
	{"bob-forfeit-command", cmd(func() []byte { return slash(bob, "forfeit") }),
		discordgo.InteractionResponseChannelMessageWithSource, "Forfeit the match?"},
	{"bob-confirms-forfeit", on(bob, "Forfeit match", true), discordgo.InteractionResponseUpdateMessage, "You forfeited the match"},
	{"alice-stats-of-bob", cmd(func() []byte { return slash(alice, "stats", "user", bob) }),
		discordgo.InteractionResponseChannelMessageWithSource, "Bob vs Alice: **0–2**"},
	{"carol-leaderboard", cmd(func() []byte { return slash(carol, "leaderboard") }),
		discordgo.InteractionResponseChannelMessageWithSource, "🥇 <@" + aliceID + "> — **2–0** · 100%"},
	{"carol-help", cmd(func() []byte { return slash(carol, "help") }),
		discordgo.InteractionResponseChannelMessageWithSource, "A turn lasts **5 minutes** here"},
	{"carol-challenge", cmd(func() []byte { return slashChallenge(carol, alice, nil) }),
		discordgo.InteractionResponseChannelMessageWithSource, "challenges you"},
	{"bob-accepts-carols-challenge", on(bob, "Accept", false), discordgo.InteractionResponseChannelMessageWithSource, "between two other players"},
	{"alice-decline", on(alice, "Decline", false), discordgo.InteractionResponseUpdateMessage, "🟡 **Alice** declined."},
	{"carol-challenges-again", cmd(func() []byte { return slashChallenge(carol, alice, nil) }),
		discordgo.InteractionResponseChannelMessageWithSource, "challenges you"},
	{"carol-forfeit-command-withdraws", cmd(func() []byte { return slash(carol, "forfeit") }),
		discordgo.InteractionResponseChannelMessageWithSource, "You withdrew your challenge"},
	{"carol-plays-the-bot", cmd(func() []byte {
		return slash(carol, "challenge", "rows", 4, "columns", 5, "connect", 3, "wins", 1, "level", "medium")
	}),
		discordgo.InteractionResponseChannelMessageWithSource, "against the bot (medium)"},
	{"carol-drop-3", on(carol, "3", false), discordgo.InteractionResponseUpdateMessage, "Carol** to play"},
	{"carol-drop-2", on(carol, "2", false), discordgo.InteractionResponseUpdateMessage, "Carol** to play"},
	{"carol-forfeit-command", cmd(func() []byte { return slash(carol, "forfeit") }),
		discordgo.InteractionResponseChannelMessageWithSource, "Forfeit the match?"},
	{"carol-confirms-forfeit", on(carol, "Forfeit match", true), discordgo.InteractionResponseUpdateMessage, "Connect N** wins it"},
	{"alice-analysis", on(alice, "Analysis", false), discordgo.InteractionResponseDeferredChannelMessageWithSource, ""},
	{"carol-help-again", cmd(func() []byte { return slash(carol, "help") }),
		discordgo.InteractionResponseChannelMessageWithSource, "How to play Connect N"},
	{"carol-help-commands", on(carol, "Commands", true), discordgo.InteractionResponseUpdateMessage, "Connect N help · Commands"},
}

// replayEnv is the bot of the recorded session: with an AI whose moves
// at medium depend only on its seed.
func replayEnv(t *testing.T) *env {
	return newEnv(t, bot.WithAI(ai.NewEngine(ai.Options{TableMB: 4, Workers: 1, Seed: 1})))
}

// TestRecordedInteractions replays the interaction JSON under
// testdata/replay (Discord's documented payloads: slash commands with
// their options and USER options resolved, button clicks carrying
// data.custom_id and the message they are on) through a bot, in order, and
// compares every response with its golden file; each response must also
// show its step's fact. With -update it records the interactions (when
// missing) and writes the goldens.
func TestRecordedInteractions(t *testing.T) {
	dir := filepath.Join("testdata", "replay")
	if *update {
		recordSession(t, dir)
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.interaction.json"))
	if err != nil || len(files) != len(recordedSession) {
		t.Fatalf("%d recorded interactions in %s, want %d (run with -update after removing them): %v", len(files), dir, len(recordedSession), err)
	}
	sort.Strings(files)
	e := replayEnv(t)
	for n, f := range files {
		step := recordedSession[n]
		body, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		resp := e.send(body)
		if resp.Type != step.typ || !strings.Contains(text(resp), step.fact) {
			t.Errorf("%s: response type %d %q, want type %d with %q", f, resp.Type, text(resp), step.typ, step.fact)
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
	// Every command and every kind of button was used.
	seen := map[string]bool{}
	for _, f := range files {
		var i discordgo.Interaction
		body, _ := os.ReadFile(f)
		if err := json.Unmarshal(body, &i); err != nil {
			t.Fatal(err)
		}
		switch d := i.Data.(type) {
		case discordgo.ApplicationCommandInteractionData:
			seen["/"+d.Options[0].Name] = true
		case discordgo.MessageComponentInteractionData:
			seen[strings.Split(d.CustomID, ":")[1]] = true
		}
	}
	for _, want := range []string{"/challenge", "/forfeit", "/board", "/stats", "/leaderboard", "/help",
		"accept", "decline", "drop", "forfeit", "forfeit!", "keep", "rematch", "picture", "analysis", "help"} {
		if !seen[want] {
			t.Errorf("the recording never uses %s", want)
		}
	}
}

// recordSession plays recordedSession once, sending the interactions
// already recorded as they are and recording each that is missing (after
// a step is added or its file removed).
func recordSession(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	e := replayEnv(t)
	// New interactions get IDs and tokens past those of the recorded ones
	// (made by from: "15" and the sequence number).
	seq := int64(1000)
	recorded, _ := filepath.Glob(filepath.Join(dir, "*.interaction.json"))
	for _, f := range recorded {
		var i struct {
			ID string `json:"id"`
		}
		b, _ := os.ReadFile(f)
		if json.Unmarshal(b, &i) == nil && strings.HasPrefix(i.ID, "15") {
			if n, err := strconv.ParseInt(i.ID[2:], 10, 64); err == nil {
				seq = max(seq, n)
			}
		}
	}
	interactionSeq.Store(seq)
	for n, step := range recordedSession {
		name := filepath.Join(dir, fmt.Sprintf("%02d-%s.interaction.json", n+1, step.name))
		body, err := os.ReadFile(name)
		if err != nil {
			body = step.build(e)
			var pretty bytes.Buffer
			json.Indent(&pretty, body, "", "  ")
			pretty.WriteByte('\n')
			if err := os.WriteFile(name, pretty.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		e.send(body)
	}
}
