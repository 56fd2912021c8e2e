package bot_test

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot"
	"github.com/connectn/connectn/bot/discordtest"
	"github.com/connectn/connectn/puzzle"
	"github.com/connectn/connectn/sessions"
	"github.com/connectn/connectn/sessions/sqlite"
)

// The daily puzzle: its setting, its posts exactly once a day per server
// (two processes racing, a restart after a claim, a post whose answer was
// lost), a refused post reported and tried again the next day, the count
// of its solvers edited in batches.

// dailyArgs are the options of /connectn-admin settings daily-puzzle.
func dailyArgs(channel, at, zone string) []discordtest.Arg {
	var args []discordtest.Arg
	if channel != "" {
		args = append(args, discordtest.Arg{Name: "channel", Type: discordgo.ApplicationCommandOptionChannel, Value: channel})
	}
	if at != "" {
		args = append(args, strArg("time", at))
	}
	if zone != "" {
		args = append(args, strArg("zone", zone))
	}
	return args
}

// setDaily sets the daily puzzle as an admin, and returns the answer.
func (e *env) setDaily(args ...discordtest.Arg) *discordgo.InteractionResponse {
	e.t.Helper()
	return e.adminSlash(carol, adminPerms, channelID, "settings", "daily-puzzle", args...)
}

// dailyPosts returns the channel's messages that are daily posts.
func (e *env) dailyPosts() []*discordgo.Message { return e.withButton("cn:pzday:") }

// withButton returns the public messages with a button whose custom_id
// starts with prefix, in the order they were posted.
func (e *env) withButton(prefix string) []*discordgo.Message {
	var out []*discordgo.Message
	for _, m := range e.public() {
		for _, b := range buttons(m.Components) {
			if strings.HasPrefix(b.CustomID, prefix) {
				out = append(out, m)
				break
			}
		}
	}
	return out
}

// posted returns the server's daily post of day.
func (e *env) posted(day string) sessions.DailyPost {
	e.t.Helper()
	list, err := e.store.DailyPosts(context.Background(), guildID, 0)
	if err != nil {
		e.t.Fatal(err)
	}
	for _, p := range list {
		if p.Day == day {
			return p
		}
	}
	e.t.Fatalf("no daily post of %s among %+v", day, list)
	return sessions.DailyPost{}
}

// isChannelPost matches the bot's posts of messages in the test channel.
func isChannelPost(r discordtest.Request) bool {
	return r.Method == http.MethodPost && r.Path == "/channels/"+channelID+"/messages"
}

// TestDailyPuzzleSetting: the setting is saved and shown, bad input is
// refused with a clear message and changes nothing, and off turns it off.
func TestDailyPuzzleSetting(t *testing.T) {
	e := newPuzzleEnv(t)
	// Without the bot token the bot cannot post: refused.
	mustPrivate(t, e.setDaily(dailyArgs(channelID, "08:00", "")...), "needs the bot's token")
	e.withBotToken(true)
	for _, tt := range []struct {
		name string
		args []discordtest.Arg
		want string
	}{
		{"no time", dailyArgs(channelID, "", ""), "give both its channel and its time"},
		{"a time past midnight", dailyArgs(channelID, "24:00", ""), "“24:00” is no time of day I can read"},
		{"a time of words", dailyArgs(channelID, "8am", ""), "“8am” is no time of day"},
		{"a zone nobody knows", dailyArgs(channelID, "08:00", "Mars/Olympus"), "“Mars/Olympus” is no time zone I know"},
		{"a path for a zone", dailyArgs(channelID, "08:00", "../../etc/passwd"), "is no time zone I know"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			mustPrivate(t, e.setDaily(tt.args...), tt.want)
			if d, _ := e.store.DailyPuzzle(context.Background(), guildID); d.ChannelID != "" {
				t.Errorf("a refused setting was saved: %+v", d)
			}
		})
	}
	// A member without Manage Server is refused.
	resp := e.adminSlash(bob, memberPerms, channelID, "settings", "daily-puzzle", dailyArgs(channelID, "08:00", "")...)
	mustPrivate(t, resp, "")
	if d, _ := e.store.DailyPuzzle(context.Background(), guildID); d.ChannelID != "" {
		t.Errorf("a member's setting was saved: %+v", d)
	}
	mustPrivate(t, e.setDaily(dailyArgs(channelID, "9:30", "Europe/Berlin")...), "every day at 09:30 (Europe/Berlin)")
	d, _ := e.store.DailyPuzzle(context.Background(), guildID)
	berlin, _ := time.LoadLocation("Europe/Berlin")
	if want := time.Date(2026, 11, 23, 9, 30, 0, 0, berlin); d.ChannelID != channelID || d.Minute != 9*60+30 || !d.Next.Equal(want) {
		t.Errorf("saved setting = %+v, want %s at 09:30 Berlin, next %v", d, channelID, want)
	}
	show := text(e.adminSlash(carol, adminPerms, channelID, "settings", "show"))
	mustContain(t, "settings show", show, "Daily puzzle", "<#"+channelID+"> at 09:30 (Europe/Berlin), next <t:")
	// Only the time changes: the channel stays.
	mustPrivate(t, e.setDaily(dailyArgs("", "07:05", "")...), "every day at 07:05 (Europe/Berlin)")
	mustPrivate(t, e.setDaily(discordtest.Arg{Name: "off", Type: discordgo.ApplicationCommandOptionBoolean, Value: true}), "The daily puzzle is off")
	if d, _ := e.store.DailyPuzzle(context.Background(), guildID); d.ChannelID != "" || !d.Next.IsZero() {
		t.Errorf("after off: %+v", d)
	}
}

