package main

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/sessions"
	"github.com/connectn/connectn/sessions/sqlite"
)

// TestObservedStore checks which store errors count as failures: not the
// expected outcomes, not the errors of an Update's own function.
func TestObservedStore(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "connectn.db")
	st, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	var failed []string
	s := &observedStore{Store: st, explain: st.Explain, failures: func(op string) { failed = append(failed, op) }}
	m, _ := game.NewMatch(game.DefaultConfig())
	fresh := func() *sessions.Session {
		return &sessions.Session{ChannelID: channelID, GuildID: guildID, Config: m.Config(), Match: m, Phase: sessions.PhaseChallenge,
			Players: [2]sessions.Member{{ID: aliceID, Name: "alice"}, {ID: bobID, Name: "bob"}}}
	}

	if _, err := s.Update(ctx, channelID, func(*sessions.Session) error { return nil }); !errors.Is(err, sessions.ErrNotFound) {
		t.Fatalf("update of an empty channel: %v", err)
	}
	if _, err := s.Create(ctx, fresh()); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Create(ctx, fresh()); !errors.Is(err, sessions.ErrActiveSession) {
		t.Fatalf("second create: %v", err)
	}
	mine := errors.New("not your turn")
	if _, err := s.Update(ctx, channelID, func(*sessions.Session) error { return mine }); !errors.Is(err, mine) {
		t.Fatalf("update returning its own error: %v", err)
	}
	if len(failed) != 0 {
		t.Fatalf("expected outcomes counted as failures: %v", failed)
	}

	st.Close()
	if _, err := s.Update(ctx, channelID, func(*sessions.Session) error { return nil }); err == nil {
		t.Fatal("update on a closed store succeeded")
	}
	if _, err := s.Abandon(ctx, channelID); err == nil {
		t.Fatal("abandon on a closed store succeeded")
	}
	if _, err := s.Create(ctx, fresh()); err == nil {
		t.Fatal("create on a closed store succeeded")
	}
	if got := strings.Join(failed, " "); got != "update abandon create" {
		t.Fatalf("got failures %q, want update abandon create", got)
	}
}

// TestDiscordgoLogs checks that discordgo's log lines go to slog at the
// matching level, with the token blanked out.
func TestDiscordgoLogs(t *testing.T) {
	var buf lockedBuffer // discordgo goroutines of other tests may still log
	log := newLogger(&buf, "text", slog.LevelDebug)
	if lvl := routeDiscordgoLogs(log, slog.LevelDebug, fakeToken); lvl != discordgo.LogInformational {
		t.Errorf("at debug: session level %d, want LogInformational", lvl)
	}
	discordgo.Logger(discordgo.LogWarning, 1, "identify with %s failed", "Bot "+fakeToken)
	discordgo.Logger(discordgo.LogInformational, 1, "connected")
	got := buf.String()
	for _, want := range []string{
		"level=WARN msg=\"identify with Bot [redacted] failed\" source=discordgo func=",
		"level=DEBUG msg=connected source=discordgo",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("log lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, fakeToken) {
		t.Fatalf("the token was logged:\n%s", got)
	}
	for level, want := range map[slog.Level]int{slog.LevelInfo: discordgo.LogWarning, slog.LevelWarn: discordgo.LogWarning, slog.LevelError: discordgo.LogError} {
		if got := routeDiscordgoLogs(log, level, ""); got != want {
			t.Errorf("at %v: session level %d, want %d", level, got, want)
		}
	}
}

// lockedBuffer is a bytes.Buffer safe for concurrent use.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
