package bot_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot/discordtest"
	"github.com/connectn/connectn/rating"
)

// playRated plays a rated match of one round on the standard board that
// winner wins, challenged by challenger, and returns its last board.
func (e *env) playRated(challenger, opponent, winner user) *discordgo.Message {
	e.t.Helper()
	e.send(slash(challenger, "challenge", "opponent", opponent, "wins", 1))
	mustUpdate(e.t, e.click(opponent, e.board(), "Accept"))
	if winner == challenger {
		e.play(challenger, opponent, "1", "2", "1", "2", "1", "2", "1")
	} else {
		e.play(challenger, opponent, "1", "2", "1", "2", "3", "2", "3", "2")
	}
	return e.board()
}

// TestRatedMatches: matches between members on the standard board are
// rated by default; the last board shows each player's new rating and its
// change, computed by Glicko-2 from the ratings before; stats show the
// rating (provisional at first); a fourth rated match between the same
// two members within 24 hours is played unrated, and says so; the
// leaderboard ranks by rating the members with 5 rated matches, with its
// rule; other boards and matches against the bot stay unrated.
func TestRatedMatches(t *testing.T) {
	e := newEnv(t)
	challenge := e.send(slash(alice, "challenge", "opponent", bob, "wins", 1))
	mustContain(t, "challenge", text(challenge), "Rated: the result changes both players' ratings.")
	mustUpdate(t, e.click(bob, e.board(), "Accept"))
	e.play(alice, bob, "1", "2", "1", "2", "1", "2", "1")
	a, b := rating.Match(rating.New(), rating.New(), 1)
	want := fmt.Sprintf("📈 🔴 **Alice** %d (+%d) · 🟡 **Bob** %d (−%d)", round(a.R), round(a.R)-1500, round(b.R), 1500-round(b.R))
	mustContain(t, "last board", messageText(e.board()), want)
	mustContain(t, "stats", text(e.send(slash(alice, "stats"))),
		fmt.Sprintf("**Rating:** %d, provisional (± %d) · **Peak:** %d · 1 rated match", round(a.R), round(a.RD), round(a.R)))

	// Two more today, then a fourth: unrated.
	e.playRated(bob, alice, alice)
	e.playRated(alice, bob, bob)
	capped := e.playRated(alice, bob, alice)
	mustContain(t, "fourth match", messageText(capped), "Played unrated: these two members have played 3 rated matches with each other today.")
	if strings.Contains(messageText(capped), "📈") {
		t.Errorf("the fourth match of the day changed ratings:\n%s", messageText(capped))
	}
	r, err := e.store.Rating(context.Background(), guildID, aliceID)
	if err != nil || r.Games != 3 {
		t.Fatalf("alice's rated matches: %d, %v; want 3", r.Games, err)
	}

	// Two more, a day later: 5 rated matches each; the leaderboard ranks
	// by rating.
	e.clock.Advance(25 * time.Hour)
	e.playRated(alice, bob, alice)
	e.playRated(bob, alice, alice)
	top := text(e.send(slash(carol, "leaderboard")))
	mustContain(t, "leaderboard", top, "Connect N ratings", "🥇 <@"+aliceID+"> — **", "🥈 <@"+bobID+"> — **",
		"members with 5 rated matches or more")
	mustContain(t, "leaderboard by wins", text(e.send(slash(carol, "leaderboard", "by", "wins"))), "Connect N leaderboard", "**5–1**")

	// Other boards, and the bot, are never rated.
	small := e.send(slash(alice, "challenge", "opponent", bob, "rows", 4, "columns", 4, "connect", 3, "wins", 1))
	if strings.Contains(text(small), "Rated") {
		t.Errorf("a 4 × 4 challenge is rated:\n%s", text(small))
	}
}

func round(f float64) int {
	if f < 0 {
		return int(f - 0.5)
	}
	return int(f + 0.5)
}

// TestAnalysisChart: the Analysis of a finished standard match comes with
// the chart of every disc's value, as a PNG.
func TestAnalysisChart(t *testing.T) {
	e := newAIEnv(t, &scriptedAI{})
	e.startMatch(map[string]int{"rows": 4, "columns": 5, "connect": 3, "wins": 1})
	e.play(alice, bob, "1", "2", "1", "2", "1")
	resp := e.click(bob, e.board(), "Analysis")
	if resp.Type != discordgo.InteractionResponseDeferredChannelMessageWithSource {
		t.Fatalf("Analysis answered type %d", resp.Type)
	}
	var got *discordgo.Message
	for _, m := range e.fake.Messages() {
		if m.Kind == discordtest.WebhookMessageEdit && len(m.Message.Attachments) == 1 {
			got = m.Message
		}
	}
	if got == nil || len(got.Embeds) != 2 || !strings.HasSuffix(got.Attachments[0].Filename, "-chart.png") {
		t.Fatalf("no analysis with its chart: %+v", got)
	}
	mustContain(t, "chart caption", got.Embeds[1].Description, "above the line 🔴 **Alice** wins, below 🟡 **Bob**")
	png := e.attachment(got.Attachments[0])
	if len(png) < 8 || string(png[1:4]) != "PNG" {
		t.Errorf("the chart is not a PNG: % x", png[:min(8, len(png))])
	}
}
