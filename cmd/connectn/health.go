package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"strings"
	"time"

	"github.com/connectn/connectn/metrics"
)

// healthTimeout bounds each request of `connectn health`, and the readiness
// check behind /readyz.
const healthTimeout = 3 * time.Second

// opsMux returns a mux serving
//
//	GET /metrics  the Prometheus metrics of m
//	GET /healthz  200 "ok" while the process runs
//	GET /readyz   200 "ready" when ready(ctx) returns nil, else 503 and the reason
//
// (HEAD too; other methods get 405).
func opsMux(m *metrics.Metrics, ready func(ctx context.Context) error) *http.ServeMux {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", m.Handler())
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		io.WriteString(w, "ok\n")
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), healthTimeout)
		defer cancel()
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		if err := ready(ctx); err != nil {
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprintf(w, "not ready: %v\n", err)
			return
		}
		io.WriteString(w, "ready\n")
	})
	return mux
}

// listenProfiles serves Go's profiles (net/http/pprof's /debug/pprof/)
// on CONNECTN_PPROF_ADDR, a loopback address (the setting refuses any
// other), when it is set; stop stops it and is never nil. A CPU profile
// takes as long as its seconds parameter asks (30 s by default), so its
// responses have no write timeout. Use: go tool pprof
// http://127.0.0.1:6060/debug/pprof/profile?seconds=20
func (a *app) listenProfiles() (stop func(), err error) {
	if a.c.pprofAddr == "" {
		return func() {}, nil
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	l, err := a.listenWith(a.c.pprofAddr, mux, "Go's profiles, /debug/pprof/", 0)
	if err != nil {
		return nil, err
	}
	go func() {
		if err := <-l.done; err != nil {
			a.log.Error("the profiles' listener stopped", "addr", l.addr, "err", err)
		}
	}()
	return func() { l.Stop() }, nil
}

// serverTimeouts bound what one client may take of a server started by
// listenOps, so that slow or stalled clients cannot hold connections open:
// readHeader for the request line and headers, read for the whole request
// (headers and body), write for the response. An idle keep-alive
// connection is closed after read too (http.Server's IdleTimeout default).
// Tests shorten them.
var serverTimeouts = struct{ readHeader, read, write time.Duration }{
	readHeader: 5 * time.Second,
	read:       10 * time.Second,
	write:      10 * time.Second,
}

// listener is an HTTP server started by listenOps.
type listener struct {
	srv  *http.Server
	addr string
	done chan error // receives Serve's error, then is closed
}

// listenOps serves h on addr in the background; what names it in the logs.
// It returns once the address is bound.
func (a *app) listenOps(addr string, h http.Handler, what string) (*listener, error) {
	return a.listenWith(addr, h, what, serverTimeouts.write)
}

// listenWith is listenOps with a response's time bounded by write (0: not
// bounded).
func (a *app) listenWith(addr string, h http.Handler, what string, write time.Duration) (*listener, error) {
	ln, err := a.d.listen(addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s for the %s: %w", addr, what, err)
	}
	l := &listener{
		srv: &http.Server{
			Handler:           h,
			ReadHeaderTimeout: serverTimeouts.readHeader,
			ReadTimeout:       serverTimeouts.read,
			WriteTimeout:      write,
			ErrorLog:          slog.NewLogLogger(a.log.Handler(), slog.LevelWarn),
		},
		addr: ln.Addr().String(),
		done: make(chan error, 1),
	}
	go func() {
		err := l.srv.Serve(ln)
		if !errors.Is(err, http.ErrServerClosed) {
			l.done <- err
		}
		close(l.done)
	}()
	a.log.Info("listening", "addr", l.addr, "serves", what)
	return l, nil
}

// Stop shuts the server down, waiting up to 10 seconds for requests in
// flight.
func (l *listener) Stop() error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := l.srv.Shutdown(ctx); err != nil {
		return fmt.Errorf("shut down %s: %w", l.addr, err)
	}
	return nil
}

// loopback returns the address to reach a server listening on addr from
// this host: an empty or unspecified host becomes the loopback address.
func loopback(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	switch ip := net.ParseIP(host); {
	case host == "":
		host = "127.0.0.1"
	case ip != nil && ip.IsUnspecified() && ip.To4() != nil:
		host = "127.0.0.1"
	case ip != nil && ip.IsUnspecified():
		host = "::1"
	}
	return net.JoinHostPort(host, port)
}

// health checks the bot running on this host: GET /readyz of serve
// (CONNECTN_ADDR), then of gateway mode (CONNECTN_METRICS_ADDR, unless
// off). It prints which one is ready and returns nil, or returns an error
// saying what each answered.
func health(ctx context.Context, a *app) error {
	type target struct{ mode, addr string }
	targets := []target{{"serve", a.c.addr}}
	if a.c.metricsAddr != "" {
		targets = append(targets, target{"run (gateway)", a.c.metricsAddr})
	}
	client := &http.Client{Timeout: healthTimeout}
	var failed []string
	for _, t := range targets {
		addr := loopback(t.addr)
		why := probe(ctx, client, "http://"+addr+"/readyz")
		if why == "" {
			fmt.Fprintf(a.d.stdout, "ok: connectn %s at %s is ready\n", t.mode, addr)
			return nil
		}
		failed = append(failed, fmt.Sprintf("connectn %s at %s: %s", t.mode, addr, why))
	}
	if a.c.metricsAddr == "" {
		failed = append(failed, "gateway mode not checked: CONNECTN_METRICS_ADDR is off")
	}
	return errors.New("not healthy: " + strings.Join(failed, "; "))
}

// probe GETs url and returns "" for a 200, else what went wrong.
func probe(ctx context.Context, client *http.Client, url string) string {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err.Error()
	}
	resp, err := client.Do(req)
	if err != nil {
		var op *net.OpError
		if errors.As(err, &op) && op.Op == "dial" {
			return "nothing listens there"
		}
		return err.Error()
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode == http.StatusOK {
		return ""
	}
	return fmt.Sprintf("%s: %s", resp.Status, strings.TrimSpace(string(body)))
}
