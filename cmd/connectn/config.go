package main

import (
	"crypto/ed25519"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot/transport"
	"github.com/connectn/connectn/sessions/postgres"
)

// config is every setting, read from flags, the environment and the .env
// file, in that order of precedence, then from the defaults.
type config struct {
	token            string            // DISCORD_TOKEN, without any "Bot " prefix; secret
	publicKey        ed25519.PublicKey // DISCORD_PUBLIC_KEY
	appID            string            // DISCORD_APP_ID, -app-id
	guildID          string            // DISCORD_GUILD_ID, -guild
	addr             string            // CONNECTN_ADDR, -addr: listen address of serve
	metricsAddr      string            // CONNECTN_METRICS_ADDR, -metrics-addr: gateway mode's metrics and health address; "" is off
	pprofAddr        string            // CONNECTN_PPROF_ADDR, -pprof-addr: Go's profiles (net/http/pprof) on a loopback address; "" is off
	db               string            // CONNECTN_DB, -db: SQLite file path (a "sqlite:" prefix removed); "" with pgURL
	pgURL            string            // CONNECTN_DB, -db: a postgres:// URL (secret: holds the password); "" for SQLite
	shardID          int               // CONNECTN_SHARD_ID, -shard-id: this gateway connection's shard, 0..shardCount-1
	shardCount       int               // CONNECTN_SHARD_COUNT, -shard-count: shards in all; 0 asks Discord (GET /gateway/bot)
	shardIDSet       bool              // CONNECTN_SHARD_ID was given
	file             string            // export and import: the file argument; "" or "-" is standard output or input
	onlyGuild        string            // export -guild: the one server to export; "" for all. From the flag alone
	discordAPI       string            // CONNECTN_DISCORD_API, -discord-api: REST base URL, no trailing slash
	logLevel         slog.Level        // CONNECTN_LOG_LEVEL, -log-level
	logFormat        string            // CONNECTN_LOG_FORMAT, -log-format: "text" or "json"
	challengeTimeout time.Duration     // CONNECTN_CHALLENGE_TIMEOUT, -challenge-timeout: > 0
	turnTimeout      time.Duration     // CONNECTN_TURN_TIMEOUT, -turn-timeout: > 0
	threads          bool              // CONNECTN_THREADS, -threads
	aiMemoryMB       int               // CONNECTN_AI_MEMORY, -ai-memory: transposition table size in MB, 1..4096
	aiWorkers        int               // CONNECTN_AI_WORKERS, -ai-workers: AI searches at once, 1..64
	memoryLimit      int64             // CONNECTN_MEMORY_LIMIT, -memory-limit: the Go runtime's soft limit in bytes (see memoryGovernor); 0 is off

	// values is the effective text and source of every setting, by
	// variable name, for `connectn config`.
	values map[string]value
}

// DefaultDiscordAPI is the base of Discord's REST API at the version
// discordgo speaks: discordgo.EndpointAPI without its final slash,
// "https://discord.com/api/v9" for discordgo v0.29.0.
var DefaultDiscordAPI = strings.TrimSuffix(discordgo.EndpointAPI, "/")

// Bounds of the numeric settings.
const (
	minTimeout    = time.Second
	maxTimeout    = 7 * 24 * time.Hour
	minAIMemoryMB = 1
	maxAIMemoryMB = 4096
	minAIWorkers  = 1
	maxAIWorkers  = 64
	maxShards     = 65536
)

// source is where a setting's value came from.
type source int

const (
	fromDefault source = iota
	fromDotEnv
	fromEnv
	fromFlag
)

func (s source) String() string {
	return [...]string{"default", ".env", "environment", "flag"}[s]
}

// value is a setting's effective text and where it came from.
type value struct {
	text string
	src  source
}

// setting is one configuration value: its environment variable, its flag
// (if any), its default and how it is checked and stored.
type setting struct {
	env    string // environment variable, such as CONNECTN_ADDR
	flag   string // flag name without "-", "" when there is none
	arg    string // placeholder of the flag's value in help, such as ADDR
	def    string // default, as text ("" for none)
	usage  string // one line of help
	secret bool   // never printed
	// emptyOK means an empty flag value is allowed and unsets the setting
	// (a setting whose default is "none").
	emptyOK bool
	// mask, when set, returns the value as it may be shown (a URL without
	// its password).
	mask func(string) string
	// set checks v (non-empty unless the flag was set to "") and stores it
	// in c; it returns what is wrong with v, or "" when v is fine.
	set func(c *config, v string) string
}

