// Command connectn-loadgen drives a running `connectn serve` the way Discord
// does, and measures it.
//
// It holds the Ed25519 private key whose public half the server has as
// DISCORD_PUBLIC_KEY and signs every request (X-Signature-Ed25519 over
// X-Signature-Timestamp + body). For each figure of -matches it runs two
// phases of -duration (or -moves requests) each:
//
//   - ping: that many goroutines sending signed PINGs, the baseline of what
//     the endpoint costs before any game logic;
//   - moves: that many matches at once, each in a channel of its own between
//     two made-up members: /connectn challenge, Accept, then legal moves read
//     from the buttons of each response (a random enabled column, clicked by
//     the member the board names) until the match ends, then again.
//
// When a round ends, the response is the round's record and the next
// round's board arrives as a follow-up through the interaction's webhook, so
// the load generator also serves the webhook routes of Discord's REST API
// (-hooks), with bot/discordtest, which checks what the bot posts as Discord
// would; the server must have CONNECTN_DISCORD_API pointing there. The
// interactions are built, signed and their responses read with
// bot/discordtest too.
//
// For each phase it prints throughput, latency percentiles (p50, p90, p99,
// max) by kind of request, errors by kind, and the server's CPU time per
// request: utime+stime of the server process, read from /proc/PID/stat
// before and after the phase (10 ms resolution; -pid, or the process it
// started with -spawn). At the end it prints the CPU per acknowledged move,
// and with -postgres-cpu that of every PostgreSQL process of the machine
// beside it (see postgresCPU).
//
// With -mode gateway (and -spawn) it starts `connectn run` instead, against
// a whole bot/discordtest fake Discord with a gateway: each interaction is
// dispatched as INTERACTION_CREATE, and its response is the bot's POST to
// the callback route of the fake REST API, as on Discord; a move's latency
// runs from the dispatch to the callback's arrival. -mode both starts both
// servers and, for each figure of -matches, runs the HTTP phases then the
// gateway moves phase, and prints the two transports side by side: moves
// per second, latency percentiles and the server's CPU time per move.
// -rss 10,1000,10000 then starts a fresh `connectn run`, opens matches in it
// (challenge, accept, -rss-moves moves each, left active) up to each figure
// in turn, and prints its resident memory (VmRSS) and goroutines once
// they are all active.
//
// Its defaults are a faithful load, the one a host meets: with -spawn,
// both transports (-mode both); `connectn serve` without a bot token, as
// many hosts run it; a twentieth of the server's REST calls failing, in
// every way -fault-kinds knows, mixed; and with replicas, each request to
// one of them at random, as a load balancer does (-route random).
//
// With -ai-matches N, each moves phase is run a second time with N matches
// against the bot (-ai-boards, e.g. 7x6:perfect,12x12:hard, taken in turn)
// played beside the human ones, and the report adds the bot's answers
// (click to the board with its disc, inline or by a deferred edit of
// @original), how many were deferred or later than Discord's 3 s, and the
// human moves' latency with the AI against without (see aimatch.go).
//
// Usage:
//
//	connectn-loadgen -genkey                       print a key pair and exit
//	connectn-loadgen -spawn ./connectn [flags]     start `connectn serve` itself (fresh key, temporary database)
//	connectn-loadgen -url http://127.0.0.1:8080/interactions -key HEX -pid PID -hooks 127.0.0.1:8090 [flags]
//	connectn-loadgen -spawn ./connectn -replicas 2 -db postgres://...   two replicas on one database, requests to either at random
//	connectn-loadgen -spawn ./connectn -crash      kill -9 in mid-run, restart, check nothing acknowledged is lost
//	connectn-loadgen -spawn ./connectn -stop       SIGTERM in mid-run: in-flight requests finish, exit 0
//	connectn-loadgen -spawn ./connectn -mode both -rss 10,1000,10000   serve and run side by side, then run's memory
//	connectn-loadgen -spawn ./connectn -matches 50 -ai-matches 20      50 human matches, then the same beside 20 against the bot
package main

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/bwmarrin/discordgo"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// options are the command's flags.
type options struct {
	url, keyHex, hooksAddr, spawn, db, serverLog string
	pids                                         []int
	urls                                         []string
	replicas                                     int
	matches                                      []int
	duration                                     time.Duration
	moves                                        int
	settings                                     matchSettings
	pings                                        bool
	seed                                         uint64
	genkey, crash, stop                          bool
	crashAfter                                   int
	serverEnv                                    envList
	cpuProfile                                   string
	botToken                                     bool          // spawn the server with DISCORD_TOKEN
	faults                                       float64       // share of the server's REST calls failed, 0 to 1
	faultKinds                                   []string      // of restFaultKinds
	faultRetryAfter                              time.Duration // Retry-After of the injected 429s
	gw                                           gatewayOptions
	clientWork                                   time.Duration // -client-work
	postgresCPU                                  bool
	postgresDB                                   string
	route                                        string
	ai                                           aiOptions // matches against the bot beside the human ones
	soak                                         soakOptions
}

