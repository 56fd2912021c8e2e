package discordtest_test

import (
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot/discordtest"
)

// postsTo matches POST requests to path.
func postsTo(path string) func(discordtest.Request) bool {
	return func(r discordtest.Request) bool { return r.Method == http.MethodPost && r.Path == path }
}

// statuses lists the statuses of the requests to path, oldest first.
func statuses(srv *discordtest.Server, path string) []int {
	var out []int
	for _, r := range srv.Requests() {
		if r.Path == path {
			out = append(out, r.Status)
		}
	}
	return out
}

func TestFailNext(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		status      int
		code        int
		wantMessage string
	}{
		{"known code", http.StatusForbidden, 50013, "Missing Permissions"},
		{"bare status", http.StatusInternalServerError, 0, "500: Internal Server Error"},
		{"code the fake does not know", http.StatusBadRequest, 12345, "400: Bad Request"},
		{"overloaded", http.StatusServiceUnavailable, 130000, "API resource is currently overloaded. Try again a little later."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newServer(t)
			bot, err := srv.NewSession(srv.Token())
			if err != nil {
				t.Fatal(err)
			}
			srv.FailNext(postsTo("/channels/20/messages"), tt.status, tt.code, 0)

			_, err = bot.ChannelMessageSend("20", "first")
			status, code := restCode(t, err)
			var re *discordgo.RESTError
			_ = errors.As(err, &re)
			if status != tt.status || code != tt.code || re.Message.Message != tt.wantMessage {
				t.Errorf("failed send: %d %d %q, want %d %d %q", status, code, re.Message.Message, tt.status, tt.code, tt.wantMessage)
			}
			if n := len(srv.Messages()); n != 0 {
				t.Errorf("the failed request was served: %d messages", n)
			}

			// Once only: the same request then goes through.
			if m, err := bot.ChannelMessageSend("20", "second"); err != nil || m.Content != "second" {
				t.Fatalf("send after the failure = %+v, %v", m, err)
			}
			if got := statuses(srv, "/channels/20/messages"); len(got) != 2 || got[0] != tt.status || got[1] != http.StatusOK {
				t.Errorf("logged statuses = %v, want [%d 200]", got, tt.status)
			}
		})
	}
}

func TestFailNextQueue(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	bot, err := srv.NewSession(srv.Token())
	if err != nil {
		t.Fatal(err)
	}
	web := session(t, srv, "")
	srv.FailNext(postsTo("/channels/20/messages"), http.StatusForbidden, 50013, 0)
	srv.FailNext(func(discordtest.Request) bool { return true }, http.StatusNotFound, 10003, 0)
	srv.FailNext(func(r discordtest.Request) bool { return strings.Contains(string(r.Body), "third") }, http.StatusBadRequest, 50035, 0)

	// GET /oauth2/applications/@me skips the first failure and takes the second.
	_, err = bot.Application("@me")
	if _, code := restCode(t, err); code != 10003 {
		t.Errorf("GET /oauth2/applications/@me: code %d, want 10003 from the second failure", code)
	}
	// The first failure is still queued, for the first POST.
	_, err = bot.ChannelMessageSend("20", "first")
	if _, code := restCode(t, err); code != 50013 {
		t.Errorf("first POST: code %d, want 50013", code)
	}
	if _, err := bot.ChannelMessageSend("20", "second"); err != nil {
		t.Errorf("second POST: %v", err)
	}
	// The match sees the body, and failures come before the token check.
	_, err = web.ChannelMessageSend("20", "third")
	if status, code := restCode(t, err); status != http.StatusBadRequest || code != 50035 {
		t.Errorf("third POST without a token: %d %d, want the injected 400 50035", status, code)
	}
	_, err = web.ChannelMessageSend("20", "third")
	if status, _ := restCode(t, err); status != http.StatusUnauthorized {
		t.Errorf("third POST again without a token: %d, want 401", status)
	}

	// Of two failures that match, the older comes first.
	srv.FailNext(func(discordtest.Request) bool { return true }, http.StatusForbidden, 50001, 0)
	srv.FailNext(func(discordtest.Request) bool { return true }, http.StatusNotFound, 10013, 0)
	for _, want := range []int{50001, 10013} {
		_, err := bot.Application("@me")
		if _, code := restCode(t, err); code != want {
			t.Errorf("GET /oauth2/applications/@me: code %d, want %d", code, want)
		}
	}
	if _, err := bot.Application("@me"); err != nil {
		t.Errorf("GET /oauth2/applications/@me after the queue emptied: %v", err)
	}
}