// TestDailyPuzzleOnceTwoProcesses: two processes on one database run
// their schedulers at the same moment, day after day: each day's puzzle
// is posted once, the same for both, each post revealing the previous
// one's solution; members who solve it from the post are counted on it,
// by one edit a minute at most.
func TestDailyPuzzleOnceTwoProcesses(t *testing.T) {
	e := newPuzzleEnv(t)
	e.withBotToken(true)
	mustPrivate(t, e.setDaily(dailyArgs(channelID, "08:00", "")...), "every day at 08:00 (UTC)")
	other, err := sqlite.Open(context.Background(), e.path, sessions.WithClock(e.clk))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	second := bot.NewHandler(other, slog.New(slog.DiscardHandler), bot.WithClock(e.clk), bot.WithMessenger(bot.NewDiscordMessenger(e.rest)),
		bot.WithAI(puzzleEngine), bot.WithPuzzles(other))
	t.Cleanup(func() { second.Close(context.Background()) })

	race := func() {
		var wg sync.WaitGroup
		for _, h := range []*bot.Handler{e.h, second} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := h.RunDue(context.Background()); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		e.idle()
	}
	race() // 18:00: nothing due yet
	if n := len(e.dailyPosts()); n != 0 {
		t.Fatalf("%d daily posts before their time", n)
	}
	e.clock.Advance(14 * time.Hour) // 08:00 the next day
	var days []string
	for day := range 4 {
		race()
		race() // and once more: nothing new
		posts := e.dailyPosts()
		if len(posts) != day+1 {
			t.Fatalf("day %d: %d daily posts in the channel, want %d", day+1, len(posts), day+1)
		}
		date := e.clock.Now().Format(time.DateOnly)
		days = append(days, date)
		p := e.posted(date)
		if p.State != sessions.DailyPosted || p.MessageID != posts[day].ID {
			t.Errorf("day %d: post %+v, want posted as message %s", day+1, p, posts[day].ID)
		}
		id, _, _ := e.store.PuzzleOfDay(context.Background(), date, "x", "x")
		if p.PuzzleID != id {
			t.Errorf("day %d: posted puzzle %s, want the bot's puzzle of the day %s", day+1, p.PuzzleID, id)
		}
		got := messageText(posts[day])
		mustContain(t, "the daily post", got, "🧩 Daily puzzle", "to play", "Nobody has solved it yet", "Solve opens it just for you")
		if day > 0 {
			prev, _ := puzzle.Parse(e.posted(days[day-1]).Puzzle)
			mustContain(t, "the daily post", got, "Previous puzzle (", "), the answer: ||"+discs[prev.ToMove()]+" ")
		}
		e.clock.Advance(24 * time.Hour)
	}
	if n := e.requests(http.MethodPost, func(p string) bool { return p == "/channels/"+channelID+"/messages" }); n != 4 {
		t.Errorf("%d posts sent to Discord for 4 days, want 4", n)
	}

	// Two members solve the last day's puzzle from its post; one more
	// solves it twice. The post is edited once for both, a minute after
	// the first solve.
	last := e.dailyPosts()[3]
	for _, u := range []user{alice, bob, alice} {
		resp := e.click(u, last, "Solve")
		mustPrivate(t, resp, "")
		msg := e.lastPrivate()
		solve(t, e, u, msg)
	}
	edits := func() int {
		return e.requests(http.MethodPatch, func(p string) bool { return p == "/channels/"+channelID+"/messages/"+last.ID })
	}
	race()
	if n := edits(); n != 0 {
		t.Errorf("%d edits of the post before a minute passed, want none yet", n)
	}
	e.clock.Advance(sessions.DailyEditEvery)
	race()
	race()
	if n := edits(); n != 1 {
		t.Errorf("%d edits of the post for 2 solvers, want 1", n)
	}
	mustContain(t, "the post after two solves", messageText(e.message(last.ID)), "✅ Solved by 2 members so far")
}