// settings lists every setting, in the order help and `connectn config`
// show them.
var settings = []setting{
	{env: "DISCORD_TOKEN", usage: "bot token (Developer Portal > Bot > Reset Token); secret, never shown", secret: true,
		set: func(c *config, v string) string {
			v = strings.TrimPrefix(v, "Bot ")
			if !tokenShaped(v) {
				return "malformed: a bot token is three dot-separated parts, as the Developer Portal's Bot page shows it (Reset Token)"
			}
			c.token = v
			return ""
		}},
	{env: "DISCORD_PUBLIC_KEY", usage: "application public key, 64 hex digits (Developer Portal > General Information)",
		set: func(c *config, v string) string {
			pk, err := transport.ParsePublicKey(v)
			if err != nil {
				return fmt.Sprintf("malformed (%v): copy the 64 hex digits of the Developer Portal's Public Key", err)
			}
			c.publicKey = pk
			return ""
		}},
	{env: "DISCORD_APP_ID", flag: "app-id", arg: "ID", emptyOK: true, usage: "application ID; when empty, looked up with DISCORD_TOKEN",
		set: func(c *config, v string) string {
			if !isSnowflake(v) {
				return "want the application ID (digits only) from the Developer Portal's General Information page"
			}
			c.appID = v
			return ""
		}},
	{env: "DISCORD_GUILD_ID", flag: "guild", arg: "ID", emptyOK: true, usage: "a server ID: register the commands there only (instant), and preselect it in the invite; empty: global",
		set: func(c *config, v string) string {
			if !isSnowflake(v) {
				return "want a server ID (digits only; with Developer Mode on, right-click the server and Copy Server ID)"
			}
			c.guildID = v
			return ""
		}},
	{env: "CONNECTN_ADDR", flag: "addr", arg: "ADDR", def: ":8080", usage: "listen address of serve (/interactions, /healthz, /readyz, /metrics)",
		set: func(c *config, v string) string {
			if p := checkListenAddr(v); p != "" {
				return p
			}
			c.addr = v
			return ""
		}},
	{env: "CONNECTN_METRICS_ADDR", flag: "metrics-addr", arg: "ADDR", def: "127.0.0.1:9464", usage: "listen address of /metrics, /healthz, /readyz in gateway mode; off: none",
		set: func(c *config, v string) string { return setAddrOrOff(&c.metricsAddr, v, false) }},
	{env: "CONNECTN_PPROF_ADDR", flag: "pprof-addr", arg: "ADDR", def: "off", usage: "loopback listen address of Go's profiles, /debug/pprof/ (for `go tool pprof`); off: none",
		set: func(c *config, v string) string { return setAddrOrOff(&c.pprofAddr, v, true) }},
	{env: "CONNECTN_DB", flag: "db", arg: "DB", def: "data/connectn.db", mask: maskDB,
		usage: "SQLite database file (or sqlite:PATH; its folder is created if missing), or a postgres://USER:PASSWORD@HOST:5432/DB URL for PostgreSQL (several processes on one database)",
		set: func(c *config, v string) string {
			if postgres.IsURL(v) {
				if err := postgres.CheckURL(v); err != nil {
					return err.Error()
				}
				c.pgURL = v
				return ""
			}
			path := strings.TrimPrefix(v, "sqlite:")
			switch {
			case strings.Contains(path, "://"):
				return "is a URL of an unknown kind: give a SQLite file path such as data/connectn.db, or a postgres:// URL"
			case path == "":
				return "is empty: give a file path such as data/connectn.db"
			case strings.ContainsRune(path, '?'):
				return "must not contain '?': give a plain file path such as data/connectn.db"
			}
			c.db = path
			return ""
		}},
	{env: "CONNECTN_SHARD_ID", flag: "shard-id", arg: "N", emptyOK: true,
		usage: "gateway shard this run process serves, 0 to CONNECTN_SHARD_COUNT-1 (shard 0 registers the commands); empty: 0",
		set: func(c *config, v string) string {
			c.shardIDSet = true
			return parseInt(v, 0, maxShards-1, &c.shardID)
		}},
	{env: "CONNECTN_SHARD_COUNT", flag: "shard-count", arg: "N", emptyOK: true,
		usage: fmt.Sprintf("gateway shards in all, 1 to %d, one run process each; empty: the count Discord recommends (GET /gateway/bot)", maxShards),
		set:   func(c *config, v string) string { return parseInt(v, 1, maxShards, &c.shardCount) }},
	{env: "CONNECTN_DISCORD_API", flag: "discord-api", arg: "URL", def: DefaultDiscordAPI, usage: "base URL of every Discord REST call (a REST proxy; a fake in tests)",
		set: func(c *config, v string) string {
			u, err := url.Parse(v)
			switch {
			case err != nil || !u.IsAbs() || u.Opaque != "":
				return "want an absolute http or https URL such as " + DefaultDiscordAPI
			case u.Scheme != "http" && u.Scheme != "https":
				return fmt.Sprintf("scheme %q: want http or https", u.Scheme)
			case u.Host == "" || u.Hostname() == "":
				return "has no host: want a URL such as " + DefaultDiscordAPI
			case u.Port() != "" && !validPort(u.Port()):
				return fmt.Sprintf("port %q is not a number from 1 to 65535", u.Port())
			case u.User != nil:
				return "must not contain a user name or password"
			case u.RawQuery != "" || u.Fragment != "" || strings.HasSuffix(v, "?") || strings.HasSuffix(v, "#"):
				return "must not have a query or fragment: give a base URL such as " + DefaultDiscordAPI
			}
			c.discordAPI = strings.TrimRight(v, "/")
			return ""
		}},
	{env: "CONNECTN_LOG_LEVEL", flag: "log-level", arg: "LEVEL", def: "info", usage: "debug, info, warn or error",
		set: func(c *config, v string) string {
			switch strings.ToLower(v) {
			case "debug", "info", "warn", "error":
				_ = c.logLevel.UnmarshalText([]byte(v)) // one of slog's four names: cannot fail
				return ""
			}
			return "want debug, info, warn or error"
		}},
	{env: "CONNECTN_LOG_FORMAT", flag: "log-format", arg: "FORMAT", def: "text", usage: "text (key=value lines) or json (one JSON object a line)",
		set: func(c *config, v string) string {
			switch v = strings.ToLower(v); v {
			case "text", "json":
				c.logFormat = v
				return ""
			}
			return "want text or json"
		}},
	{env: "CONNECTN_CHALLENGE_TIMEOUT", flag: "challenge-timeout", arg: "DURATION", def: "5m", usage: "how long a challenge waits for an answer (a Go duration: 90s, 5m, 1h)",
		set: func(c *config, v string) string { return parseTimeout(v, &c.challengeTimeout) }},
	{env: "CONNECTN_TURN_TIMEOUT", flag: "turn-timeout", arg: "DURATION", def: "5m", usage: "how long a player has for a move before forfeiting the match",
		set: func(c *config, v string) string { return parseTimeout(v, &c.turnTimeout) }},
	{env: "CONNECTN_THREADS", flag: "threads", arg: "BOOL", def: "off",
		usage: "on: a challenge opens a thread for its match unless its thread option says False (the bot needs Create Public Threads); off: only when the option says True",
		set: func(c *config, v string) string {
			switch strings.ToLower(v) {
			case "on", "true", "yes", "1":
				c.threads = true
			case "off", "false", "no", "0":
				c.threads = false
			default:
				return "want on or off"
			}
			return ""
		}},
	{env: "CONNECTN_AI_MEMORY", flag: "ai-memory", arg: "MB", def: "64", usage: fmt.Sprintf("AI transposition table size in MB, %d to %d", minAIMemoryMB, maxAIMemoryMB),
		set: func(c *config, v string) string { return parseInt(v, minAIMemoryMB, maxAIMemoryMB, &c.aiMemoryMB) }},
	{env: "CONNECTN_AI_WORKERS", flag: "ai-workers", arg: "N", def: "2", usage: fmt.Sprintf("AI searches allowed to run at once, %d to %d, at most one fewer than the processors", minAIWorkers, maxAIWorkers),
		set: func(c *config, v string) string { return parseInt(v, minAIWorkers, maxAIWorkers, &c.aiWorkers) }},
	{env: "CONNECTN_MEMORY_LIMIT", flag: "memory-limit", arg: "SIZE", def: defaultMemoryLimit,
		usage: "memory the bot aims to stay within (Go's heap and runtime; the program's code and SQLite's cache come on top), such as 32MiB or 1GiB, at least 16MiB; more when what it must keep needs it; off: none. GOMEMLIMIT in the environment takes precedence",
		set:   func(c *config, v string) string { return parseMemoryLimit(v, &c.memoryLimit) }},
}