func TestFailNextRateLimit(t *testing.T) {
	t.Parallel()
	const retryAfter = 5 * time.Millisecond
	clock := newFakeClock()
	srv := newServer(t, discordtest.WithClock(clock.Now))
	bot := session(t, srv, "")
	limited := make(chan *discordgo.RateLimit, 1)
	bot.AddHandler(func(_ *discordgo.Session, rl *discordgo.RateLimit) { limited <- rl })
	i := answered(t, srv, answerJSON(discordgo.InteractionResponse{Type: discordgo.InteractionResponseDeferredChannelMessageWithSource}))
	followups := "/webhooks/" + srv.ApplicationID() + "/" + i.Token
	srv.FailNext(postsTo(followups), http.StatusTooManyRequests, 0, retryAfter)

	// discordgo waits retry_after and retries by itself.
	m, err := bot.FollowupMessageCreate(i, true, &discordgo.WebhookParams{Content: "after the wait"})
	if err != nil || m.Content != "after the wait" {
		t.Fatalf("follow-up through a 429 = %+v, %v", m, err)
	}
	if rl := recv(t, limited, "RateLimit event"); rl.RetryAfter != retryAfter || rl.Message != "You are being rate limited." {
		t.Errorf("discordgo saw retry after %v, message %q", rl.RetryAfter, rl.Message)
	}
	if got := statuses(srv, followups); len(got) != 2 || got[0] != http.StatusTooManyRequests || got[1] != http.StatusOK {
		t.Fatalf("follow-up statuses = %v, want [429 200]", got)
	}
	if n := len(srv.Messages()); n != 2 { // the deferred response and one follow-up
		t.Errorf("%d messages, want 2: the 429 must not be served", n)
	}

	// The 429 has Discord's body and headers.
	var req discordtest.Request
	for _, r := range srv.Requests() {
		if r.Status == http.StatusTooManyRequests {
			req = r
		}
	}
	var body map[string]any
	if err := json.Unmarshal(req.Response, &body); err != nil {
		t.Fatal(err)
	}
	if len(body) != 3 || body["message"] != "You are being rate limited." || body["retry_after"] != retryAfter.Seconds() || body["global"] != false {
		t.Errorf("429 body = %s", req.Response)
	}
	hdr := rateLimitHeaders(t, srv, retryAfter)
	want := map[string]string{
		"Retry-After":             "1", // whole seconds, rounded up
		"X-RateLimit-Limit":       "5",
		"X-RateLimit-Remaining":   "0",
		"X-RateLimit-Reset-After": "0.005",
		"X-RateLimit-Scope":       "user",
	}
	for k, v := range want {
		if got := hdr.Get(k); got != v {
			t.Errorf("header %s = %q, want %q", k, got, v)
		}
	}
	reset, err := strconv.ParseFloat(hdr.Get("X-RateLimit-Reset"), 64)
	if wantReset := float64(clock.Now().Add(retryAfter).UnixMilli()) / 1000; err != nil || math.Abs(reset-wantReset) > 0.0005 {
		t.Errorf("X-RateLimit-Reset = %q, want %.3f (the fake clock plus retry_after)", hdr.Get("X-RateLimit-Reset"), wantReset)
	}
	if date, err := http.ParseTime(hdr.Get("Date")); err != nil || !date.Equal(clock.Now().Truncate(time.Second)) {
		t.Errorf("Date = %q, want the fake clock's %v", hdr.Get("Date"), clock.Now())
	}
	if hdr.Get("X-RateLimit-Bucket") == "" || hdr.Get("X-RateLimit-Global") != "" {
		t.Errorf("bucket %q, global %q", hdr.Get("X-RateLimit-Bucket"), hdr.Get("X-RateLimit-Global"))
	}

	// Without retries, discordgo reports the limit and its code.
	bot.ShouldRetryOnRateLimit = false
	srv.FailNext(postsTo(followups), http.StatusTooManyRequests, 20016, retryAfter)
	_, err = bot.FollowupMessageCreate(i, true, &discordgo.WebhookParams{Content: "no retry"})
	var rle *discordgo.RateLimitError
	if !errors.As(err, &rle) || rle.RetryAfter != retryAfter {
		t.Fatalf("follow-up without retries: %v, want a RateLimitError after %v", err, retryAfter)
	}
	if got := statuses(srv, followups); len(got) != 3 || !strings.Contains(string(lastResponse(srv, followups)), `"code":20016`) {
		t.Errorf("statuses %v, last body %s; want a third request with code 20016", got, lastResponse(srv, followups))
	}
}

