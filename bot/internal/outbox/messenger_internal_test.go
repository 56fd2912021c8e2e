package outbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

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

// altFile is a file's reader with an alt text, as render.AltFile.
type altFile struct {
	*bytes.Reader
	alt string
}

func (f altFile) AltText() string { return f.alt }

// TestWithAltTexts checks the "attachments" list that carries the files'
// descriptions: one entry per file, by its index, the description of a
// file that has one; a body without such files goes as it is.
func TestWithAltTexts(t *testing.T) {
	plain := []*discordgo.File{{Name: "a.png", Reader: bytes.NewReader(nil)}}
	data := &discordgo.WebhookEdit{}
	if got, err := withAltTexts(data, plain); err != nil || got != any(data) {
		t.Errorf("withAltTexts(no alt text) = %v, %v, want the body as it is", got, err)
	}
	content := "hi"
	files := append(plain, &discordgo.File{Name: "card.png", Reader: altFile{bytes.NewReader(nil), "Result card: Alice 1, Bob 0."}})
	got, err := withAltTexts(&discordgo.WebhookEdit{Content: &content}, files)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(got)
	want := `"attachments":[{"id":0,"filename":"a.png"},{"id":1,"filename":"card.png","description":"Result card: Alice 1, Bob 0."}]`
	if !strings.Contains(string(b), want) || !strings.Contains(string(b), `"content":"hi"`) {
		t.Errorf("withAltTexts() = %s, want the content and %s", b, want)
	}
}