// settingByEnv returns the setting of environment variable name.
func settingByEnv(name string) *setting {
	for i := range settings {
		if settings[i].env == name {
			return &settings[i]
		}
	}
	panic("connectn: no setting " + name)
}

// need says which settings a command requires.
type need struct {
	token, publicKey, appIDOrToken bool
	// file means the command takes one optional FILE argument.
	file bool
	// guild means the command takes -guild ID, the one server it works on
	// (config.onlyGuild), from that flag alone: unlike DISCORD_GUILD_ID,
	// whose flag has the same name, neither the environment nor .env sets
	// it. Not for a command with DISCORD_GUILD_ID among its flags.
	guild bool
}

// guildFlagHelp is what -h says of the flag need.guild gives.
const guildFlagHelp = `  -guild ID  (this flag only: not DISCORD_GUILD_ID, the environment or .env)
        only the server with this ID (Discord's Copy Server ID): its matches, member
        records, pair records and settings; an export of one server imports like a
        whole one`

// problems is every problem found in the configuration, one line each,
// each naming its variable.
type problems []string

func (p problems) Error() string { return strings.Join(p, "\n") }

// flagError is a flag that could not be parsed: an unknown flag, or one
// without its value.
type flagError struct{ msg string }

func (e *flagError) Error() string { return e.msg }

