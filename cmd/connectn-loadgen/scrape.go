package main

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// metricsURL returns the /metrics address beside an interactions
// endpoint (serve answers both on one listener).
func metricsURL(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil {
		return ""
	}
	u.Path, u.RawQuery = "/metrics", ""
	return u.String()
}

// scrape reads the server's /metrics: each metric's value, summed over
// its labels.
func scrape(ctx context.Context, url string) (map[string]float64, error) {
	lines, err := scrapeLines(ctx, url, "")
	if err != nil {
		return nil, err
	}
	out := map[string]float64{}
	for _, line := range lines {
		name, v, ok := strings.Cut(line, " ")
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if !ok || err != nil {
			continue
		}
		name, _, _ = strings.Cut(name, "{")
		out[name] += f
	}
	return out, nil
}

// scrapeLines returns the lines of the server's /metrics that start with
// prefix, comments left out.
func scrapeLines(ctx context.Context, url, prefix string) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, res.Status)
	}
	var out []string
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		if line := sc.Text(); !strings.HasPrefix(line, "#") && strings.HasPrefix(line, prefix) {
			out = append(out, line)
		}
	}
	return out, sc.Err()
}
