package main

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot/discordtest"
)

// fakeDiscord is the part of Discord's REST API that `connectn serve` calls
// back during a match, the interaction webhooks (a follow-up with the next
// round's board, reads and edits of @original and of follow-ups), served
// by a bot/discordtest Server in its thin mode: the interactions are
// signed and sent by this program, not by the Server, so it learns of
// each from its token (see token), and it validates what the bot posts as
// Discord would. Any prefix before /webhooks/ is accepted
// (CONNECTN_DISCORD_API sets it, e.g. http://127.0.0.1:8090/api/v10). A
// follow-up is handed to the slot of its channel.
type fakeDiscord struct {
	*discordtest.Server

	mu    sync.Mutex
	slots map[string]chan *discordgo.Message // by channel
	// boards counts the follow-ups posted with each board (by the
	// custom_id of its first column button, which names the match, the
	// post and the ply): more than one is a duplicate a player would see.
	boards     map[string]int
	duplicates int
	// edits holds the edits of messages by webhook, by channel, for the
	// channels that asked for them (subscribeEdits).
	edits map[string]chan *discordgo.Message
}

// listenDiscord serves the fake webhooks on addr ("127.0.0.1:0" picks a
// port), failing the calls faults chooses (nil: none). With noLogs it
// keeps no log of the server's requests (count then counts nothing), for a
// run long enough to fill memory with them.
func listenDiscord(addr string, faults *faultChooser, noLogs bool) (*fakeDiscord, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen for the webhook routes on %s: %w", addr, err)
	}
	d := &fakeDiscord{slots: map[string]chan *discordgo.Message{}, boards: map[string]int{}, edits: map[string]chan *discordgo.Message{}}
	opts := []discordtest.Option{discordtest.WithListener(ln), discordtest.WithApplicationID(appID), discordtest.WithToken(botToken),
		discordtest.WithResolver(resolve), discordtest.WithOnMessage(d.posted)}
	if faults != nil {
		opts = append(opts, discordtest.WithFaults(faults.choose))
	}
	if noLogs {
		opts = append(opts, discordtest.WithoutLogs())
	}
	d.Server = discordtest.New(opts...)
	return d, nil
}

// debugDuplicates, set by CONNECTN_LOADGEN_DEBUG=1, prints each board
// posted again to standard error, with the time, for a look at the
// server's log.
var debugDuplicates = os.Getenv("CONNECTN_LOADGEN_DEBUG") == "1"

// sawBoard counts board, which a response carried (the next round's
// board answering the click that ended a round), as a board posted: a
// follow-up of the same board would be a second copy.
func (d *fakeDiscord) sawBoard(board *discordgo.Message) {
	b := drops(board)
	if len(b) == 0 {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.boards[b[0].CustomID]++
	if d.boards[b[0].CustomID] > 1 {
		d.duplicates++
	}
}

// duplicateBoards returns the number of boards so far posted again (as a
// follow-up, or a response, after one of the same post).
func (d *fakeDiscord) duplicateBoards() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.duplicates
}

// apiBase is the value of CONNECTN_DISCORD_API that points a bot here.
func (d *fakeDiscord) apiBase() string { return d.URL() + "/api/v10" }

// subscribe returns the channel on which the slot playing in channel
// receives the messages posted there as follow-ups.
func (d *fakeDiscord) subscribe(channel string) chan *discordgo.Message {
	return d.subscribeIn(d.slots, channel)
}

// subscribeEdits returns the channel on which the slot playing in channel
// receives the edits of messages there by webhook.
func (d *fakeDiscord) subscribeEdits(channel string) chan *discordgo.Message {
	return d.subscribeIn(d.edits, channel)
}

// subscribeIn returns the channel of channel in m (slots or edits), made
// when there is none yet.
func (d *fakeDiscord) subscribeIn(m map[string]chan *discordgo.Message, channel string) chan *discordgo.Message {
	d.mu.Lock()
	defer d.mu.Unlock()
	ch := m[channel]
	if ch == nil {
		ch = make(chan *discordgo.Message, 16)
		m[channel] = ch
	}
	return ch
}

// posted hands a follow-up to the slot of its channel, and an edit by
// webhook to the slot that subscribed to the edits of its channel.
func (d *fakeDiscord) posted(m discordtest.Message) {
	if m.Kind == discordtest.WebhookMessageEdit {
		d.mu.Lock()
		ch := d.edits[m.Message.ChannelID]
		d.mu.Unlock()
		select {
		case ch <- m.Message:
		default: // nobody subscribed, or nobody reads
		}
		return
	}
	if m.Kind != discordtest.FollowupMessageCreate {
		return
	}
	d.mu.Lock()
	ch := d.slots[m.Message.ChannelID]
	if b := drops(m.Message); len(b) > 0 {
		d.boards[b[0].CustomID]++
		if d.boards[b[0].CustomID] > 1 {
			d.duplicates++
			if debugDuplicates {
				fmt.Fprintf(os.Stderr, "%s board posted again: message %s, %s\n", time.Now().Format("15:04:05.000"), m.Message.ID, b[0].CustomID)
			}
		}
	}
	d.mu.Unlock()
	select {
	case ch <- m.Message:
	default: // nobody reads: the slot has stopped
	}
}

// count returns the number of webhook requests per route so far, for the
// report.
func (d *fakeDiscord) count() map[string]int {
	out := map[string]int{}
	for _, r := range d.Requests() {
		route := "unknown"
		switch parts := strings.Split(r.Path, "/"); {
		case len(parts) == 4 && parts[1] == "webhooks" && r.Method == "POST":
			route = "POST follow-up"
		case len(parts) == 6 && parts[1] == "webhooks" && parts[4] == "messages":
			route = r.Method + " message"
		}
		if r.Status >= 400 {
			route += fmt.Sprintf(" (%d)", r.Status)
		}
		out[route]++
	}
	return out
}

// token returns the interaction token of the interaction seq in channel:
// it names both, so that the fake knows a webhook's channel and its
// @original (see resolve) without a table.
func token(channel string, seq int64) string { return fmt.Sprintf("lg%sx%d", channel, seq) }

// resolve reads a token made by token: the channel and the ID of the
// message the interaction's response created, originalBase + its
// sequence.
func resolve(tok string) (channel, original string, ok bool) {
	rest, ok := strings.CutPrefix(tok, "lg")
	channel, seq, ok2 := strings.Cut(rest, "x")
	n, err := strconv.ParseInt(seq, 10, 64)
	if !ok || !ok2 || channel == "" || err != nil {
		return "", "", false
	}
	return channel, strconv.FormatInt(originalBase+n, 10), true
}