// loadConfig reads every setting for command cmd: the flags in args (only
// those of the settings named in flags are defined), then getenv, then
// dotenv (the .env file's variables), then the defaults. It returns
// flag.ErrHelp for -h, -help or --help, a *flagError for a flag that
// cannot be parsed, and problems with one line per missing or malformed
// setting. The config is returned in every
// case, with values filled in for `connectn config`.
func loadConfig(cmd string, flags []string, args []string, getenv func(string) string, dotenv map[string]string, n need) (config, error) {
	c := config{values: make(map[string]value, len(settings))}
	fs := newFlagSet(cmd)
	help := fs.Bool("h", false, "")
	fs.BoolVar(help, "help", false, "")
	given := map[string]string{}
	onlyGuild, guildGiven := "", false
	if n.guild {
		fs.Func("guild", "", func(v string) error {
			onlyGuild, guildGiven = strings.TrimSpace(v), true
			return nil
		})
	}
	for _, name := range flags {
		s := settingByEnv(name)
		fs.Func(s.flag, "", func(v string) error {
			given[s.env] = strings.TrimSpace(v)
			return nil
		})
	}
	if err := fs.Parse(args); err != nil {
		return c, &flagError{flagProblem(cmd, err)}
	}
	if *help {
		return c, flag.ErrHelp
	}
	var bad problems
	if n.file && fs.NArg() == 1 {
		c.file = fs.Arg(0)
	} else if fs.NArg() > 0 {
		bad = append(bad, fmt.Sprintf("unexpected argument %q: connectn %s takes flags only (connectn %s -h lists them)", fs.Arg(0), cmd, cmd))
	}
	for _, s := range settings {
		v := value{text: s.def, src: fromDefault}
		if g, ok := given[s.env]; ok {
			v = value{text: g, src: fromFlag}
		} else if e := strings.TrimSpace(getenv(s.env)); e != "" {
			v = value{text: e, src: fromEnv}
		} else if d := strings.TrimSpace(dotenv[s.env]); d != "" {
			v = value{text: d, src: fromDotEnv}
		}
		c.values[s.env] = v
		if v.text == "" && (v.src != fromFlag || s.emptyOK) {
			continue // optional and unset
		}
		if p := s.set(&c, v.text); p != "" {
			bad = append(bad, s.describe(v)+": "+p)
		}
	}
	if guildGiven {
		if isSnowflake(onlyGuild) {
			c.onlyGuild = onlyGuild
		} else {
			bad = append(bad, fmt.Sprintf("-guild %q is not a server ID: want the number Discord's Copy Server ID gives (up to 20 digits)", onlyGuild))
		}
	}
	if c.shardCount > 0 && c.shardID >= c.shardCount {
		bad = append(bad, fmt.Sprintf("CONNECTN_SHARD_ID=%d is not below CONNECTN_SHARD_COUNT=%d: shards are numbered 0 to %d", c.shardID, c.shardCount, c.shardCount-1))
	}
	if n.token && c.token == "" && c.values["DISCORD_TOKEN"].text == "" {
		bad = append(bad, "DISCORD_TOKEN is not set: put the bot token from the Developer Portal (Bot page, Reset Token) in the environment or in .env")
	}
	if n.publicKey && c.publicKey == nil && c.values["DISCORD_PUBLIC_KEY"].text == "" {
		bad = append(bad, "DISCORD_PUBLIC_KEY is not set: put the application's public key from the Developer Portal (General Information page) in the environment or in .env")
	}
	if n.appIDOrToken && c.values["DISCORD_APP_ID"].text == "" && c.values["DISCORD_TOKEN"].text == "" {
		bad = append(bad, "DISCORD_APP_ID is not set, nor DISCORD_TOKEN to look it up: put the application ID from the Developer Portal (General Information page) in the environment or in .env, or pass -app-id")
	}
	if len(bad) > 0 {
		return c, bad
	}
	return c, nil
}

