// Command connectn runs the ConnectN Discord bot, and Connect N in a
// terminal.
//
// Usage:
//
//	connectn [run]    the bot over Discord's gateway (needs DISCORD_TOKEN)
//	connectn serve    the bot as an HTTP interactions endpoint (needs DISCORD_PUBLIC_KEY)
//	connectn register register the slash commands and exit (needs DISCORD_TOKEN)
//	connectn invite   print the links that add the bot to a server, or install it for yourself
//	connectn config   print the effective settings and where each came from
//	connectn health   check the bot running on this host (container health checks)
//	connectn migrate  print the database's schema version and apply pending migrations
//	connectn export   write every match, stat and server setting (or one server's) as JSON lines
//	connectn import   read what export wrote into an empty database
//	connectn play     play Connect N in this terminal, no Discord needed
//	connectn solve    solve positions exactly (arguments, or Pascal Pons' test-set format on stdin)
//	connectn arena    play two AI levels against each other
//	connectn puzzles  make puzzles proved by the exact solver (puzzles generate)
//	connectn version  print the version
//	connectn help     every command and setting; help COMMAND for one command
//
// Settings come from flags, the environment and a .env file in the working
// folder, in that order of precedence (see .env.example and `connectn -h`).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"

	"github.com/bwmarrin/discordgo"
	"github.com/joho/godotenv"

	"github.com/connectn/connectn/console"
	"github.com/connectn/connectn/metrics"
	"github.com/connectn/connectn/sessions/sqlite"
)

// version is the program version, set at build time with
// -ldflags "-X main.version=v1.2.3".
var version = ""

// programVersion returns version, else the module version the binary was
// built from, else "dev".
func programVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// Exit statuses.
const (
	exitOK     = 0
	exitFailed = 1 // the command failed, or `connectn health` found the bot unhealthy
	exitUsage  = 2 // bad usage or configuration
)

// signalCause is the cause of the context that main cancels on SIGINT or
// SIGTERM.
type signalCause struct{ sig os.Signal }

func (e signalCause) Error() string { return e.sig.String() + " signal received" }

// signalExitCode returns the status a shell gives a process killed by the
// signal that ended ctx: 128 + its number (130 for SIGINT, 143 for
// SIGTERM), or 1 when ctx did not end by a signal.
func signalExitCode(ctx context.Context) int {
	var sc signalCause
	if errors.As(context.Cause(ctx), &sc) {
		if s, ok := sc.sig.(syscall.Signal); ok {
			return 128 + int(s)
		}
	}
	return exitFailed
}

func main() {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		sig := <-sigs
		cancel(signalCause{sig})
		// A second signal stops at once, as a shell would expect.
		sig = <-sigs
		cancel(signalCause{sig})
		os.Exit(signalExitCode(ctx))
	}()
	code := run(ctx, os.Args[1:], deps{
		getenv: os.Getenv,
		stdin:  os.Stdin,
		stdout: os.Stdout,
		stderr: os.Stderr,
		dotenv: func() (map[string]string, error) {
			vars, err := godotenv.Read()
			if errors.Is(err, fs.ErrNotExist) {
				return nil, nil
			}
			return vars, err
		},
		newSession: func(token string) (*discordgo.Session, error) {
			if token == "" { // serve without a token: webhooks need none
				return discordgo.New("")
			}
			return discordgo.New("Bot " + token)
		},
		listen: func(addr string) (net.Listener, error) { return net.Listen("tcp", addr) },
	})
	cancel(nil)
	os.Exit(code)
}

// deps is what run takes from the outside world, so tests can replace it.
type deps struct {
	getenv     func(string) string
	stdin      io.Reader
	stdout     io.Writer
	stderr     io.Writer
	dotenv     func() (map[string]string, error) // the variables of ./.env; nil reads none
	newSession func(token string) (*discordgo.Session, error)
	listen     func(addr string) (net.Listener, error)
}

// app is one run of a bot command: its settings, the outside world, its
// logger and, for run and serve, its metrics.
type app struct {
	c       config
	d       deps
	log     *slog.Logger
	metrics *metrics.Metrics
}

