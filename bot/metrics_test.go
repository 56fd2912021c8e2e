package bot_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot"
	"github.com/connectn/connectn/internal/clock/clocktest"
	"github.com/connectn/connectn/sessions"
)

// recorder is a bot.Metrics that keeps every interaction reported.
type recorder struct {
	mu   sync.Mutex
	seen []string // "kind outcome"
}

func (r *recorder) Interaction(kind, outcome string, took time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if took < 0 {
		outcome += " negative-duration"
	}
	r.seen = append(r.seen, kind+" "+outcome)
}
func (r *recorder) DeadlineFired(string)         {}
func (r *recorder) AIMove(string, time.Duration) {}
func (r *recorder) RESTRetry(string)             {}
func (r *recorder) RESTGiveUp(string)            {}
func (r *recorder) reset()                       { r.mu.Lock(); defer r.mu.Unlock(); r.seen = nil }
func (r *recorder) all() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.seen...)
}

// failingStore fails every read and write as a broken database would.
type failingStore struct{ sessions.Store }

var errDiskGone = errors.New("disk I/O error")

func (failingStore) Create(context.Context, *sessions.Session) (*sessions.Session, error) {
	return nil, errDiskGone
}
func (failingStore) Get(context.Context, string) (*sessions.Session, error) { return nil, errDiskGone }
func (failingStore) Update(context.Context, string, func(*sessions.Session) error) (*sessions.Session, error) {
	return nil, errDiskGone
}
func (failingStore) Abandon(context.Context, string) (int64, error) { return 0, errDiskGone }

// TestHandlerReportsInteractions checks that every interaction is reported
// once with its kind and outcome: ok, refused (a user error) and failed (an
// internal error).
func TestHandlerReportsInteractions(t *testing.T) {
	rec := &recorder{}
	e := newEnv(t, bot.WithMetrics(rec))
	steps := []struct {
		name string
		do   func()
		want string
	}{
		{"challenge", func() { e.send(slashChallenge(alice, bob, nil)) }, "command/challenge ok"},
		{"own challenge accepted", func() { e.click(alice, e.board(), "Accept") }, "button/accept refused"},
		{"accept", func() { e.click(bob, e.board(), "Accept") }, "button/accept ok"},
		{"out of turn", func() { e.click(bob, e.board(), "1") }, "button/drop refused"},
		{"drop", func() { e.click(alice, e.board(), "1") }, "button/drop ok"},
		{"crafted custom_id", func() { e.clickID(alice, e.board(), "cn:launch:1") }, "button/unknown refused"},
		{"unknown command", func() {
			var m map[string]any
			json.Unmarshal(slashChallenge(alice, bob, nil), &m)
			m["data"].(map[string]any)["name"] = "chess"
			e.send(mustJSON(m))
		}, "command/unknown refused"},
	}
	for _, s := range steps {
		rec.reset()
		s.do()
		if got := rec.all(); len(got) != 1 || got[0] != s.want {
			t.Errorf("%s: got reports %q, want exactly [%q]", s.name, got, s.want)
		}
	}

	rec.reset()
	resp, err := e.h.Handle(context.Background(), &discordgo.Interaction{Type: discordgo.InteractionPing})
	if err != nil || resp.Type != discordgo.InteractionResponsePong {
		t.Fatalf("ping: got %v, %v", resp, err)
	}
	if got := rec.all(); len(got) != 1 || got[0] != "ping ok" {
		t.Errorf("ping: got reports %q, want [\"ping ok\"]", got)
	}
}

func TestHandlerReportsFailures(t *testing.T) {
	rec := &recorder{}
	h := bot.NewHandler(failingStore{}, slog.New(slog.DiscardHandler), bot.WithClock(clocktest.New()), bot.WithMetrics(rec))
	var i discordgo.Interaction
	json.Unmarshal(slashChallenge(alice, bob, nil), &i)
	resp, _ := h.Handle(context.Background(), &i)
	mustPrivate(t, resp, "something went wrong")
	if got := rec.all(); len(got) != 1 || got[0] != "command/challenge failed" {
		t.Fatalf("got reports %q, want [\"command/challenge failed\"]", got)
	}
}

func TestHandlerWithoutMetrics(t *testing.T) {
	e := newEnv(t, bot.WithMetrics(nil))
	resp := e.send(slashChallenge(alice, bob, nil))
	if resp.Type != discordgo.InteractionResponseChannelMessageWithSource {
		t.Fatalf("got response type %d, want a challenge message", resp.Type)
	}
}

func TestInteractionKind(t *testing.T) {
	tests := []struct {
		name string
		i    *discordgo.Interaction
		want string
	}{
		{"nil", nil, "other"},
		{"ping", &discordgo.Interaction{Type: discordgo.InteractionPing}, "ping"},
		{"autocomplete", &discordgo.Interaction{Type: discordgo.InteractionApplicationCommandAutocomplete}, "autocomplete"},
		{"modal", &discordgo.Interaction{Type: discordgo.InteractionModalSubmit}, "modal"},
		{"declared subcommand", &discordgo.Interaction{Type: discordgo.InteractionApplicationCommand, Data: discordgo.ApplicationCommandInteractionData{
			Name: "connectn", Options: []*discordgo.ApplicationCommandInteractionDataOption{{Name: "challenge", Type: discordgo.ApplicationCommandOptionSubCommand}}}}, "command/challenge"},
		{"undeclared subcommand", &discordgo.Interaction{Type: discordgo.InteractionApplicationCommand, Data: discordgo.ApplicationCommandInteractionData{
			Name: "connectn", Options: []*discordgo.ApplicationCommandInteractionDataOption{{Name: "x' OR 1=1", Type: discordgo.ApplicationCommandOptionSubCommand}}}}, "command/unknown"},
		{"other command", &discordgo.Interaction{Type: discordgo.InteractionApplicationCommand, Data: discordgo.ApplicationCommandInteractionData{
			Name: "chess", Options: []*discordgo.ApplicationCommandInteractionDataOption{{Name: "challenge"}}}}, "command/unknown"},
		{"no subcommand", &discordgo.Interaction{Type: discordgo.InteractionApplicationCommand, Data: discordgo.ApplicationCommandInteractionData{Name: "connectn"}}, "command/unknown"},
		{"drop button", &discordgo.Interaction{Type: discordgo.InteractionMessageComponent, Data: discordgo.MessageComponentInteractionData{CustomID: "cn:drop:3:0:0:4"}}, "button/drop"},
		{"crafted button", &discordgo.Interaction{Type: discordgo.InteractionMessageComponent, Data: discordgo.MessageComponentInteractionData{CustomID: "cn:anything-at-all:3"}}, "button/unknown"},
		{"unknown type", &discordgo.Interaction{Type: 99}, "other"},
	}
	h := bot.NewHandler(nil, slog.New(slog.DiscardHandler))
	defer h.Close(context.Background())
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := h.InteractionKind(tt.i); got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}