// solve plays the puzzle of the private message msg of u to the end with
// the solver's best moves.
func solve(t *testing.T, e *env, u user, msg *discordgo.Message) {
	t.Helper()
	id := attemptOfButtons(t, msg)
	for ply := 0; ; ply += 2 {
		a := e.attempt(id)
		if a.Result != sessions.AttemptOpen {
			if a.Result != sessions.AttemptSolved {
				t.Fatalf("attempt %d ended %s", id, a.Result)
			}
			return
		}
		p, _ := puzzle.Parse(a.Puzzle)
		col := p.Solution
		if ply > 0 {
			bestIn := 1 << 30
			for _, v := range evaluate(t, p.Config, positionOf(t, p, a.Moves)) {
				if v.Legal && v.Score > 0 && v.In < bestIn {
					col, bestIn = v.Column, v.In
				}
			}
		}
		e.pz(u, msg, id, ply, col)
	}
}

// TestDailyPuzzleClaimLapses: a process that claimed the day's post and
// died before it sent it holds it until its lease ends; after a restart,
// the next process takes the claim over and posts once.
func TestDailyPuzzleClaimLapses(t *testing.T) {
	e := newPuzzleEnv(t)
	e.withBotToken(true)
	e.setDaily(dailyArgs(channelID, "08:00", "")...)
	e.clock.Advance(14 * time.Hour)
	day := e.clock.Now().Format(time.DateOnly)
	// The process that died: its claim, and nothing sent.
	if _, ok, err := e.store.ClaimDailyPost(context.Background(), sessions.DailyPost{GuildID: guildID, Day: day, ChannelID: channelID,
		PuzzleID: "deadbeef00", Puzzle: puzzle.Starter()[0].Format()}, 2*time.Minute); !ok || err != nil {
		t.Fatal(err)
	}
	e.runDue()
	if n := len(e.dailyPosts()); n != 0 {
		t.Fatalf("%d posts while another process holds the claim", n)
	}
	e.restart()
	e.clock.Advance(2*time.Minute + time.Second)
	e.runDue()
	e.runDue()
	if n := len(e.dailyPosts()); n != 1 {
		t.Fatalf("%d posts after the claim lapsed, want 1", n)
	}
	if p := e.posted(day); p.State != sessions.DailyPosted || p.MessageID != e.dailyPosts()[0].ID {
		t.Errorf("the post = %+v, want posted as %s", p, e.dailyPosts()[0].ID)
	}
	if d, _ := e.store.DailyPuzzle(context.Background(), guildID); !d.Next.After(e.clock.Now()) {
		t.Errorf("next post at %v, want tomorrow", d.Next)
	}
}