// rateLimitHeaders sends a rate-limited request with a plain client, so
// that the response headers can be read, and returns them.
func rateLimitHeaders(t *testing.T, srv *discordtest.Server, retryAfter time.Duration) http.Header {
	t.Helper()
	srv.FailNext(postsTo("/headers"), http.StatusTooManyRequests, 0, retryAfter)
	client := &http.Client{Transport: srv.Transport()}
	resp, err := client.Post("https://discord.com/api/v10/headers", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("status %d, want 429", resp.StatusCode)
	}
	return resp.Header
}

func lastResponse(srv *discordtest.Server, path string) []byte {
	var last []byte
	for _, r := range srv.Requests() {
		if r.Path == path {
			last = r.Response
		}
	}
	return last
}

func TestFailNextRejectsMistakes(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	tests := []struct {
		name       string
		match      func(discordtest.Request) bool
		status     int
		retryAfter time.Duration
	}{
		{"nil match", nil, 500, 0},
		{"success status", func(discordtest.Request) bool { return true }, 200, 0},
		{"negative retry", func(discordtest.Request) bool { return true }, 429, -time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("FailNext(%s) did not panic", tt.name)
				}
			}()
			srv.FailNext(tt.match, tt.status, 0, tt.retryAfter)
		})
	}
}

// TestInject: each fault Inject knows reaches a discordgo client as it
// would from Discord, applies the request only when the answer is lost,
// and is logged with its name.
func TestInject(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		fault   discordtest.Fault
		applied bool // the message exists afterwards
		status  int  // logged
	}{
		{"stall", discordtest.FaultStall, false, 0},
		{"reset", discordtest.FaultReset, false, 0},
		{"lost then stall", discordtest.FaultLostStall, true, http.StatusOK},
		{"lost then reset", discordtest.FaultLostReset, true, http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := newServer(t)
			bot, err := srv.NewSession(srv.Token())
			if err != nil {
				t.Fatal(err)
			}
			bot.Client.Timeout = 200 * time.Millisecond
			srv.Inject(postsTo("/channels/20/messages"), tt.fault, 0)

			start := time.Now()
			_, err = bot.ChannelMessageSend("20", "first")
			if err == nil {
				t.Fatal("the faulty request succeeded")
			}
			var re *discordgo.RESTError
			if errors.As(err, &re) {
				t.Fatalf("got an answer %v, want none", err)
			}
			if tt.fault == discordtest.FaultStall || tt.fault == discordtest.FaultLostStall {
				if took := time.Since(start); took < 200*time.Millisecond {
					t.Errorf("a stall ended after %v, before the client's timeout", took)
				}
			}
			if got := len(srv.ChannelMessages("20")); got != map[bool]int{false: 0, true: 1}[tt.applied] {
				t.Errorf("%d messages after the fault, applied: %t", got, tt.applied)
			}
			reqs := srv.Requests()
			last := reqs[len(reqs)-1]
			if last.Fault != tt.fault.String() || last.Status != tt.status {
				t.Errorf("logged fault %q status %d, want %q %d", last.Fault, last.Status, tt.fault, tt.status)
			}

			if _, err := bot.ChannelMessageSend("20", "second"); err != nil {
				t.Fatalf("the next request: %v", err)
			}
		})
	}
}