// defaultFaults is -faults' default: a REST call in twenty fails, in one
// of every kind at random.
const defaultFaults = 0.05

// Values of -route.
const (
	routeRandom    = "random"
	routeTurn      = "turn"
	routeAlternate = "alternate"
)

// envList is a repeatable KEY=VALUE flag.
type envList []string

func (l *envList) String() string { return strings.Join(*l, " ") }

func (l *envList) Set(v string) error {
	if k, _, ok := strings.Cut(v, "="); !ok || k == "" {
		return fmt.Errorf("%q is not KEY=VALUE", v)
	}
	*l = append(*l, v)
	return nil
}

// replicaEnv returns env for replica k (0 is the first, which takes env
// as it is): a CONNECTN_PPROF_ADDR of HOST:PORT becomes HOST:PORT+k, so
// that every replica serves its profiles (-server-env
// CONNECTN_PPROF_ADDR=127.0.0.1:6081 gives the second replica 6082). It
// returns an error for an address without a numeric port.
func replicaEnv(env envList, k int) (envList, error) {
	out := slices.Clone(env)
	for i, v := range out {
		addr, ok := strings.CutPrefix(v, "CONNECTN_PPROF_ADDR=")
		if !ok || k == 0 || addr == "" || strings.EqualFold(addr, "off") {
			continue
		}
		host, port, err := net.SplitHostPort(addr)
		n, perr := strconv.Atoi(port)
		if err != nil || perr != nil || n+k > 65535 {
			return nil, fmt.Errorf("-server-env CONNECTN_PPROF_ADDR=%s: want HOST:PORT, so that replica %d can take port PORT+%d", addr, k+1, k)
		}
		out[i] = "CONNECTN_PPROF_ADDR=" + net.JoinHostPort(host, strconv.Itoa(n+k))
	}
	return out, nil
}

