package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/bwmarrin/discordgo"
)

// newLogger returns the process logger: slog's text or JSON handler (format
// "json" or anything else for text) on w, at level.
func newLogger(w io.Writer, format string, level slog.Level) *slog.Logger {
	opts := &slog.HandlerOptions{Level: level}
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// discordgoSink is where discordgo's log lines go: the logger of the
// latest command run, and the secret to blank out of them.
type discordgoSink struct {
	log    *slog.Logger
	secret string
}

var (
	dgSink     atomic.Pointer[discordgoSink]
	dgSinkOnce sync.Once
)

// routeDiscordgoLogs sends discordgo's own log lines (its package-level
// Logger, used by every session) to log, with source=discordgo and the
// caller's function, at the matching slog level; any occurrence of secret
// (the bot token) is replaced by "[redacted]". It returns the
// Session.LogLevel that lets through what level shows: discordgo's
// informational lines at debug, its warnings at info and warn, only its
// errors at error. discordgo's own debug level, which prints whole gateway
// payloads, interaction tokens included, is never used.
func routeDiscordgoLogs(log *slog.Logger, level slog.Level, secret string) int {
	dgSink.Store(&discordgoSink{log: log, secret: secret})
	dgSinkOnce.Do(func() { discordgo.Logger = discordgoLogger })
	switch {
	case level <= slog.LevelDebug:
		return discordgo.LogInformational
	case level <= slog.LevelWarn:
		return discordgo.LogWarning
	}
	return discordgo.LogError
}

// discordgoLogger is discordgo.Logger.
func discordgoLogger(msgL, caller int, format string, a ...any) {
	sink := dgSink.Load()
	if sink == nil {
		return
	}
	level := slog.LevelDebug
	switch msgL {
	case discordgo.LogError:
		level = slog.LevelError
	case discordgo.LogWarning:
		level = slog.LevelWarn
	}
	if !sink.log.Enabled(context.Background(), level) {
		return
	}
	msg := strings.TrimSpace(fmt.Sprintf(format, a...))
	if sink.secret != "" {
		msg = strings.ReplaceAll(msg, sink.secret, "[redacted]")
	}
	attrs := []any{"source", "discordgo"}
	// caller counts from discordgo's msglog; this function is one deeper.
	if pc, _, _, ok := runtime.Caller(caller + 1); ok {
		if fn := runtime.FuncForPC(pc); fn != nil {
			name := fn.Name()
			attrs = append(attrs, "func", name[strings.LastIndex(name, "/")+1:])
		}
	}
	sink.log.Log(context.Background(), level, msg, attrs...)
}
