// Package metrics exports ConnectN's Prometheus metrics
// (github.com/prometheus/client_golang). Only cmd/connectn imports it: the
// bot declares the small interface it calls (bot.Metrics), and *Metrics
// satisfies it.
//
// The metrics, all prefixed connectn_:
//
//	interactions_total{kind,outcome}            counter: interactions handled
//	interaction_duration_seconds{kind}          histogram: time to compute a response
//	active_matches                              gauge: challenges and matches in progress
//	deadlines_fired_total{kind}                 counter: challenge and turn deadlines that expired
//	discord_requests_total{method,route,status} counter: REST calls to Discord
//	discord_request_duration_seconds{method,route} histogram: their latency
//	discord_retries_total{cause}                counter: REST calls after a response tried again
//	discord_give_ups_total{cause}               counter: REST calls after a response given up after tries
//	store_errors_total{op}                      counter: failed database operations
//	ai_move_duration_seconds{level}             histogram: AI think time per move
//	build_info{version,goversion}               gauge, always 1
//
// plus the Go runtime and process collectors (go_*, process_*).
package metrics

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"regexp"
	"runtime"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

const namespace = "connectn"

// activeTimeout bounds the active-matches query made on each scrape.
const activeTimeout = 2 * time.Second

// Options configures New.
type Options struct {
	// Version is the program version reported by connectn_build_info.
	Version string
	// ActiveMatches counts the challenges and matches in progress; it is
	// called on every scrape with a context that ends after 2 seconds. Nil
	// leaves connectn_active_matches out. An error leaves it out of that
	// scrape and counts as a store error (op "count_active").
	ActiveMatches func(ctx context.Context) (int, error)
	// Log receives errors of the /metrics handler; slog.Default() when nil.
	Log *slog.Logger
}

// Metrics holds the collectors of one process in their own registry. Its
// methods are safe for concurrent use. The zero value is not usable: call
// New.
type Metrics struct {
	reg          *prometheus.Registry
	log          *slog.Logger
	interactions *prometheus.CounterVec
	latency      *prometheus.HistogramVec
	deadlines    *prometheus.CounterVec
	requests     *prometheus.CounterVec
	reqLatency   *prometheus.HistogramVec
	storeErrors  *prometheus.CounterVec
	retries      *prometheus.CounterVec
	giveUps      *prometheus.CounterVec
	aiMoves      *prometheus.HistogramVec
	refused      *prometheus.CounterVec
}

// New returns the metrics of one process, registered in a fresh registry
// together with the Go runtime and process collectors.
func New(o Options) *Metrics {
	log := o.Log
	if log == nil {
		log = slog.Default()
	}
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		log: log,
		interactions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Name: "interactions_total",
			Help: "Interactions handled, by kind (command/<name>, button/<action>, ping, ...) and outcome (ok; refused: a user error answered privately; failed: an internal error).",
		}, []string{"kind", "outcome"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: namespace, Name: "interaction_duration_seconds",
			Help:    "Time to compute the response to an interaction, store write included, by kind. Discord drops a first response later than 3 s.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2, 3},
		}, []string{"kind"}),
		deadlines: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Name: "deadlines_fired_total",
			Help: "Deadlines that expired and were acted on, by kind (challenge, turn).",
		}, []string{"kind"}),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Name: "discord_requests_total",
			Help: "REST calls to Discord, by method, route (IDs and tokens replaced by placeholders) and HTTP status (\"error\" when no response came).",
		}, []string{"method", "route", "status"}),
		reqLatency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: namespace, Name: "discord_request_duration_seconds",
			Help:    "Latency of REST calls to Discord, by method and route.",
			Buckets: []float64{.025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"method", "route"}),
		storeErrors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Name: "store_errors_total",
			Help: "Database operations that failed (not the expected outcomes such as a busy channel), by operation.",
		}, []string{"op"}),
		retries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Name: "discord_retries_total",
			Help: "REST calls after a response (board posts, edits) tried again, by cause (429, 5xx, timeout, reset; lost: a post found made after its answer was lost).",
		}, []string{"cause"}),
		giveUps: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Name: "discord_give_ups_total",
			Help: "REST calls after a response given up after tries, by the cause of the last failure.",
		}, []string{"cause"}),
		aiMoves: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: namespace, Name: "ai_move_duration_seconds",
			Help:    "Time the AI took to choose a move, by level.",
			Buckets: []float64{.001, .005, .01, .05, .1, .25, .5, .75, 1, 1.5},
		}, []string{"level"}),
		refused: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Name: "interactions_refused_total",
			Help: "Interaction requests refused before they were handled, by reason (bad_signature: 401; malformed: 400; too_large: 413).",
		}, []string{"reason"}),
	}
	build := prometheus.NewGauge(prometheus.GaugeOpts{
		Namespace: namespace, Name: "build_info",
		Help:        "Always 1; the labels give the program version and the Go version it was built with.",
		ConstLabels: prometheus.Labels{"version": o.Version, "goversion": runtime.Version()},
	})
	build.Set(1)
	m.reg.MustRegister(
		// Besides the default metrics, the heap live after the last
		// collection (go_gc_heap_live_bytes): what a memory limit leaves
		// room above (cmd/connectn's CONNECTN_MEMORY_LIMIT).
		collectors.NewGoCollector(collectors.WithGoCollectorRuntimeMetrics(collectors.GoRuntimeMetricsRule{
			Matcher: regexp.MustCompile(`^/gc/heap/live:bytes$`)})),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		build, m.interactions, m.latency, m.deadlines, m.requests, m.reqLatency, m.storeErrors, m.retries, m.giveUps, m.aiMoves,
		m.refused,
	)
	if o.ActiveMatches != nil {
		m.reg.MustRegister(&activeCollector{count: o.ActiveMatches, errs: m.storeErrors, desc: prometheus.NewDesc(
			prometheus.BuildFQName(namespace, "", "active_matches"),
			"Challenges waiting for an answer and matches being played, in this database.", nil, nil)})
	}
	return m
}