func parseFlags(args []string, stderr io.Writer) (*options, error) {
	o := &options{}
	fs := flag.NewFlagSet("connectn-loadgen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, `Usage: connectn-loadgen [flags]

Drives a running `+"`connectn serve`"+` as Discord would (signed interactions, matches
played from the buttons of each response, follow-ups received on fake webhook
routes) and prints moves per second, latency percentiles, errors by kind and
the server's CPU time per request, beside a signed-PING baseline.

  connectn-loadgen -genkey
  connectn-loadgen -spawn ./connectn -matches 1,50,500 -duration 10s
  connectn-loadgen -url http://127.0.0.1:8080/interactions -key $CONNECTN_LOADGEN_KEY \
      -pid $(pgrep -f 'connectn serve') -hooks 127.0.0.1:8090
    (with the server started as CONNECTN_DISCORD_API=http://127.0.0.1:8090/api/v10
     DISCORD_PUBLIC_KEY=<the public key -genkey printed> connectn serve)
  connectn-loadgen -spawn ./connectn -replicas 2 -db 'postgres://postgres@127.0.0.1:5432/bench?sslmode=disable'
    (two replicas on one database; each request goes to one of them at random)
  connectn-loadgen -spawn ./connectn -crash     kill -9 mid-run, restart, verify; exit 0 on PASS
  connectn-loadgen -spawn ./connectn -stop      SIGTERM mid-run, verify; exit 0 on PASS
  connectn-loadgen -spawn ./connectn -mode both -matches 1,50,500 -rss 10,1000,10000
    (connectn serve and connectn run side by side, run's interactions dispatched over
     a fake gateway and answered on the fake REST API; then the resident memory of a
     fresh connectn run with 10, 1,000 and 10,000 matches active)
  connectn-loadgen -spawn ./connectn -matches 50 -ai-matches 20 -ai-boards 7x6:perfect,12x12:hard
    (50 human matches, then the same 50 beside 20 matches against the bot: the human
     moves' latency with and without the AI, and the bot's answers against the 3 s window)

Flags:
`)
		fs.PrintDefaults()
	}
	var matches string
	fs.StringVar(&o.url, "url", "http://127.0.0.1:8080/interactions", "the server's interactions endpoint, or the comma-separated endpoints of its replicas, taken in turn (ignored with -spawn)")
	fs.StringVar(&o.keyHex, "key", os.Getenv("CONNECTN_LOADGEN_KEY"), "Ed25519 private key, hex: a 32-byte seed or a 64-byte key (default $CONNECTN_LOADGEN_KEY; ignored with -spawn)")
	fs.StringVar(&o.hooksAddr, "hooks", "127.0.0.1:8090", "address to serve the fake webhook routes on (-spawn picks a free port)")
	var pids string
	fs.StringVar(&pids, "pid", "", "process ID of the server, or comma-separated IDs of its replicas, to read their CPU time from /proc (none: CPU not measured; -spawn knows them)")
	fs.IntVar(&o.replicas, "replicas", 1, "with -spawn: replicas of `connectn serve` to start on the same -db (more than 1 needs a PostgreSQL URL or a shared SQLite file), requests taken by each in turn")
	fs.StringVar(&o.spawn, "spawn", "", "path of a connectn binary to start as `connectn serve` with a fresh key pair")
	fs.StringVar(&o.db, "db", "", "database of the spawned server (default: a new file in a temporary folder)")
	fs.StringVar(&o.route, "route", routeRandom, "how requests meet replicas: random (each request to a replica at random, as a load balancer does), turn (each request to the next replica, whatever its match) or alternate (each match's requests alternate, so every click meets the replica that did not serve the match's last one)")
	fs.BoolVar(&o.postgresCPU, "postgres-cpu", false, "also read the CPU time of every PostgreSQL process of this machine (from /proc) and report it per move beside the server's")
	fs.StringVar(&o.postgresDB, "postgres-db", "", "with -postgres-cpu: count only the backends of this database and the server's own processes (writers, checkpointer), not other databases' clients on a shared server")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write this program's own CPU profile to the file (the server's is not included)")
	fs.Var(&o.serverEnv, "server-env", "KEY=VALUE added to the spawned server's environment (repeatable), e.g. CONNECTN_LOG_LEVEL=info; with -replicas, CONNECTN_PPROF_ADDR=HOST:PORT gives replica k (from 1) port PORT+k-1")
	fs.StringVar(&o.serverLog, "server-log", "", "file for the spawned server's log (default: standard error)")
	fs.StringVar(&matches, "matches", "1,50,500", "comma-separated numbers of concurrent matches, one pair of phases each")
	repeat := fs.Int("repeat", 1, "run the figures of -matches this many times in turn (1,50,1,50,...), and print the median of the move's CPU over a PING's for each figure beside every run's")
	fs.DurationVar(&o.duration, "duration", 10*time.Second, "length of each phase")
	fs.IntVar(&o.moves, "moves", 0, "end each moves phase after this many acknowledged moves, and each ping phase after as many PINGs (0: use -duration)")
	fs.IntVar(&o.settings.Rows, "rows", 6, "rows of every match")
	fs.IntVar(&o.settings.Columns, "columns", 7, "columns of every match")
	fs.IntVar(&o.settings.Connect, "connect", 4, "discs in a row to win a round")
	fs.IntVar(&o.settings.Wins, "wins", 2, "round wins that take a match (the bot's default, 2: rounds end in follow-ups, as in real use)")
	fs.BoolVar(&o.botToken, "bot-token", false, "spawn `connectn serve` with DISCORD_TOKEN, which the fake REST API accepts: it can then read a channel and post with the bot token. Without (the default, as many hosts of serve run it), it reaches Discord through interaction tokens only")
	fs.Float64Var(&o.faults, "faults", defaultFaults, "share of the server's calls to the fake REST API of HTTP mode that fail (0 to 1), each in one of -fault-kinds at random: by default one in twenty, every kind mixed (Discord's API has bad days); 0: none")
	kinds := fs.String("fault-kinds", "all", "with -faults: all, or a comma-separated subset of "+strings.Join(restFaultKinds, ", "))
	fs.DurationVar(&o.faultRetryAfter, "fault-retry-after", 500*time.Millisecond, "with -faults: Retry-After of the injected 429s")
	fs.DurationVar(&o.clientWork, "client-work", 0, "with HTTP interactions: how long the load generator keeps a processor busy before each request, as a heavier load generator on the same cores would (0: none)")
	fs.BoolVar(&o.pings, "pings", true, "run a ping phase before each moves phase, as the baseline")
	fs.Uint64Var(&o.seed, "seed", uint64(time.Now().UnixNano()), "seed of the players' column choices")
	fs.BoolVar(&o.genkey, "genkey", false, "print a new key pair (DISCORD_PUBLIC_KEY for the server, CONNECTN_LOADGEN_KEY for this program) and exit")
	fs.BoolVar(&o.crash, "crash", false, "crash test (needs -spawn): kill -9 the server mid-run, restart it on the same database, verify every acknowledged move")
	fs.IntVar(&o.crashAfter, "crash-after", 400, "with -crash or -stop: acknowledged moves before the kill or SIGTERM")
	fs.BoolVar(&o.stop, "stop", false, "graceful stop test (needs -spawn): SIGTERM mid-run; requests in flight finish, nothing acknowledged is lost, exit 0 within 5s")
	checkGateway := gatewayFlags(fs, o)
	checkAI := aiFlags(fs, o)
	checkSoak := soakFlags(fs, o)
	err := fs.Parse(args)
	if err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	for _, f := range strings.Split(o.url, ",") {
		if f = strings.TrimSpace(f); f != "" {
			o.urls = append(o.urls, f)
		}
	}
	if len(o.urls) == 0 {
		return nil, errors.New("-url: no endpoint")
	}
	if pids != "" {
		for _, f := range strings.Split(pids, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n < 1 {
				return nil, fmt.Errorf("-pid: %q is not a process ID", f)
			}
			o.pids = append(o.pids, n)
		}
	}
	if o.route != routeRandom && o.route != routeTurn && o.route != routeAlternate {
		return nil, fmt.Errorf("-route: %q is not random, turn or alternate", o.route)
	}
	if o.replicas < 1 || o.replicas > 16 {
		return nil, fmt.Errorf("-replicas: %d is not from 1 to 16", o.replicas)
	}
	if o.replicas > 1 && (o.spawn == "" || o.crash || o.stop) {
		return nil, errors.New("-replicas needs -spawn, without -crash or -stop (give -url and -pid lists for replicas started elsewhere)")
	}
	for _, f := range strings.Split(matches, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("-matches: %q is not a positive number", f)
		}
		o.matches = append(o.matches, n)
	}
	if *repeat < 1 || *repeat > 100 {
		return nil, fmt.Errorf("-repeat: %d is not from 1 to 100", *repeat)
	}
	once := o.matches
	for range *repeat - 1 {
		o.matches = append(o.matches, once...)
	}
	if o.faults < 0 || o.faults > 1 {
		return nil, fmt.Errorf("-faults: %v is not from 0 to 1", o.faults)
	}
	if o.faultKinds, err = parseFaultKinds(*kinds); err != nil {
		return nil, err
	}
	if o.clientWork < 0 {
		return nil, fmt.Errorf("-client-work: %v is negative", o.clientWork)
	}
	if o.faultRetryAfter < 0 {
		return nil, fmt.Errorf("-fault-retry-after: %v is negative", o.faultRetryAfter)
	}
	if (o.crash || o.stop) && o.spawn == "" {
		return nil, errors.New("-crash and -stop need -spawn: the test starts, kills and restarts the server itself")
	}
	if err := checkGateway(); err != nil {
		return nil, err
	}
	if err := checkAI(); err != nil {
		return nil, err
	}
	if err := checkSoak(); err != nil {
		return nil, err
	}
	return o, nil
}

// parseKey reads a private key as -key takes it.
func parseKey(s string) (ed25519.PrivateKey, error) {
	b, err := hex.DecodeString(strings.TrimSpace(s))
	if err != nil {
		return nil, errors.New("-key: not hexadecimal")
	}
	switch len(b) {
	case ed25519.SeedSize:
		return ed25519.NewKeyFromSeed(b), nil
	case ed25519.PrivateKeySize:
		return ed25519.PrivateKey(b), nil
	}
	return nil, fmt.Errorf("-key: %d bytes, want %d (a seed) or %d", len(b), ed25519.SeedSize, ed25519.PrivateKeySize)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	o, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintln(stderr, "connectn-loadgen:", err)
		return 2
	}
	if o.genkey {
		pub, priv := generateKey()
		fmt.Fprintf(stdout, "DISCORD_PUBLIC_KEY=%s\nCONNECTN_LOADGEN_KEY=%s\n", hex.EncodeToString(pub), hex.EncodeToString(priv.Seed()))
		return 0
	}
	if o.cpuProfile != "" {
		f, err := os.Create(o.cpuProfile)
		if err != nil {
			fmt.Fprintln(stderr, "connectn-loadgen:", err)
			return 1
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(stderr, "connectn-loadgen:", err)
			return 1
		}
		defer pprof.StopCPUProfile()
	}
	if o.gw.mode != modeHTTP {
		return runGatewayMode(ctx, o, stdout, stderr)
	}
	if o.soak.duration > 0 {
		return runSoak(ctx, o, stdout, stderr)
	}
	env, err := setup(ctx, o, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "connectn-loadgen:", err)
		return 1
	}
	defer env.close()
	switch {
	case o.crash:
		return verdict(stdout, crashTest(ctx, env, o, stdout))
	case o.stop:
		return verdict(stdout, stopTest(ctx, env, o, stdout))
	}
	var results []phaseResult
	for _, m := range o.matches {
		if o.pings {
			r, err := env.pingPhase(ctx, m, o)
			if err != nil {
				fmt.Fprintln(stderr, "connectn-loadgen:", err)
				return 1
			}
			results = append(results, r)
			report(stdout, []phaseResult{r}, false)
		}
		r, err := env.movePhase(ctx, m, o)
		if err != nil {
			fmt.Fprintln(stderr, "connectn-loadgen:", err)
			return 1
		}
		results = append(results, r)
		report(stdout, []phaseResult{r}, false)
		if o.ai.matches > 0 && ctx.Err() == nil {
			with, a, err := env.aiMovePhase(ctx, m, o)
			if err != nil {
				fmt.Fprintln(stderr, "connectn-loadgen:", err)
				return 1
			}
			results = append(results, with)
			report(stdout, []phaseResult{with}, false)
			reportAI(stdout, r, with, a, o.ai.boards)
		}
		if ctx.Err() != nil {
			break
		}
	}
	fmt.Fprintln(stdout)
	report(stdout, results, true)
	reportPerMove(stdout, results)
	if len(env.c.byReplica) > 1 {
		fmt.Fprint(stdout, "requests by replica:")
		for k := range env.c.byReplica {
			fmt.Fprintf(stdout, " %d: %d", k+1, env.c.byReplica[k].Load())
		}
		fmt.Fprintln(stdout)
	}
	for k, pid := range env.pids {
		if rss, err := peakRSS(pid); err == nil {
			who := "server's"
			if len(env.pids) > 1 {
				who = fmt.Sprintf("replica %d's", k+1)
			}
			fmt.Fprintf(stdout, "%s peak resident memory: %.1f MiB\n", who, float64(rss)/(1<<20))
		}
	}
	if len(o.gw.rss) > 0 && ctx.Err() == nil {
		// A fresh server for the memory phase, this one stopped.
		env.close()
		oo := *o
		oo.serverLog = "" // the server's log goes to stderr, not over the file of the phases'
		if err := memoryPhase(ctx, &oo, stderr, stdout, modeHTTP); err != nil {
			fmt.Fprintln(stderr, "connectn-loadgen:", err)
			return 1
		}
	}
	return 0
}

// verdict prints PASS or FAIL and returns the exit status.
func verdict(w io.Writer, err error) int {
	if err != nil {
		fmt.Fprintf(w, "FAIL: %v\n", err)
		return 1
	}
	fmt.Fprintln(w, "PASS")
	return 0
}

// env is what the phases share: the client, the fake Discord and, with
// -spawn, the server process.
type env struct {
	c      *client
	d      *fakeDiscord
	srv    *server   // nil when driving a server started elsewhere
	more   []*server // the other replicas of -replicas
	pids   []int     // the server's processes: srv's and more's, or -pid
	tmp    string
	logf   *os.File
	seq    atomic.Int64 // phases run, for fresh channels
	chBase int64
	pgOn   bool          // -postgres-cpu
	pgDB   string        // -postgres-db
	pgLast time.Duration // PostgreSQL's CPU in the last measure, -1 when not measured

	closeOnce sync.Once
}

func setup(ctx context.Context, o *options, stderr io.Writer) (*env, error) {
	e := &env{pids: o.pids, pgOn: o.postgresCPU, pgDB: o.postgresDB}
	// Channels of this run: numbers no earlier run on the same database used.
	e.chBase = 1300000000000000000 + (time.Now().UnixMilli()%1_000_000_000)*1000
	hooksAddr := o.hooksAddr
	if o.spawn != "" {
		hooksAddr = "127.0.0.1:0"
	}
	var faults *faultChooser
	if o.faults > 0 {
		faults = newFaultChooser(o.faults, o.faultKinds, o.faultRetryAfter, o.seed)
	}
	d, err := listenDiscord(hooksAddr, faults, o.soak.duration > 0)
	if err != nil {
		return nil, err
	}
	e.d = d
	if o.spawn == "" {
		key, err := parseKey(o.keyHex)
		if err != nil {
			d.Close()
			return nil, err
		}
		e.c = newClient(o.urls, key, maxInt(o.matches), o.route, o.seed)
		e.c.work = o.clientWork
		return e, nil
	}
	_, priv := generateKey()
	if e.tmp, err = os.MkdirTemp("", "connectn-loadgen-"); err != nil {
		d.Close()
		return nil, err
	}
	db := o.db
	if db == "" {
		db = filepath.Join(e.tmp, "connectn.db")
	}
	var logw io.Writer = stderr
	if o.serverLog != "" {
		if e.logf, err = os.Create(o.serverLog); err != nil {
			e.close()
			return nil, err
		}
		logw = e.logf
	}
	// The replicas' logs copy into logw from goroutines of their own.
	logw = &lockedWriter{w: logw}
	bin, err := filepath.Abs(o.spawn)
	if err != nil {
		e.close()
		return nil, err
	}
	// Without a bot token by default, as many hosts run serve (it needs
	// none); with -bot-token, the server can read a channel to find a
	// post whose answer was lost, and post where an interaction's token
	// expired.
	serverEnv := o.serverEnv
	if o.botToken {
		serverEnv = append([]string{"DISCORD_TOKEN=" + botToken}, serverEnv...)
	}
	if e.srv, err = newServer(bin, db, priv, d.apiBase(), logw, serverEnv...); err != nil {
		e.close()
		return nil, err
	}
	if err := e.srv.start(ctx); err != nil {
		e.srv = nil
		e.close()
		return nil, err
	}
	e.pids = []int{e.srv.pid()}
	urls := []string{e.srv.url()}
	for k := range o.replicas - 1 {
		env, err := replicaEnv(serverEnv, k+1)
		if err != nil {
			e.close()
			return nil, err
		}
		more, err := newServer(bin, db, priv, d.apiBase(), logw, env...)
		if err == nil {
			err = more.start(ctx)
		}
		if err != nil {
			e.close()
			return nil, fmt.Errorf("replica %d: %w", len(e.more)+2, err)
		}
		e.more = append(e.more, more)
		e.pids = append(e.pids, more.pid())
		urls = append(urls, more.url())
	}
	e.c = newClient(urls, priv, maxInt(o.matches), o.route, o.seed)
	e.c.work = o.clientWork
	return e, nil
}

// close stops the servers and the fake Discord and removes the temporary
// folder; it does it once, however often it is called.
func (e *env) close() { e.closeOnce.Do(e.closeNow) }

func (e *env) closeNow() {
	for _, m := range append([]*server{e.srv}, e.more...) {
		if m != nil && m.cmd != nil {
			select {
			case <-m.done:
			default:
				m.stop(10 * time.Second)
			}
		}
	}
	if e.d != nil {
		if e.srv == nil {
			// A server started elsewhere keeps running: let it finish the
			// edits that follow the last forfeits before its webhooks go.
			time.Sleep(time.Second)
		}
		e.d.Close()
	}
	if e.logf != nil {
		e.logf.Close()
	}
	if e.tmp != "" {
		os.RemoveAll(e.tmp)
	}
}

func maxInt(l []int) int { return slices.Max(l) }

// phaseResult is what one phase measured.
type phaseResult struct {
	kind     string // "ping" or "moves"
	matches  int
	elapsed  time.Duration
	rec      *recorder
	requests int
	cpu      time.Duration // the server's, -1 when not measured
	pgCPU    time.Duration // PostgreSQL's (-postgres-cpu), -1 when not measured
	selfCPU  time.Duration // this program's, -1 when not measured
	mix      string        // the requests of a moves phase by kind
	hooks    map[string]int
	// duplicates counts the boards posted twice during a moves phase;
	// restMetrics are the server's REST retry and give-up counters after
	// it (since the server started), when -faults is on.
	duplicates  int
	restMetrics []string
	// rss is the server's resident memory (the first replica's VmRSS)
	// at the end of a moves phase, 0 when not read.
	rss int64
}

// lockedWriter serialises writes to w.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// cpuNow returns the server's CPU time (of all its replicas together), or
// -1 when there is no process to read.
func (e *env) cpuNow() time.Duration {
	if len(e.pids) == 0 {
		return -1
	}
	var sum time.Duration
	for _, pid := range e.pids {
		d, err := cpuTime(pid)
		if err != nil {
			return -1
		}
		sum += d
	}
	return sum
}

// measure runs body between two readings of the server's CPU time (and
// this program's), after a moment for earlier work to settle.
func (e *env) measure(body func()) (elapsed, cpu, self time.Duration) {
	time.Sleep(300 * time.Millisecond)
	before := e.cpuNow()
	selfBefore, selfErr := cpuTime(os.Getpid())
	pgBefore := readPostgres(e.pgOn, e.pgDB)
	start := time.Now()
	body()
	elapsed = time.Since(start)
	after := e.cpuNow()
	e.pgLast = readPostgres(e.pgOn, e.pgDB).since(pgBefore)
	selfAfter, selfErr2 := cpuTime(os.Getpid())
	cpu, self = -1, -1
	if before >= 0 && after >= 0 {
		cpu = after - before
	}
	if selfErr == nil && selfErr2 == nil {
		self = selfAfter - selfBefore
	}
	return elapsed, cpu, self
}

// pingPhase sends signed PINGs from m goroutines for o.duration (or until
// o.moves PINGs).
func (e *env) pingPhase(ctx context.Context, m int, o *options) (phaseResult, error) {
	var budget atomic.Int64
	budget.Store(int64(o.moves))
	recs := make([]*recorder, m)
	elapsed, cpu, self := e.measure(func() {
		// The phase ends new requests at its deadline; those in flight
		// finish.
		phaseCtx, cancel := context.WithTimeout(ctx, o.duration)
		defer cancel()
		var wg sync.WaitGroup
		for g := range m {
			recs[g] = newRecorder()
			wg.Go(func() {
				for phaseCtx.Err() == nil {
					if o.moves > 0 && budget.Add(-1) < 0 {
						return
					}
					ex := e.c.send(ctx, e.c.ping())
					switch {
					case ex.errKind == "" && ex.resp.Type == discordgo.InteractionResponsePong:
						recs[g].ok("ping", ex.took)
					case ex.errKind == "":
						recs[g].fail("ping", fmt.Sprintf("response type %d", ex.resp.Type))
					case ctx.Err() == nil:
						recs[g].fail("ping", ex.errKind)
					}
				}
			})
		}
		wg.Wait()
	})
	rec := newRecorder()
	for _, r := range recs {
		rec.merge(r)
	}
	return phaseResult{kind: "ping", matches: m, elapsed: elapsed, rec: rec, requests: requests(rec), cpu: cpu, selfCPU: self, pgCPU: e.pgLast}, nil
}

// requests counts the requests a recorder saw (next boards are not
// requests to the server: they come with a response, or as follow-ups).
func requests(r *recorder) int {
	n := 0
	for k, v := range r.lat {
		if k != "next board" {
			n += len(v)
		}
	}
	for k, v := range r.errs {
		if !strings.HasPrefix(k, "next board") {
			n += v
		}
	}
	return n
}

// newSlots returns m slots in channels no earlier phase used.
func (e *env) newSlots(m int, o *options) []*slot {
	base := e.chBase + e.seq.Add(1)*10_000
	slots := make([]*slot, m)
	for i := range m {
		slots[i] = newSlot(i, e.c, e.d, base, o.settings, o.seed+uint64(base))
		if o.faults > 0 {
			// Measure late boards instead of giving up on them at 10 s.
			slots[i].followTimeout = 30 * time.Second
		}
	}
	return slots
}

// movePhase plays m matches at once for o.duration (or until o.moves
// acknowledged moves), then ends the matches left open.
func (e *env) movePhase(ctx context.Context, m int, o *options) (phaseResult, error) {
	slots := e.newSlots(m, o)
	var budget atomic.Int64
	budget.Store(int64(o.moves))
	hooksBefore := e.d.count()
	dupBefore := e.d.duplicateBoards()
	elapsed, cpu, self := e.measure(func() {
		// The phase ends new requests at its deadline; those in flight
		// finish (a cancelled request would be an error on the server's
		// side too).
		phaseCtx, cancel := context.WithTimeout(ctx, o.duration)
		defer cancel()
		var wg sync.WaitGroup
		for _, s := range slots {
			wg.Go(func() {
				for phaseCtx.Err() == nil {
					if o.moves > 0 && s.phase == phasePlaying && budget.Add(-1) < 0 {
						return
					}
					if err := s.step(ctx); err != nil && ctx.Err() == nil {
						var gone *errServerGone
						if errors.As(err, &gone) {
							s.rec.fail(s.inflight.kind, gone.kind)
							s.inflight = nil
						}
						s.abandon(ctx)
					}
				}
			})
		}
		wg.Wait()
	})
	hooksAfter := e.d.count()
	dupAfter := e.d.duplicateBoards()
	var rssAfter int64
	if len(e.pids) > 0 {
		rssAfter, _ = procStatus(e.pids[0], "VmRSS:")
	}
	// Leave nothing active behind (not measured).
	cleanCtx, cleanCancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cleanCancel()
	var wg sync.WaitGroup
	for _, s := range slots {
		wg.Go(func() { s.abandon(cleanCtx) })
	}
	wg.Wait()
	rec := newRecorder()
	done := 0
	for _, s := range slots {
		rec.merge(s.rec)
		done += s.matchesDone
	}
	var mix []string
	for _, k := range []string{"challenge", "accept", "move"} {
		mix = append(mix, fmt.Sprintf("%s %d", k, len(rec.lat[k])))
	}
	hooks := map[string]int{}
	for k, v := range hooksAfter {
		if d := v - hooksBefore[k]; d > 0 {
			hooks[k] = d
		}
	}
	res := phaseResult{kind: "moves", matches: m, elapsed: elapsed, rec: rec, requests: requests(rec), cpu: cpu, selfCPU: self, pgCPU: e.pgLast,
		mix: fmt.Sprintf("%s; matches finished %d", strings.Join(mix, ", "), done), hooks: hooks, duplicates: dupAfter - dupBefore, rss: rssAfter}
	if o.faults > 0 {
		for _, u := range e.c.endpoints {
			lines, err := restMetrics(ctx, u)
			if err != nil {
				lines = []string{"metrics: " + err.Error()}
			}
			res.restMetrics = append(res.restMetrics, lines...)
		}
	}
	return res, nil
}

// report prints the results: one block per phase, or with summary the
// table of all phases.
func report(w io.Writer, results []phaseResult, summary bool) {
	if summary {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "matches\tphase\trequests\treq/s\tmoves/s\tp50\tp90\tp99\tmax\tserver CPU/request\tloadgen CPU/request\terrors\t")
		for _, r := range results {
			kind := "move"
			if r.kind == "ping" {
				kind = "ping"
			}
			p50, p90, p99, mx := percentiles(r.rec.lat[kind])
			movesPerSec := "-"
			if r.kind != "ping" {
				movesPerSec = fmt.Sprintf("%.0f", float64(r.rec.moves)/r.elapsed.Seconds())
			}
			errs := 0
			for _, v := range r.rec.errs {
				errs += v
			}
			fmt.Fprintf(tw, "%d\t%s\t%d\t%.0f\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t\n", r.matches, r.kind, r.requests,
				float64(r.requests)/r.elapsed.Seconds(), movesPerSec, ms(p50), ms(p90), ms(p99), ms(mx), cpuPer(r.cpu, r.requests), cpuPer(r.selfCPU, r.requests), errs)
		}
		tw.Flush()
		fmt.Fprintln(w, "(latencies of the moves phases are of the drop clicks; CPU per request counts every request of the phase,")
		fmt.Fprintln(w, " and the server's background work during it, from utime+stime in /proc/PID/stat)")
		return
	}
	for _, r := range results {
		fmt.Fprintf(w, "== %d %s: %d requests in %.1fs (%.0f/s)", r.matches, r.kind, r.requests, r.elapsed.Seconds(), float64(r.requests)/r.elapsed.Seconds())
		if r.kind != "ping" {
			fmt.Fprintf(w, ", %d moves acknowledged (%.0f moves/s)", r.rec.moves, float64(r.rec.moves)/r.elapsed.Seconds())
		}
		fmt.Fprintf(w, ", server CPU %s/request (load generator %s/request)\n", cpuPer(r.cpu, r.requests), cpuPer(r.selfCPU, r.requests))
		if r.mix != "" {
			fmt.Fprintf(w, "   requests: %s\n", r.mix)
		}
		if len(r.hooks) > 0 {
			fmt.Fprintf(w, "   webhook calls from the server: %s\n", formatCounts(r.hooks))
		}
		if r.kind != "ping" {
			fmt.Fprintf(w, "   boards posted twice: %d\n", r.duplicates)
		}
		if r.rss > 0 {
			fmt.Fprintf(w, "   server's resident memory at the end: %s\n", mib(r.rss))
		}
		for _, l := range r.restMetrics {
			fmt.Fprintf(w, "   %s\n", l)
		}
		kinds := make([]string, 0, len(r.rec.lat))
		for k := range r.rec.lat {
			kinds = append(kinds, k)
		}
		sort.Strings(kinds)
		for _, k := range kinds {
			if k == "next board" {
				// From the response that ended a round to the next board.
				p50, _, p99, mx := percentiles(r.rec.lat[k])
				late := 0
				for _, d := range r.rec.lat[k] {
					if d > 15*time.Second {
						late++
					}
				}
				fmt.Fprintf(w, "   %-10s %7d after their round's end (%d in the response, %d as follow-ups): p50 %s  p99 %s  max %s; later than 15s: %d\n",
					k, len(r.rec.lat[k]), r.rec.inResponse, len(r.rec.lat[k])-r.rec.inResponse, ms(p50), ms(p99), ms(mx), late)
				continue
			}
			p50, p90, p99, mx := percentiles(r.rec.lat[k])
			fmt.Fprintf(w, "   %-10s %7d  p50 %s  p90 %s  p99 %s  max %s\n", k, len(r.rec.lat[k]), ms(p50), ms(p90), ms(p99), ms(mx))
		}
		if len(r.rec.errs) > 0 {
			fmt.Fprintf(w, "   errors: %s\n", formatCounts(r.rec.errs))
		}
	}
}

func formatCounts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s ×%d", k, m[k]))
	}
	return strings.Join(parts, "; ")
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond)) }

func cpuPer(cpu time.Duration, requests int) string {
	if cpu < 0 || requests == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.3fms", float64(cpu)/float64(time.Millisecond)/float64(requests))
}