// command is a subcommand of connectn: one row of the table that run
// dispatches on, help describes and the overview lists. A command either
// runs on the settings (run: its flags are settings, see flags; the
// settings are checked, the logger made and, for db, CONNECTN_DB checked
// before run is called), or takes its arguments itself (main: play,
// solve, arena, config, version, help).
type command struct {
	name    string
	summary string // one line for the overview
	// main, when set, runs the command on its arguments (without the
	// command's name) and returns the exit status; given "-h" it writes
	// the command's help on stdout and returns 0. The fields below are
	// then unused, but for config, whose main reads the settings too.
	main func(ctx context.Context, args []string, d deps) int

	about     string   // what -h says before the flags
	flags     []string // the settings (by variable) that have flags here
	needs     need
	db        bool // checks CONNECTN_DB before running
	plain     bool // reports its failure as one line, not a log record
	badConfig int  // exit status for bad settings: exitUsage unless set
	run       func(ctx context.Context, a *app) error
}

// badConfigStatus is c's exit status for bad settings.
func (c *command) badConfigStatus() int {
	if c.badConfig != 0 {
		return c.badConfig
	}
	return exitUsage
}

// logFlags are the flags of every command that logs.
var logFlags = []string{"CONNECTN_LOG_LEVEL", "CONNECTN_LOG_FORMAT"}

// botFlags are the flags of the commands that run the bot.
var botFlags = []string{"CONNECTN_DB", "DISCORD_GUILD_ID", "CONNECTN_DISCORD_API",
	"CONNECTN_CHALLENGE_TIMEOUT", "CONNECTN_TURN_TIMEOUT", "CONNECTN_THREADS", "CONNECTN_AI_MEMORY", "CONNECTN_AI_WORKERS", "CONNECTN_PPROF_ADDR", "CONNECTN_MEMORY_LIMIT"}

func allFlags() []string {
	var out []string
	for _, s := range settings {
		if s.flag != "" {
			out = append(out, s.env)
		}
	}
	return out
}

