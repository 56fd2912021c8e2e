package bot

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/sessions"
)

// TestRouterRefusesBadTables: a route declared twice, or a button with
// more custom_id parts than parse splits, is a mistake in the program,
// caught when the handler is made.
func TestRouterRefusesBadTables(t *testing.T) {
	noop := func(context.Context, *call) (*discordgo.InteractionResponse, error) { return nil, nil }
	hp := &help{}
	tests := map[string][]route{
		"a button twice":  {button("x", matchParts, noop), button("x", dropParts, noop)},
		"a command twice": {command("x", hp.help), command("x", hp.help)},
		"too many parts":  {button("x", append(slices.Clone(dropParts), partColumn), noop)},
	}
	for name, table := range tests {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("newRouter accepted the table")
				}
			}()
			newRouter(table, nil, nil)
		})
	}
	// A command and a button may share a name: they are told apart by
	// the interaction's type.
	newRouter([]route{command("x", hp.help), button("x", matchParts, noop)}, nil, nil)
}

// TestParseRefuses: custom_ids that parse must refuse, each for a reason of
// its own.
func TestParseRefuses(t *testing.T) {
	rt := newRouter(table(features{}), nil, nil)
	for _, id := range []string{
		"", "cn", "cn:", "cn:accept", "cn:accept:", "xx:accept:1", "cn:nothing:1", "cn:accept:1:2",
		"cn:accept:0", "cn:accept:01", "cn:accept:-1", "cn:accept:+1", "cn:accept:9007199254740992", "cn:accept:1e3",
		"cn:drop:1:0:0", "cn:drop:1:0:0:0", "cn:drop:1:0:0:1025", "cn:drop:1:1048577:0:1", "cn:drop:1:0:1048577:1",
		"cn:drop:1:0:0:1:", "cn:drop:1::0:1", "cn:accept:1 ", "cn:accept:١",
	} {
		if got, r, err := rt.parse(id); err == nil || !sessions.IsRefusal(err, reasonBadCustomID) {
			t.Errorf("parse(%q) = %+v, %v, %v; want the refusal bad_custom_id", id, got, r, err)
		}
	}
	for _, id := range []string{"cn:accept:1", "cn:drop:9007199254740991:0:0:1", "cn:drop:1:1048576:1048576:1024"} {
		if _, _, err := rt.parse(id); err != nil {
			t.Errorf("parse(%q): %v", id, err)
		}
	}
}

// TestUndeclaredDeferralIsAFailure: a handler that answers with a deferred
// response its route does not declare gets the apology, and its work
// never runs; one that declares it gets the deferred response.
func TestUndeclaredDeferralIsAFailure(t *testing.T) {
	ran := make(chan bool, 2)
	later := func(_ context.Context, c *call) (*discordgo.InteractionResponse, error) {
		return c.deferPrivate(func(context.Context) *message { ran <- true; return nil }), nil
	}
	h := NewHandler(emptyStore{}, slog.New(slog.DiscardHandler), mount(
		button("quiet", matchParts, later),
		button("loud", matchParts, later, mayDefer(discordgo.InteractionResponseDeferredChannelMessageWithSource)),
	))
	defer h.Close(context.Background())
	click := func(customID string) *discordgo.InteractionResponse {
		i := &discordgo.Interaction{ID: customID, Type: discordgo.InteractionMessageComponent, ChannelID: "1", AppID: "2", Token: "t",
			User: &discordgo.User{ID: "3"}, Data: discordgo.MessageComponentInteractionData{CustomID: customID}}
		resp, err := h.Handle(context.Background(), i)
		if err != nil {
			t.Fatal(err)
		}
		h.Delivered(i)
		return resp
	}
	if resp := click("cn:quiet:1"); resp.Data == nil || !strings.Contains(resp.Data.Content, "something went wrong") {
		t.Errorf("an undeclared deferral answered %+v; want the apology", resp)
	}
	if resp := click("cn:loud:1"); resp.Type != discordgo.InteractionResponseDeferredChannelMessageWithSource {
		t.Errorf("a declared deferral answered type %d", resp.Type)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := h.WaitIdle(ctx); err != nil {
		t.Fatal(err)
	}
	if n := len(ran); n != 1 {
		t.Errorf("the deferred work ran %d times; want once (the declared route's)", n)
	}
}