// TestInjectGlobalRateLimit: a global 429 carries X-RateLimit-Global, the
// Retry-After header and "global": true, and no per-route bucket.
func TestInjectGlobalRateLimit(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	srv.Inject(postsTo("/channels/20/messages"), discordtest.FaultGlobalRateLimit, 1500*time.Millisecond)
	resp := postMessage(t, srv, `{"content":"x"}`)
	defer resp.Body.Close()
	var body struct {
		RetryAfter float64 `json:"retry_after"`
		Global     bool    `json:"global"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	h := resp.Header
	if resp.StatusCode != 429 || h.Get("X-RateLimit-Global") != "true" || h.Get("Retry-After") != "2" ||
		h.Get("X-RateLimit-Scope") != "global" || h.Get("X-RateLimit-Bucket") != "" || !body.Global || body.RetryAfter != 1.5 {
		t.Fatalf("got %d %v %+v", resp.StatusCode, h, body)
	}
	if got := statuses(srv, "/channels/20/messages"); len(got) != 1 || got[0] != 429 {
		t.Fatalf("logged %v", got)
	}
}

// TestInjectStallEndsWithClose: Close does not wait for a client that
// never gives up.
func TestInjectStallEndsWithClose(t *testing.T) {
	t.Parallel()
	srv := discordtest.New()
	srv.Inject(postsTo("/channels/20/messages"), discordtest.FaultStall, 0)
	bot, err := srv.NewSession(srv.Token())
	if err != nil {
		t.Fatal(err)
	}
	bot.Client.Timeout = 0
	done := make(chan error, 1)
	go func() { _, err := bot.ChannelMessageSend("20", "x"); done <- err }()
	if _, err := srv.WaitRequest(t.Context(), postsTo("/channels/20/messages")); err != nil {
		t.Fatal(err)
	}
	closed := make(chan struct{})
	go func() { srv.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(5 * time.Second):
		t.Fatal("Close waits for the stalled request")
	}
	<-done
}

// TestChannelMessageList: GET /channels/{id}/messages lists the channel's
// messages newest first, at most limit, as the bot looks for a post whose
// answer was lost.
func TestChannelMessageList(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	bot, err := srv.NewSession(srv.Token())
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"one", "two", "three"} {
		if _, err := bot.ChannelMessageSend("20", text); err != nil {
			t.Fatal(err)
		}
	}
	msgs, err := bot.ChannelMessages("20", 2, "", "", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 2 || msgs[0].Content != "three" || msgs[1].Content != "two" {
		t.Fatalf("got %d messages %v", len(msgs), msgs)
	}
}

// TestWithFaults: the function given to WithFaults fails the requests it
// chooses (an error status, or a fault), after the queued failures, and
// the others are served.
func TestWithFaults(t *testing.T) {
	t.Parallel()
	var n atomic.Int64
	srv := newServer(t, discordtest.WithFaults(func(r discordtest.Request) discordtest.Injection {
		if r.Method != http.MethodPost {
			return discordtest.Injection{}
		}
		switch n.Add(1) {
		case 1:
			return discordtest.Injection{Status: http.StatusBadGateway}
		case 2:
			return discordtest.Injection{Fault: discordtest.FaultLostReset}
		}
		return discordtest.Injection{}
	}))
	bot, err := srv.NewSession(srv.Token())
	if err != nil {
		t.Fatal(err)
	}
	bot.MaxRestRetries = 0
	// A queued failure comes first: the function is not asked.
	srv.FailNext(postsTo("/channels/20/messages"), http.StatusForbidden, 50013, 0)
	if _, err := bot.ChannelMessageSend("20", "queued"); err == nil {
		t.Fatal("the queued failure was not answered")
	}
	if _, err := bot.ChannelMessageSend("20", "bad gateway"); err == nil {
		t.Fatal("the chosen 502 was not answered")
	}
	if _, err := bot.ChannelMessageSend("20", "lost"); err == nil {
		t.Fatal("the chosen lost-reset was answered")
	}
	if m, err := bot.ChannelMessageSend("20", "served"); err != nil || m.Content != "served" {
		t.Fatalf("the request not chosen = %+v, %v", m, err)
	}
	if got := statuses(srv, "/channels/20/messages"); !slices.Equal(got, []int{http.StatusForbidden, http.StatusBadGateway, http.StatusOK, http.StatusOK}) {
		t.Errorf("logged statuses = %v, want [403 502 200 200] (the lost post is applied)", got)
	}
	var contents []string
	for _, m := range srv.Messages() {
		contents = append(contents, m.Message.Content)
	}
	if !slices.Equal(contents, []string{"lost", "served"}) {
		t.Errorf("messages made %q, want the lost one and the served one", contents)
	}
	if n.Load() != 3 {
		t.Errorf("the function was asked %d times, want 3 (not for the queued failure)", n.Load())
	}
}

// TestWithFaultsRejectsMistakes: an Injection that is neither zero nor
// valid panics in the request's handler, which net/http turns into a
// closed connection.
func TestWithFaultsRejectsMistakes(t *testing.T) {
	t.Parallel()
	for _, inj := range []discordtest.Injection{
		{Status: 200},
		{Fault: discordtest.FaultStall, Status: 500},
		{Fault: discordtest.Fault(99)},
		{Status: 500, RetryAfter: -time.Second},
	} {
		srv := newServer(t, discordtest.WithFaults(func(discordtest.Request) discordtest.Injection { return inj }))
		bot, err := srv.NewSession(srv.Token())
		if err != nil {
			t.Fatal(err)
		}
		bot.MaxRestRetries = 0
		if _, err := bot.ChannelMessageSend("20", "x"); err == nil {
			t.Errorf("%+v: the request was served", inj)
		}
		if n := len(srv.Messages()); n != 0 {
			t.Errorf("%+v: %d messages made", inj, n)
		}
	}
}

// TestEnforceNonce: a channel post with a nonce and enforce_nonce that
// repeats one made in the past few minutes is answered with the message
// that nonce made, and makes none; without enforce_nonce, with another
// nonce, or after NonceWindow, a post makes a message; a nonce of more
// than 25 characters is refused.
func TestEnforceNonce(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 30, 1, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	srv := newServer(t, discordtest.WithClock(func() time.Time { mu.Lock(); defer mu.Unlock(); return now }))
	post := func(body string) (int, string) {
		t.Helper()
		resp := postMessage(t, srv, body)
		defer resp.Body.Close()
		var m struct {
			ID string `json:"id"`
		}
		_ = json.NewDecoder(resp.Body).Decode(&m)
		return resp.StatusCode, m.ID
	}
	count := func() int { return len(srv.ChannelMessages("20")) }
	_, first := post(`{"content":"a","nonce":"n1","enforce_nonce":true}`)
	if status, again := post(`{"content":"a","nonce":"n1","enforce_nonce":true}`); status != 200 || again != first || count() != 1 {
		t.Fatalf("the nonce again: %d %s (first %s), %d messages; want the first, one message", status, again, first, count())
	}
	if _, other := post(`{"content":"a","nonce":"n1"}`); other == first || count() != 2 {
		t.Fatalf("without enforce_nonce: %s, %d messages; want a new one", other, count())
	}
	if _, other := post(`{"content":"a","nonce":"n2","enforce_nonce":true}`); other == first || count() != 3 {
		t.Fatalf("another nonce: %s, %d messages; want a new one", other, count())
	}
	if _, n := post(`{"content":"a","nonce":12345,"enforce_nonce":true}`); n == "" {
		t.Fatal("an integer nonce was refused")
	} else if _, again := post(`{"content":"a","nonce":12345,"enforce_nonce":true}`); again != n {
		t.Fatalf("an integer nonce again: %s, want %s", again, n)
	}
	if status, _ := post(`{"content":"a","nonce":"` + strings.Repeat("x", 26) + `","enforce_nonce":true}`); status != http.StatusBadRequest {
		t.Fatalf("a nonce of 26 characters: status %d, want 400", status)
	}
	mu.Lock()
	now = now.Add(discordtest.NonceWindow)
	mu.Unlock()
	before := count()
	if _, later := post(`{"content":"a","nonce":"n1","enforce_nonce":true}`); later == first || count() != before+1 {
		t.Fatalf("the nonce after its window: %s, %d messages; want a new one", later, count())
	}
}

// postMessage posts body to channel 20 with the bot token, as a client
// other than discordgo would, and returns the answer.
func postMessage(t *testing.T, srv *discordtest.Server, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, srv.URL()+"/api/v9/channels/20/messages", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bot "+srv.Token())
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}
