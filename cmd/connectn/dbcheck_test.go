package main

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/sessions"
	"github.com/connectn/connectn/sessions/sqlite"
)

// sqliteBusy returns a real SQLITE_BUSY error: a write while another
// connection holds the write lock, with no busy timeout.
func sqliteBusy(t *testing.T) error {
	t.Helper()
	path := filepath.Join(t.TempDir(), "busy.db")
	holder, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	holder.SetMaxOpenConns(1)
	for _, q := range []string{"PRAGMA journal_mode = WAL", "CREATE TABLE t (n INTEGER)", "BEGIN IMMEDIATE"} {
		if _, err := holder.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	defer holder.Exec("ROLLBACK")
	other, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err = other.Exec("INSERT INTO t VALUES (1)"); err == nil {
		t.Fatal("a write went through another connection's write lock")
	}
	return err
}

// sqliteFull returns a real SQLITE_FULL error: a database whose page count
// is capped runs out of room as a full disk does.
func sqliteFull(t *testing.T) error {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "small.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{"PRAGMA max_page_count = 4", "CREATE TABLE t (b BLOB)"} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 100; i++ {
		if _, err = db.Exec("INSERT INTO t VALUES (zeroblob(4096))"); err != nil {
			return err
		}
	}
	t.Fatal("the capped database never filled up")
	return nil
}

func TestExplainDBError(t *testing.T) {
	full := explainDBError("/data/connectn.db", sqliteFull(t))
	if want := "disk full: the database /data/connectn.db cannot grow: free some space on its volume"; !strings.HasPrefix(full.Error(), want) {
		t.Errorf("got %q, want it to start with %q", full, want)
	}

	notDB := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(notDB, bytes.Repeat([]byte("not a database\n"), 100), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := sqlite.Open(context.Background(), notDB)
	if err == nil {
		t.Fatal("a text file opened as a database")
	}
	if got, want := explainDBError(notDB, err).Error(), notDB+" is not a SQLite database: set CONNECTN_DB to the bot's database file"; !strings.HasPrefix(got, want) {
		t.Errorf("got %q, want it to start with %q", got, want)
	}

	locked := explainDBError("x.db", sqliteBusy(t))
	if want := "the database x.db is locked by another program"; !strings.HasPrefix(locked.Error(), want) {
		t.Errorf("got %q, want it to start with %q", locked, want)
	}
	late := explainDBError("x.db", fmt.Errorf("update session 1: %w", context.DeadlineExceeded))
	if want := "the database x.db did not answer in time: another program may hold a lock"; !strings.HasPrefix(late.Error(), want) || !errors.Is(late, context.DeadlineExceeded) {
		t.Errorf("got %q, want it to start with %q and wrap the deadline", late, want)
	}

	other := errors.New("database is locked")
	if got := explainDBError("x.db", other); got != other {
		t.Errorf("an error that is not about the file: got %v, want it unchanged", got)
	}
}

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
	s := &observedStore{Store: st, path: path, failures: func(op string) { failed = append(failed, op) }}
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