// Handler returns the HTTP handler of GET /metrics, in the Prometheus text
// or OpenMetrics format the scraper asks for.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{
		ErrorLog:          slogPrinter{m.log},
		Registry:          m.reg,
		EnableOpenMetrics: true,
	})
}

// Gatherer returns the registry, for tests and custom exporters.
func (m *Metrics) Gatherer() prometheus.Gatherer { return m.reg }

// Interaction records one interaction of kind handled with outcome ("ok",
// "refused" or "failed") in took.
func (m *Metrics) Interaction(kind, outcome string, took time.Duration) {
	m.interactions.WithLabelValues(kind, outcome).Inc()
	m.latency.WithLabelValues(kind).Observe(took.Seconds())
}

// DeadlineFired records one expired deadline of kind ("challenge", "turn").
func (m *Metrics) DeadlineFired(kind string) {
	m.deadlines.WithLabelValues(kind).Inc()
}

// AIMove records one AI move at level that took took to choose.
func (m *Metrics) AIMove(level string, took time.Duration) {
	m.aiMoves.WithLabelValues(level).Observe(took.Seconds())
}

// RESTRetry records one REST call tried again for cause ("429", "5xx",
// "timeout", "reset", "lost"); any other cause is counted as "other", so
// that the label stays bounded.
func (m *Metrics) RESTRetry(cause string) { m.retries.WithLabelValues(causeLabel(cause)).Inc() }

// RESTGiveUp records one REST call given up after tries, with the cause of
// its last failure, bounded as for RESTRetry.
func (m *Metrics) RESTGiveUp(cause string) { m.giveUps.WithLabelValues(causeLabel(cause)).Inc() }

// causeLabel bounds a retry cause to the known set.
func causeLabel(c string) string {
	switch c {
	case "429", "5xx", "timeout", "reset", "lost":
		return c
	}
	return "other"
}

// RefusedInteraction records one interaction request refused before it
// was handled, for reason ("bad_signature", "malformed", "too_large").
func (m *Metrics) RefusedInteraction(reason string) {
	m.refused.WithLabelValues(reason).Inc()
}

// StoreError records one failed database operation op ("create",
// "update", ...).
func (m *Metrics) StoreError(op string) {
	m.storeErrors.WithLabelValues(op).Inc()
}

// activeCollector asks the store for the number of active matches on each
// scrape.
type activeCollector struct {
	count func(ctx context.Context) (int, error)
	errs  *prometheus.CounterVec
	desc  *prometheus.Desc
}

func (c *activeCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c *activeCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), activeTimeout)
	defer cancel()
	n, err := c.count(ctx)
	if err != nil {
		c.errs.WithLabelValues("count_active").Inc()
		return
	}
	ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, float64(n))
}

// slogPrinter adapts a slog.Logger to promhttp's Logger.
type slogPrinter struct{ log *slog.Logger }

func (p slogPrinter) Println(v ...any) {
	p.log.Warn("metrics: "+strings.TrimSpace(fmt.Sprintln(v...)), "source", "promhttp")
}
