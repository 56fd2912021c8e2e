package outbox

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/connectn/connectn/bot/discordtest"
)

// TestStalledWebhookCallHoldsNoOther: a call through one interaction's
// webhook that gets no answer does not hold the calls through another's.
// discordgo's own helpers put every read, edit and delete of a webhook
// message in one rate-limit bucket, whose lock it holds for the whole of a
// request: with them, the second read below waited for the first to be
// given up (webhookBucket).
func TestStalledWebhookCallHoldsNoOther(t *testing.T) {
	const app = "1100000000000000001"
	fake := discordtest.New(discordtest.WithApplicationID(app),
		discordtest.WithResolver(func(token string) (string, string, bool) {
			return "20", "30" + token[len(token)-1:], true
		}))
	t.Cleanup(fake.Close)
	// Tokens in different buckets.
	stalled, other := "token-1", "token-2"
	for WebhookBucket(stalled) == WebhookBucket(other) {
		other += "x"
	}
	fake.Inject(func(r discordtest.Request) bool { return strings.Contains(r.Path, stalled) }, discordtest.FaultStall, 0)
	s, err := fake.NewSession(fake.Token())
	if err != nil {
		t.Fatal(err)
	}
	m := NewDiscordMessenger(s)

	first := make(chan error, 1)
	stallCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	go func() {
		_, err := m.OriginalMessageID(stallCtx, app, stalled)
		first <- err
	}()
	if _, err := fake.WaitRequest(stallCtx, func(r discordtest.Request) bool { return strings.Contains(r.Path, stalled) }); err != nil {
		t.Fatalf("the first read never reached Discord: %v", err)
	}
	ctx, cancel2 := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel2()
	if _, err := m.OriginalMessageID(ctx, app, other); err != nil {
		t.Fatalf("the read through the other webhook, while the first stalls: %v", err)
	}
	select {
	case err := <-first:
		t.Fatalf("the stalled read ended first: %v", err)
	default:
	}
	cancel()
	if err := <-first; !errors.Is(err, context.Canceled) {
		t.Errorf("the stalled read: %v, want it cancelled", err)
	}
}
