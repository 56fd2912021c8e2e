package bot_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/game"
)

// waitGroup waits for wg, failing the test (from the test's goroutine)
// when it takes longer than limit: a lost wake-up or a deadlock fails the
// test instead of hanging the package.
func waitGroup(t *testing.T, wg *sync.WaitGroup, limit time.Duration) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(limit):
		t.Fatalf("goroutines still running after %v", limit)
	}
}

// TestRacingClicksOverHTTP plays eight turns through the HTTP endpoint. At
// each turn, all at once: twelve identical clicks by the player to move on
// one column, six by that player on other columns, and six by the other
// player. Exactly one click applies per turn, its column is the move
// stored, and every other click is answered privately (stale, or not your
// turn for the other player's clicks that come first) and changes nothing.
func TestRacingClicksOverHTTP(t *testing.T) {
	e := newEnv(t)
	// Connect 6 on 6x7: nobody can win within eight plies.
	e.startMatch(map[string]int{"connect": 6})
	board := e.board()
	client := &http.Client{Timeout: 10 * time.Second}

	type click struct {
		from     user
		column   int // 0-based
		customID string
	}
	type answer struct {
		status int
		raw    []byte
		resp   *discordgo.InteractionResponse
		err    error
	}
	for turn := range 8 {
		mover, other := alice, bob
		if turn%2 == 1 {
			mover, other = bob, alice
		}
		drops := map[int]string{}
		for _, b := range buttons(board.Components) {
			if strings.HasPrefix(b.CustomID, "cn:drop:") && !b.Disabled {
				var col int
				fmt.Sscanf(b.Label, "%d", &col)
				drops[col-1] = b.CustomID
			}
		}
		target := turn % 7
		var clicks []click
		for range 12 {
			clicks = append(clicks, click{mover, target, drops[target]})
		}
		for k := range 6 {
			c := (target + 1 + k) % 7
			clicks = append(clicks, click{mover, c, drops[c]}, click{other, c, drops[c]})
		}
		answers := make([]answer, len(clicks))
		start := make(chan struct{})
		var wg sync.WaitGroup
		for k, c := range clicks {
			req := signedAt(t, e.srv.URL, componentClick(c.from, board, c.customID), e.clock.Now())
			wg.Go(func() { // records only: the checks run on the test's goroutine
				<-start
				res, err := client.Do(req)
				if err != nil {
					answers[k].err = err
					return
				}
				defer res.Body.Close()
				raw, err := io.ReadAll(res.Body)
				answers[k] = answer{status: res.StatusCode, raw: raw, err: err}
			})
		}
		close(start)
		waitGroup(t, &wg, 20*time.Second)
		for k := range answers {
			if answers[k].err == nil && answers[k].status == 200 {
				answers[k].resp = decodeResponse(t, answers[k].raw)
			}
		}

		applied := -1
		for k, a := range answers {
			switch {
			case a.err != nil || a.status != 200:
				t.Fatalf("turn %d, click %d: status %d, %v", turn, k, a.status, a.err)
			case a.resp.Type == discordgo.InteractionResponseUpdateMessage:
				if applied >= 0 {
					t.Fatalf("turn %d: clicks %d and %d both applied", turn, applied, k)
				}
				applied = k
			case clicks[k].from == other && !strings.Contains(a.resp.Data.Content, "moved on"):
				// Before the move applied: not their turn; after: stale.
				mustPrivate(t, a.resp, "not your turn")
			default:
				mustPrivate(t, a.resp, "moved on")
			}
		}
		if applied < 0 {
			t.Fatalf("turn %d: no click applied", turn)
		}
		s := e.session()
		actions := s.Match.Actions()
		if len(actions) != turn+1 {
			t.Fatalf("turn %d: %d moves stored, want %d", turn, len(actions), turn+1)
		}
		last := actions[len(actions)-1]
		if last.Kind != game.Drop || last.Column != clicks[applied].column || s.Member(last.Player).ID != mover.ID {
			t.Fatalf("turn %d: stored %v, the applied click was %s on column %d", turn, last, clicks[applied].from.Username, clicks[applied].column+1)
		}
		resp := answers[applied].resp
		board = &discordgo.Message{ID: board.ID, Content: resp.Data.Content, Embeds: resp.Data.Embeds, Components: resp.Data.Components}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := e.h.WaitIdle(ctx); err != nil {
		t.Fatal(err)
	}
}