func join(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// commands is the table of subcommands, in the order the overview lists
// them. It is made in init, as help reads it.
var commands []*command

func init() { commands = commandTable() }

func commandTable() []*command {
	return []*command{
		{
			name:    "run",
			summary: "the bot over Discord's gateway websocket (the default; needs DISCORD_TOKEN)",
			about: `Connects to Discord's gateway with DISCORD_TOKEN, registers /connectn (in
DISCORD_GUILD_ID, or globally) and plays matches until SIGINT or SIGTERM.
GET /metrics, /healthz and /readyz are served on CONNECTN_METRICS_ADDR.
A large bot runs several of these, one per gateway shard, on one PostgreSQL
database: each with its CONNECTN_SHARD_ID from 0 and the same
CONNECTN_SHARD_COUNT (by default the count Discord recommends); each serves
only the servers of its shard, and shard 0 alone registers the commands.`,
			flags: join([]string{"CONNECTN_METRICS_ADDR", "CONNECTN_SHARD_ID", "CONNECTN_SHARD_COUNT"}, botFlags, logFlags),
			needs: need{token: true},
			db:    true,
			run:   runGateway,
		},
		{
			name:    "serve",
			summary: "the bot as an HTTP interactions endpoint (needs DISCORD_PUBLIC_KEY)",
			about: `Serves Discord's HTTP interactions on CONNECTN_ADDR: POST /interactions
(Ed25519-verified with DISCORD_PUBLIC_KEY), GET /healthz (the process is up),
/readyz (the database answers) and /metrics (Prometheus). Set the Developer
Portal's Interactions Endpoint URL to https://YOUR.HOST/interactions. With
DISCORD_TOKEN set it also registers the commands at start-up.`,
			flags: join([]string{"CONNECTN_ADDR", "DISCORD_APP_ID"}, botFlags, logFlags),
			needs: need{publicKey: true},
			db:    true,
			run:   serve,
		},
		{
			name:    "register",
			summary: "register the /connectn command with Discord and exit (needs DISCORD_TOKEN)",
			about: `Registers the /connectn command with one bulk overwrite: in DISCORD_GUILD_ID,
where it appears at once, or globally, where Discord may take up to an hour.`,
			flags: join([]string{"DISCORD_GUILD_ID", "DISCORD_APP_ID", "CONNECTN_DISCORD_API"}, logFlags),
			needs: need{token: true},
			run:   register,
		},
		{
			name:    "invite",
			summary: "print the links that add the bot to a server, or install it for yourself",
			about: `Prints two OAuth2 URLs. The first adds the bot to a server (integration type 0),
with the scopes bot and applications.commands and the permissions View
Channels, Send Messages, Send Messages in Threads, Create Public Threads and
Embed Links. The second installs the app for a member themselves (integration
type 1, scope applications.commands), so that /connectn works in their DMs,
group DMs and servers without the bot; the application must allow User
Install (Developer Portal > Installation). The application is DISCORD_APP_ID,
or the one DISCORD_TOKEN belongs to; DISCORD_GUILD_ID preselects that server.`,
			flags: join([]string{"DISCORD_APP_ID", "DISCORD_GUILD_ID", "CONNECTN_DISCORD_API"}, logFlags),
			needs: need{appIDOrToken: true},
			plain: true,
			run:   invite,
		},
		{
			name:    "config",
			summary: "print every setting's effective value and where it came from",
			about: `Prints every setting with its effective value and its source (flag,
environment, .env or default), secrets masked, then any problem, one line
each. Exits 2 when there is a problem. Takes every flag, to preview them.`,
			flags: allFlags(),
			plain: true,
			main:  configMain,
		},
		{
			name:    "health",
			summary: "check the bot running on this host (the container's HEALTHCHECK)",
			about: `Asks the bot running on this host whether it is ready: GET /readyz on
CONNECTN_ADDR (serve), then on CONNECTN_METRICS_ADDR (run). Exits 0 when one
answers 200, else 1, as container health checks expect.`,
			flags:     []string{"CONNECTN_ADDR", "CONNECTN_METRICS_ADDR"},
			plain:     true,
			badConfig: exitFailed, // container runtimes reserve 2
			run:       health,
		},
		{
			name:    "migrate",
			summary: "print the database's schema version and apply pending migrations",
			about: `Opens CONNECTN_DB (a SQLite file, or a postgres:// URL), applies the schema
migrations it lacks in one transaction, and prints the version it found and
the one it left. run and serve do the same at start-up; migrate lets an
owner do it on purpose, before starting new versions of several replicas.`,
			flags: join([]string{"CONNECTN_DB"}, logFlags),
			db:    true,
			plain: true,
			run:   migrateCmd,
		},
		{
			name:    "export",
			summary: "write every match and stat as JSON lines (to FILE, or standard output)",
			about: `Writes every match (finished and in progress, with its ID), member record, pair
record and server's settings of CONNECTN_DB as JSON lines, read from one
consistent snapshot, to FILE (which must not exist yet) or to standard
output; with -guild ID, those of that one server only. With connectn import
it moves a bot from SQLite to PostgreSQL (or back) without losing history:
stop the bot, export, import, start it on the new database.`,
			flags: join([]string{"CONNECTN_DB"}, logFlags),
			needs: need{file: true, guild: true},
			db:    true,
			plain: true,
			run:   exportCmd,
		},
		{
			name:    "import",
			summary: "read what export wrote (from FILE, or standard input) into an empty database",
			about: `Reads the JSON lines connectn export wrote, from FILE or standard input, into
CONNECTN_DB, which must hold no match or stat yet (a new database is
migrated first). Everything is imported in one transaction, or nothing: a
file cut short, or a match whose moves do not replay, is refused with its
line number. Example, from SQLite to PostgreSQL:

  connectn export -db data/connectn.db | connectn import -db postgres://connectn:PASSWORD@db:5432/connectn`,
			flags: join([]string{"CONNECTN_DB"}, logFlags),
			needs: need{file: true},
			db:    true,
			plain: true,
			run:   importCmd,
		},
		{
			name:    "play",
			summary: "play Connect N in this terminal, no Discord needed (-ai LEVEL against the AI)",
			main:    play,
		},
		{
			name:    "solve",
			summary: "solve positions exactly: arguments (connectn solve 4453), or stdin in Pascal Pons' test-set format",
			main: func(ctx context.Context, args []string, d deps) int {
				return solveMain(ctx, args, d.stdin, d.stdout, d.stderr)
			},
		},
		{
			name:    "arena",
			summary: "play two AI levels against each other and print the results",
			main: func(ctx context.Context, args []string, d deps) int {
				return arenaMain(ctx, args, d.stdout, d.stderr)
			},
		},
		{
			name:    "puzzles",
			summary: "puzzles generate: make puzzles proved by the exact solver",
			main: func(ctx context.Context, args []string, d deps) int {
				return puzzlesMain(ctx, args, d.stdout, d.stderr)
			},
		},
		{
			name:    "version",
			summary: "print the version",
			main:    versionMain,
		},
		{
			name:    "help",
			summary: "this text; help COMMAND shows the flags of one command",
			main:    helpMain,
		},
	}
}

func findCommand(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

// overview writes `connectn -h`: every command and every setting.
func overview(w io.Writer) {
	fmt.Fprintf(w, "connectn %s runs the ConnectN Discord bot: Connect N matches between members of a server.\n\n", programVersion())
	fmt.Fprint(w, "Usage: connectn [COMMAND] [flags]\n\nCommands:\n")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, `
Run 'connectn COMMAND -h' for the flags of one command.

Settings, from a flag, the environment or ./.env (in that order of precedence;
see .env.example), else their default:
`)
	settingsHelp(w)
}

// commandHelp writes `connectn NAME -h`.
func commandHelp(w io.Writer, c *command) {
	usage := "[flags]"
	if c.needs.file {
		usage += " [FILE]"
	}
	fmt.Fprintf(w, "Usage: connectn %s %s\n\n%s\n", c.name, usage, c.about)
	if len(c.flags) > 0 {
		fmt.Fprint(w, "\nFlags (each overrides its environment variable and .env):\n")
		flagHelp(w, c.flags)
	}
	if c.needs.guild {
		fmt.Fprintf(w, "\nFlag of this command:\n%s\n", guildFlagHelp)
	}
	var envOnly []string
	switch {
	case c.needs.token:
		envOnly = append(envOnly, "DISCORD_TOKEN (required)")
	case c.name == "serve":
		envOnly = append(envOnly, "DISCORD_PUBLIC_KEY (required)", "DISCORD_TOKEN (optional: registers the commands)")
	case c.name == "invite":
		envOnly = append(envOnly, "DISCORD_TOKEN (to look up the application when DISCORD_APP_ID is empty)")
	}
	if len(envOnly) > 0 {
		fmt.Fprintf(w, "\nFrom the environment or .env only: %s.\n", strings.Join(envOnly, ", "))
	}
	fmt.Fprint(w, "\nconnectn -h lists every setting and its default.\n")
}

// run executes the subcommand in args and returns the exit status: 0 on a
// clean end, 1 when the command fails, 2 for bad usage or configuration,
// and for play ended by SIGINT or SIGTERM 130 or 143. With no command, or
// flags first, the command is run; -h, -help and --help are help, and
// -version and --version are version.
func run(ctx context.Context, args []string, d deps) int {
	name := "run"
	if len(args) > 0 {
		switch args[0] {
		case "-h", "-help", "--help":
			name, args = "help", args[1:]
		case "-version", "--version":
			name, args = "version", args[1:]
		default:
			if args[0] == "" || args[0][0] != '-' {
				name, args = args[0], args[1:]
			}
		}
	}
	c := findCommand(name)
	if c == nil {
		fmt.Fprintf(d.stderr, "connectn: unknown command %q: run 'connectn -h' for the commands\n", name)
		return exitUsage
	}
	if c.main != nil {
		return c.main(ctx, args, d)
	}
	return runCommand(ctx, c, args, d)
}

// helpMain runs `connectn help [COMMAND]`: the help of COMMAND, or the
// overview when there is none (or it is unknown, or help itself).
func helpMain(ctx context.Context, args []string, d deps) int {
	if len(args) > 0 {
		if c := findCommand(args[0]); c != nil && c.name != "help" {
			if c.main != nil {
				return c.main(ctx, []string{"-h"}, d)
			}
			commandHelp(d.stdout, c)
			return exitOK
		}
	}
	overview(d.stdout)
	return exitOK
}

// versionMain runs `connectn version`: the version on stdout.
func versionMain(_ context.Context, args []string, d deps) int {
	if len(args) > 0 && isHelpFlag(args[0]) {
		fmt.Fprint(d.stdout, "Usage: connectn version\n\nPrints the version of connectn: the one set at build time, else the module's\nversion, else dev.\n")
		return exitOK
	}
	fmt.Fprintf(d.stdout, "connectn %s\n", programVersion())
	return exitOK
}

// isHelpFlag reports whether arg asks for help.
func isHelpFlag(arg string) bool { return arg == "-h" || arg == "-help" || arg == "--help" }

// loadSettings reads ./.env and the settings of command c from args. It
// returns done with the exit status when it has answered already: c's
// help for -h, a flag that cannot be parsed, a .env that cannot be read.
// Otherwise bad lists the settings that are missing or malformed (cfg is
// filled in all the same).
func loadSettings(c *command, args []string, d deps) (cfg config, dotenv map[string]string, bad problems, code int, done bool) {
	badConfig := c.badConfigStatus()
	if d.dotenv != nil {
		vars, err := d.dotenv()
		if err != nil {
			fmt.Fprintf(d.stderr, "connectn: reading .env: %v\n", err)
			return cfg, nil, nil, badConfig, true
		}
		dotenv = vars
	}
	cfg, err := loadConfig(c.name, c.flags, args, d.getenv, dotenv, c.needs)
	if errors.Is(err, flag.ErrHelp) {
		commandHelp(d.stdout, c)
		return cfg, dotenv, nil, exitOK, true
	}
	var fe *flagError
	if errors.As(err, &fe) {
		fmt.Fprintln(d.stderr, fe.msg)
		return cfg, dotenv, nil, badConfig, true
	}
	errors.As(err, &bad)
	return cfg, dotenv, bad, 0, false
}

// configMain runs `connectn config`: every setting, then its problems.
func configMain(_ context.Context, args []string, d deps) int {
	cfg, dotenv, bad, code, done := loadSettings(findCommand("config"), args, d)
	if done {
		return code
	}
	printConfig(d.stdout, cfg)
	if dotenv == nil {
		fmt.Fprintln(d.stdout, "\nNo .env file in the working folder.")
	} else {
		fmt.Fprintf(d.stdout, "\nRead .env in the working folder (%d variables).\n", len(dotenv))
	}
	for _, p := range bad {
		fmt.Fprintf(d.stderr, "connectn: %s\n", p)
	}
	if len(bad) > 0 {
		return exitUsage
	}
	return exitOK
}

// runCommand runs a command of the settings: settings, logger, database
// check, then c.run.
func runCommand(ctx context.Context, c *command, args []string, d deps) int {
	cfg, _, bad, code, done := loadSettings(c, args, d)
	if done {
		return code
	}
	if c.db && cfg.db != "" {
		if err := sqlite.CheckPath(cfg.db); err != nil {
			bad = append(bad, settingByEnv("CONNECTN_DB").describe(cfg.values["CONNECTN_DB"])+": "+err.Error())
		}
	}
	if len(bad) > 0 {
		for _, p := range bad {
			fmt.Fprintf(d.stderr, "connectn: %s\n", p)
		}
		return c.badConfigStatus()
	}
	a := &app{c: cfg, d: d, log: newLogger(d.stderr, cfg.logFormat, cfg.logLevel)}
	if c.db && d.getenv("GOGC") == "" {
		debug.SetGCPercent(botGCPercent)
	}
	if slices.Contains(c.flags, "CONNECTN_MEMORY_LIMIT") {
		stop := a.limitMemory(ctx)
		defer stop()
	}
	if !c.plain {
		a.log.Info("connectn "+c.name+" starting", "version", programVersion())
	}
	if err := c.run(ctx, a); err != nil {
		if c.plain {
			fmt.Fprintf(d.stderr, "connectn %s: %v\n", c.name, err)
		} else {
			a.log.Error("connectn "+c.name+" failed", "err", err)
		}
		return exitFailed
	}
	return exitOK
}

// botGCPercent is the garbage collector's target (GOGC) for the bot's
// commands unless the host sets GOGC: the heap may grow to five times what
// is live between collections. The bot keeps a few megabytes live and
// makes its garbage per interaction, so at Go's default of 100 collecting
// is a sizeable share of `connectn serve`'s CPU per move; 400 buys most of
// it back for some tens of MiB more at the peak under heavy load
// (docs/load.md has the measurements). GOGC=100 in the environment trades
// the memory back.
const botGCPercent = 400

// play runs `connectn play` until the players stop, or until SIGINT or
// SIGTERM, which end it at once with status 130 or 143 (the match is not
// kept).
func play(ctx context.Context, args []string, d deps) int {
	color := false
	if f, ok := d.stdout.(*os.File); ok {
		color = console.ColorEnabled(f, d.getenv)
	}
	done := make(chan int, 1)
	go func() { done <- console.Main(args, d.stdin, d.stdout, d.stderr, color, d.getenv) }()
	select {
	case code := <-done:
		return code
	case <-ctx.Done():
		fmt.Fprintln(d.stderr) // end the line the prompt left open
		return signalExitCode(ctx)
	}
}
