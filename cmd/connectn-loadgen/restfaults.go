package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/connectn/connectn/bot/discordtest"
)

// restFaultKinds are the ways -faults makes the fake REST API fail a
// call, as -fault-kinds names them.
var restFaultKinds = []string{"429", "global-429", "500", "502", "stall", "reset", "lost"}

// faultChooser fails a share of the REST calls the server makes, each in
// one of kinds taken at random: "429" is a per-route rate limit and
// "global-429" the global one (both with Retry-After of retryAfter),
// "500" and "502" error answers, "stall" no answer until the server gives
// up, "reset" a reset connection, and "lost" a call that is applied and
// then stalls or resets instead of answering (half each). It is
// discordtest.WithFaults' function, safe for concurrent use.
type faultChooser struct {
	rate       float64
	kinds      []string
	retryAfter time.Duration

	mu  sync.Mutex
	rng *rand.Rand
}

// parseFaultKinds reads -fault-kinds: "all" or a comma-separated subset of
// restFaultKinds.
func parseFaultKinds(s string) ([]string, error) {
	if strings.TrimSpace(s) == "all" {
		return restFaultKinds, nil
	}
	var out []string
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if !slices.Contains(restFaultKinds, f) {
			return nil, fmt.Errorf("-fault-kinds: %q is not one of all, %s", f, strings.Join(restFaultKinds, ", "))
		}
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out, nil
}

func newFaultChooser(rate float64, kinds []string, retryAfter time.Duration, seed uint64) *faultChooser {
	return &faultChooser{rate: rate, kinds: kinds, retryAfter: retryAfter, rng: rand.New(rand.NewPCG(seed, 0xfa17))}
}

// choose decides the fate of one REST call.
func (f *faultChooser) choose(discordtest.Request) discordtest.Injection {
	f.mu.Lock()
	hit, k, coin := f.rng.Float64() < f.rate, f.rng.IntN(len(f.kinds)), f.rng.IntN(2)
	f.mu.Unlock()
	if !hit {
		return discordtest.Injection{}
	}
	switch f.kinds[k] {
	case "429":
		return discordtest.Injection{Status: http.StatusTooManyRequests, RetryAfter: f.retryAfter}
	case "global-429":
		return discordtest.Injection{Fault: discordtest.FaultGlobalRateLimit, RetryAfter: f.retryAfter}
	case "500":
		return discordtest.Injection{Status: http.StatusInternalServerError}
	case "502":
		return discordtest.Injection{Status: http.StatusBadGateway}
	case "stall":
		return discordtest.Injection{Fault: discordtest.FaultStall}
	case "reset":
		return discordtest.Injection{Fault: discordtest.FaultReset}
	}
	if coin == 0 {
		return discordtest.Injection{Fault: discordtest.FaultLostStall}
	}
	return discordtest.Injection{Fault: discordtest.FaultLostReset}
}

// restMetrics reads the server's counters of REST retries and give-ups
// (connectn_discord_retries_total and connectn_discord_give_ups_total, by
// cause) from its /metrics, as "name{labels} value" lines.
func restMetrics(ctx context.Context, endpoint string) ([]string, error) {
	lines, err := scrapeLines(ctx, metricsURL(endpoint), "connectn_discord_")
	var out []string
	for _, line := range lines {
		if strings.HasPrefix(line, "connectn_discord_retries_total") || strings.HasPrefix(line, "connectn_discord_give_ups_total") {
			out = append(out, line)
		}
	}
	return out, err
}