// describe names s and, unless it is secret, its value v, with where v
// came from: `CONNECTN_ADDR=":abc" (flag -addr)`.
func (s *setting) describe(v value) string {
	var b strings.Builder
	b.WriteString(s.env)
	if !s.secret {
		fmt.Fprintf(&b, "=%q", s.shown(v.text))
	}
	switch v.src {
	case fromFlag:
		fmt.Fprintf(&b, " (flag -%s)", s.flag)
	case fromEnv:
		b.WriteString(" (environment)")
	case fromDotEnv:
		b.WriteString(" (.env)")
	case fromDefault:
		b.WriteString(" (default)")
	}
	return b.String()
}

// shown returns v as it may be printed: masked when s masks it.
func (s *setting) shown(v string) string {
	if s.mask != nil {
		return s.mask(v)
	}
	return v
}

// maskDB returns a CONNECTN_DB value as it may be shown: a postgres:// URL
// without its password, anything else as is.
func maskDB(v string) string {
	if postgres.IsURL(v) {
		return postgres.Redact(v)
	}
	return v
}

// newFlagSet returns an empty FlagSet for command cmd that reports
// nothing itself: loadConfig turns its errors into problems.
func newFlagSet(cmd string) *flag.FlagSet {
	fs := flag.NewFlagSet("connectn "+cmd, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// flagProblem explains a flag error of command cmd, such as a flag that
// belongs to another command.
func flagProblem(cmd string, err error) string {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		for _, s := range settings {
			if s.flag == name {
				return fmt.Sprintf("connectn %s: no flag -%s here (it sets %s, which %s does not use); 'connectn %s -h' lists the flags", cmd, name, s.env, cmd, cmd)
			}
		}
		return fmt.Sprintf("connectn %s: no flag -%s; 'connectn %s -h' lists the flags", cmd, name, cmd)
	}
	return fmt.Sprintf("connectn %s: %s; 'connectn %s -h' lists the flags", cmd, msg, cmd)
}

// flagHelp writes one entry per flag of names, with its variable and
// default, as `connectn CMD -h` shows them.
func flagHelp(w io.Writer, names []string) {
	width := 0
	for _, name := range names {
		s := settingByEnv(name)
		width = max(width, len(s.flag)+len(s.arg)+2)
	}
	for _, name := range names {
		s := settingByEnv(name)
		def := ""
		if s.def != "" {
			def = ", default " + s.def
		}
		fmt.Fprintf(w, "  %-*s  %s%s\n        %s\n", width, "-"+s.flag+" "+s.arg, s.env, def, s.usage)
	}
}

// settingsHelp writes every setting with its flag and default, for the
// overview.
func settingsHelp(w io.Writer) {
	for _, s := range settings {
		head := "  " + s.env
		if s.flag != "" {
			head += ", -" + s.flag + " " + s.arg
		}
		if s.def != "" {
			head += " (default " + s.def + ")"
		}
		fmt.Fprintf(w, "%s\n        %s\n", head, s.usage)
	}
}

// printConfig writes the effective value and source of every setting,
// secrets masked, as `connectn config` shows them.
func printConfig(w io.Writer, c config) {
	rows := [][3]string{{"SETTING", "VALUE", "SOURCE"}}
	for _, s := range settings {
		v := c.values[s.env]
		text := v.text
		switch {
		case v.text == "" && v.src != fromFlag:
			text, v.src = "(not set)", fromDefault
		case s.secret:
			text = "******** (set, masked)"
		case s.mask != nil:
			text = s.mask(text)
		case text == "":
			text = `""`
		}
		src := v.src.String()
		if v.src == fromFlag {
			src = "flag -" + s.flag
		}
		rows = append(rows, [3]string{s.env, text, src})
	}
	var width [2]int
	for _, r := range rows {
		width[0] = max(width[0], len(r[0]))
		width[1] = max(width[1], len(r[1]))
	}
	for _, r := range rows {
		fmt.Fprintf(w, "%-*s  %-*s  %s\n", width[0], r[0], width[1], r[1], r[2])
	}
}

// checkListenAddr returns what is wrong with a listen address, or "".
func checkListenAddr(v string) string {
	host, port, err := net.SplitHostPort(v)
	if err != nil {
		return "want host:port or :port, such as :8080 or 127.0.0.1:8080"
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 || port != strconv.Itoa(n) {
		return fmt.Sprintf("the port %q is not a number from 0 to 65535; want host:port or :port, such as :8080", port)
	}
	if host != "" && net.ParseIP(host) == nil && !hostnameShaped(host) {
		return fmt.Sprintf("the host %q is not an IP address or host name; want host:port or :port, such as :8080", host)
	}
	return ""
}

// setAddrOrOff sets *dst to the listen address v, or to "" for "off",
// and returns what is wrong with v ("" when nothing is). With loopback,
// only an address of this host is taken (Go's profiles show the bot's
// memory).
func setAddrOrOff(dst *string, v string, loopback bool) string {
	if v == "off" {
		*dst = ""
		return ""
	}
	if p := checkListenAddr(v); p != "" {
		return p + ", or off"
	}
	if host, _, _ := net.SplitHostPort(v); loopback && !isLoopback(host) {
		return "profiles show the bot's memory and must stay on this host: want a loopback address such as 127.0.0.1:6060, or off"
	}
	*dst = v
	return ""
}

// isLoopback reports whether host (of a listen address) names this host
// only: localhost, or an IPv4 or IPv6 loopback address. An empty host
// listens on every interface and is not.
func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// validPort reports whether p is a port number from 1 to 65535.
func validPort(p string) bool {
	n, err := strconv.Atoi(p)
	return err == nil && n >= 1 && n <= 65535 && p == strconv.Itoa(n)
}

// hostnameShaped reports whether s is a DNS host name: dot-separated
// labels of letters, digits and inner hyphens.
func hostnameShaped(s string) bool {
	if len(s) > 253 {
		return false
	}
	for _, label := range strings.Split(strings.TrimSuffix(s, "."), ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for _, r := range label {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-') {
				return false
			}
		}
	}
	return true
}

// parseTimeout stores a Go duration from minTimeout to maxTimeout in dst.
func parseTimeout(v string, dst *time.Duration) string {
	d, err := time.ParseDuration(v)
	switch {
	case err != nil:
		return "not a duration: want a Go duration such as 90s, 5m or 1h30m"
	case d < minTimeout || d > maxTimeout:
		return "want a duration from 1s to 168h (7 days)"
	}
	*dst = d
	return ""
}

// parseInt stores an integer from lo to hi in dst.
func parseInt(v string, lo, hi int, dst *int) string {
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return fmt.Sprintf("want a whole number from %d to %d", lo, hi)
	}
	*dst = n
	return ""
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
