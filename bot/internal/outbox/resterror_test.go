package outbox

import (
	"context"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"
)

// hostRewriter sends every request to addr instead of its host, as
// cmd/connectn's transport sends discordgo's calls to a configured REST
// base.
type hostRewriter struct{ addr string }

func (h hostRewriter) RoundTrip(req *http.Request) (*http.Response, error) {
	r := req.Clone(req.Context())
	r.URL.Scheme, r.URL.Host = "http", h.addr
	return http.DefaultTransport.RoundTrip(r)
}

// TestRESTErrorNamesTheHostCalled: a REST call that gets no answer is
// logged with the address really called (not discord.com, where
// discordgo builds its URLs) and without the interaction token.
func TestRESTErrorNamesTheHostCalled(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nobody answers there now
	s, err := discordgo.New("")
	if err != nil {
		t.Fatal(err)
	}
	s.Client = &http.Client{Transport: hostRewriter{addr}}
	s.MaxRestRetries = 0
	_, err = NewDiscordMessenger(s).FollowUp(context.Background(), "1100000000000000001", "secret-interaction-token", &message{Content: "x"})
	if err == nil {
		t.Fatal("a call to a closed port succeeded")
	}
	got := RESTErrorText(err)
	for _, want := range []string{addr, "/webhooks/1100000000000000001/[token]"} {
		if !strings.Contains(got, want) {
			t.Errorf("restErrorText = %q, want it to name %q", got, want)
		}
	}
	for _, never := range []string{"discord.com", "secret-interaction-token"} {
		if strings.Contains(got, never) {
			t.Errorf("restErrorText = %q names %q", got, never)
		}
	}
}