// TestDailyPuzzleLostAnswer: the post reaches Discord but its answer is
// lost (the connection reset after the message was made); the process
// restarts; when the claim lapses, the process that takes it over finds
// the message in the channel and records it: one post, never two.
func TestDailyPuzzleLostAnswer(t *testing.T) {
	e := newPuzzleEnv(t)
	e.withBotToken(true)
	e.setDaily(dailyArgs(channelID, "08:00", "")...)
	e.clock.Advance(14 * time.Hour)
	day := e.clock.Now().Format(time.DateOnly)
	e.fake.Inject(isChannelPost, discordtest.FaultLostReset, 0)
	e.runDue()
	if n := len(e.dailyPosts()); n != 1 {
		t.Fatalf("%d posts in the channel after the lost answer, want the one Discord made", n)
	}
	if p := e.posted(day); p.State != sessions.DailyClaimed || p.MessageID != "" {
		t.Fatalf("after a lost answer the post is %+v, want still claimed, no message known", p)
	}
	e.restart()
	e.runDue() // within the lease: nothing
	e.clock.Advance(2*time.Minute + time.Second)
	e.runDue()
	e.runDue()
	posts := e.dailyPosts()
	if len(posts) != 1 {
		t.Fatalf("%d posts after the claim was taken over, want 1", len(posts))
	}
	if p := e.posted(day); p.State != sessions.DailyPosted || p.MessageID != posts[0].ID {
		t.Errorf("the post = %+v, want posted as the message found, %s", p, posts[0].ID)
	}
	if n := e.requests(http.MethodPost, func(p string) bool { return p == "/channels/"+channelID+"/messages" }); n != 1 {
		t.Errorf("%d posts sent, want 1: the message found is not sent again", n)
	}
}

// TestDailyPuzzleRefused: Discord refuses the post (the bot lost its
// permission); the refusal is shown in the admins' settings, the day is
// not tried again, and the next day's post goes through and clears it.
func TestDailyPuzzleRefused(t *testing.T) {
	e := newPuzzleEnv(t)
	e.withBotToken(true)
	e.setDaily(dailyArgs(channelID, "08:00", "")...)
	e.clock.Advance(14 * time.Hour)
	day := e.clock.Now().Format(time.DateOnly)
	e.fake.FailNext(isChannelPost, http.StatusForbidden, discordgo.ErrCodeMissingPermissions, 0)
	e.runDue()
	e.runDue()
	if n := len(e.dailyPosts()); n != 0 {
		t.Fatalf("%d posts after a refusal", n)
	}
	if p := e.posted(day); p.State != sessions.DailyFailed || p.Error != "permission" {
		t.Errorf("the refused post = %+v, want failed for permission", p)
	}
	show := text(e.adminSlash(carol, adminPerms, channelID, "settings", "show"))
	mustContain(t, "settings show after a refusal", show, "⚠️ The last daily puzzle was refused", "the bot may not post there",
		"It is tried again at the next post")
	e.clock.Advance(12 * time.Hour)
	e.runDue()
	if n := len(e.dailyPosts()); n != 0 {
		t.Fatalf("%d posts the same day after a refusal, want none", n)
	}
	e.clock.Advance(12 * time.Hour) // the next day's 08:00
	e.runDue()
	if n := len(e.dailyPosts()); n != 1 {
		t.Fatalf("%d posts the next day, want 1", n)
	}
	show = text(e.adminSlash(carol, adminPerms, channelID, "settings", "show"))
	if strings.Contains(show, "refused") {
		t.Errorf("settings show still reports the refusal after a post went through:\n%s", show)
	}
}

// TestDailyPuzzleMissed: a bot down through the time of the post does not
// post it more than six hours late; the next day's post comes at its time.
func TestDailyPuzzleMissed(t *testing.T) {
	e := newPuzzleEnv(t)
	e.withBotToken(true)
	e.setDaily(dailyArgs(channelID, "08:00", "")...)
	e.clock.Advance(14*time.Hour + 7*time.Hour) // 15:00, seven hours late
	e.runDue()
	if n := len(e.dailyPosts()); n != 0 {
		t.Fatalf("%d posts seven hours late, want none", n)
	}
	d, _ := e.store.DailyPuzzle(context.Background(), guildID)
	if want := time.Date(2026, 11, 24, 8, 0, 0, 0, time.UTC); !d.Next.Equal(want) {
		t.Errorf("next post %v, want %v", d.Next, want)
	}
	e.clock.Advance(17 * time.Hour)
	e.runDue()
	if n := len(e.dailyPosts()); n != 1 {
		t.Errorf("%d posts at the next day's time, want 1", n)
	}
}
