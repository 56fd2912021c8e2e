package main

import (
	"crypto/ed25519"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"

	"github.com/connectn/connectn/bot"
)

// config is everything the bot reads from the environment, the .env file and
// the flags (flags win over the environment).
type config struct {
	token     string // DISCORD_TOKEN, without any "Bot " prefix
	publicKey ed25519.PublicKey
	guildID   string // DISCORD_GUILD_ID
	appID     string // DISCORD_APP_ID
	addr      string // -addr, CONNECTN_ADDR
	db        string // -db, CONNECTN_DB
	logLevel  slog.Level
}

// configError is a missing or malformed setting. Its message names the
// variable and never contains a secret's value.
type configError struct{ msg string }

func (e *configError) Error() string { return e.msg }

func configErrorf(format string, args ...any) error {
	return &configError{msg: fmt.Sprintf(format, args...)}
}

// need says which settings a subcommand requires.
type need struct {
	token, publicKey bool
}

// loadConfig reads the settings of subcommand cmd from getenv and args. It
// returns flag.ErrHelp for -h, and a *configError naming the variable for a
// missing or malformed value.
func loadConfig(cmd string, args []string, getenv func(string) string, stderr io.Writer, n need) (config, error) {
	c := config{
		addr:    envOr(getenv, "CONNECTN_ADDR", ":8080"),
		db:      envOr(getenv, "CONNECTN_DB", "data/connectn.db"),
		guildID: strings.TrimSpace(getenv("DISCORD_GUILD_ID")),
		appID:   strings.TrimSpace(getenv("DISCORD_APP_ID")),
	}
	level := envOr(getenv, "CONNECTN_LOG_LEVEL", "info")
	fs := flag.NewFlagSet("connectn "+cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.addr, "addr", c.addr, "listen address of the HTTP interactions endpoint (CONNECTN_ADDR)")
	fs.StringVar(&c.db, "db", c.db, "path of the SQLite database; its folder is created if missing (CONNECTN_DB)")
	fs.StringVar(&c.guildID, "guild", c.guildID, "register the commands in this guild only, for instant updates while testing (DISCORD_GUILD_ID)")
	fs.StringVar(&level, "log-level", level, "debug, info, warn or error (CONNECTN_LOG_LEVEL)")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, configErrorf("unexpected argument %q after connectn %s", fs.Arg(0), cmd)
	}

	if err := c.logLevel.UnmarshalText([]byte(level)); err != nil {
		return c, configErrorf("CONNECTN_LOG_LEVEL / -log-level %q: want debug, info, warn or error", level)
	}
	if c.db == "" {
		return c, configErrorf("CONNECTN_DB / -db is empty: give a path such as data/connectn.db")
	}
	if _, port, err := net.SplitHostPort(c.addr); err != nil || port == "" {
		return c, configErrorf("CONNECTN_ADDR / -addr %q: want host:port or :port, such as :8080", c.addr)
	}
	if c.guildID != "" && !isSnowflake(c.guildID) {
		return c, configErrorf("DISCORD_GUILD_ID %q: want a server ID (digits only; copy it with Developer Mode on)", c.guildID)
	}
	if c.appID != "" && !isSnowflake(c.appID) {
		return c, configErrorf("DISCORD_APP_ID %q: want the application ID (digits only) from the Developer Portal", c.appID)
	}

	token := strings.TrimSpace(getenv("DISCORD_TOKEN"))
	token = strings.TrimPrefix(token, "Bot ")
	switch {
	case token == "" && n.token:
		return c, configErrorf("DISCORD_TOKEN is not set: put the bot token from the Developer Portal (Bot page) in the environment or in .env")
	case token != "" && !tokenShaped(token):
		return c, configErrorf("DISCORD_TOKEN is malformed: a bot token is three dot-separated parts, as the Developer Portal's Bot page shows it")
	}
	c.token = token

	key := strings.TrimSpace(getenv("DISCORD_PUBLIC_KEY"))
	switch {
	case key == "" && n.publicKey:
		return c, configErrorf("DISCORD_PUBLIC_KEY is not set: put the application's public key from the Developer Portal (General Information page) in the environment or in .env")
	case key != "":
		pk, err := bot.ParsePublicKey(key)
		if err != nil {
			return c, configErrorf("DISCORD_PUBLIC_KEY is malformed (%v): copy the 64 hex digits of the Developer Portal's Public Key", err)
		}
		c.publicKey = pk
	}
	return c, nil
}

func envOr(getenv func(string) string, name, def string) string {
	if v := strings.TrimSpace(getenv(name)); v != "" {
		return v
	}
	return def
}

// isSnowflake reports whether s looks like a Discord ID: 1 to 20 digits.
func isSnowflake(s string) bool {
	if s == "" || len(s) > 20 {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// tokenShaped reports whether s has the shape of a bot token: three
// non-empty dot-separated parts of URL-safe base64, no white space.
func tokenShaped(s string) bool {
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return false
	}
	for _, p := range parts {
		if p == "" {
			return false
		}
		for _, c := range p {
			ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_'
			if !ok {
				return false
			}
		}
	}
	return true
}

var errUsage = errors.New("usage")
