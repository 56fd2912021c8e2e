package bot

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot/internal/outbox"
	"github.com/connectn/connectn/bot/internal/render"

	"github.com/connectn/connectn/locale"
	"github.com/connectn/connectn/picture"
	"github.com/connectn/connectn/sessions"
	"github.com/connectn/connectn/tournament"
)

// The work the scheduler does for tournaments, and the work after the
// answers that change one: a step of the lifecycle (sessions.Tournament.Step:
// the start at its time, the next round once the last result is in, the
// arena's pairings, the end), written with the store's compare-and-swap,
// so that it is done once by whichever process gets there first; then the
// REST work it claimed (a lease each): each game's thread opened and its
// session created (recorded on the pairing in the same transaction, once),
// its first board posted; the sign-up, pairings, standings and podium
// posted or edited, and what was posted recorded.
//
// Creating a thread and posting a message are not idempotent on Discord:
// should the bot stop between creating a game's thread and storing its
// session, the thread stays empty (Discord archives it after an hour
// without a message) and, when the claim's lease has run out, another
// thread is opened for the game; should it stop between posting a
// message and recording it, the message is posted again after the lease.
// A game is never played twice: its session is stored with the pairing's
// compare-and-swap, which a second one fails (sessions.ErrGameTaken), and
// the thread opened for nothing is archived at once.

// tournamentBatch is the most tournaments one run of the scheduler
// settles.
const tournamentBatch = 50

// retryTournamentAfter is how soon work given up for a cause that may
// pass (Discord unreachable, the channel busy) is tried again.
const retryTournamentAfter = 5 * time.Second

// crosstableFile is the name of the podium's crosstable picture.
const crosstableFile = "crosstable.png"

// runDue settles every tournament that has work due at the clock, and
// returns how many it settled. A failure on one is logged and does not
// stop the others.
func (h *tournaments) runDue(ctx context.Context) (int, error) {
	if h.store == nil {
		return 0, nil
	}
	ids, err := h.store.DueTournaments(ctx, h.clock.Now(), tournamentBatch)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, id := range ids {
		if ctx.Err() != nil {
			return n, ctx.Err()
		}
		if h.settle(ctx, id) {
			n++
		}
	}
	return n, nil
}

// settle does what is due in tournament id: a step of its lifecycle,
// then the REST work the step claimed. It reports whether there was
// anything to do.
func (h *tournaments) settle(ctx context.Context, id int64) bool {
	now := h.clock.Now()
	var step sessions.TournamentStep
	t, err := h.store.UpdateTournament(ctx, id, func(t *sessions.Tournament) error {
		var err error
		step, err = t.Step(now, h.policy)
		return err
	})
	switch {
	case errors.Is(err, sessions.ErrNothingDue):
		return false
	case err != nil:
		h.log.Warn("stepping a tournament", "tournament", id, "err", err)
		return false
	}
	h.carryOut(ctx, t, step)
	return true
}

// carryOut does the REST work of step, which was claimed on t: the games
// to start, then the messages.
func (h *tournaments) carryOut(ctx context.Context, t *sessions.Tournament, step sessions.TournamentStep) {
	if step.Started || len(step.Paired) > 0 || step.Finished {
		h.log.Info("tournament step", "tournament", t.ID, "started", step.Started, "paired", step.Paired, "finished", step.Finished,
			"status", string(t.Status))
	}
	for _, ref := range step.Games {
		h.startGame(ctx, t, ref)
	}
	if step.Posts {
		h.post(ctx, t.ID)
	}
}

// startGame opens the thread of game ref of t (or, where threads are off
// or cannot be opened, plays it in the tournament's channel), stores its
// session there, which the store records on the pairing, and posts its
// first board, which pings both players.
func (h *tournaments) startGame(ctx context.Context, t *sessions.Tournament, ref sessions.GameRef) {
	channel, thread := t.ChannelID, false
	if t.Settings.Threads && h.messenger != nil && h.messenger.HasBotToken() {
		name := render.GameThreadName(render.TournamentPublic(t), t, ref)
		id, err := h.messenger.StartThread(ctx, t.ChannelID, name)
		switch {
		case err == nil:
			channel, thread = id, true
		case outbox.HasCode(err, discordgo.ErrCodeCannotExecuteActionOnThisChannelType, discordgo.ErrCodeMissingPermissions):
			h.log.Info("no thread for a tournament game: played in the channel", "tournament", t.ID, "channel", t.ChannelID,
				"err", outbox.RESTErrorText(err))
		default:
			h.log.Warn("opening a tournament game's thread", "tournament", t.ID, "round", ref.Round, "board", ref.Board,
				"err", outbox.RESTErrorText(err))
			h.releaseGame(ctx, t.ID, ref)
			return
		}
	}
	now := h.clock.Now()
	s, err := t.GameSession(ref, channel, thread, now, h.policy)
	if err == nil {
		s, err = h.store.Create(ctx, s)
	}
	switch {
	case errors.Is(err, sessions.ErrGameTaken):
		// Started by another process meanwhile, or not to start now.
		if thread {
			h.archive(ctx, channel)
		}
		return
	case errors.Is(err, sessions.ErrActiveSession):
		// The channel holds another game: this one waits its turn.
		h.releaseGame(ctx, t.ID, ref)
		return
	case err != nil:
		h.log.Warn("storing a tournament game", "tournament", t.ID, "round", ref.Round, "board", ref.Board, "err", err)
		if thread {
			h.archive(ctx, channel)
		}
		h.releaseGame(ctx, t.ID, ref)
		return
	}
	h.boards.PostPending(ctx, s.ChannelID, s.ID)
}

// releaseGame gives back the claim on game ref of tournament id, to be
// tried again soon.
func (h *tournaments) releaseGame(ctx context.Context, id int64, ref sessions.GameRef) {
	at := h.clock.Now().Add(retryTournamentAfter)
	if _, err := h.store.UpdateTournament(ctx, id, func(t *sessions.Tournament) error { return t.ReleaseGame(ref, at) }); err != nil &&
		!errors.Is(err, sessions.ErrNothingDue) {
		h.log.Warn("releasing a tournament game", "tournament", id, "err", err)
	}
}

// archive archives a thread opened for a game that is not played there.
func (h *tournaments) archive(ctx context.Context, thread string) {
	if err := h.messenger.ArchiveThread(ctx, thread); err != nil {
		h.log.Warn("archiving a spare thread", "thread", thread, "err", outbox.RESTErrorText(err))
	}
}

// post brings tournament id's messages up to date: the sign-up posted,
// or edited when what it shows changed; each paired round's pairings
// posted (a Swiss or a round robin); the standings posted once the first
// round is paired, then edited after every result; at the end the podium
// (with the crosstable of a round robin). It records what it posted, and
// gives the work back for a retry when Discord could not be reached.
func (h *tournaments) post(ctx context.Context, id int64) {
	t, err := h.store.Tournament(ctx, id)
	if err != nil {
		h.log.Warn("reading a tournament", "tournament", id, "err", err)
		return
	}
	l := render.TournamentPublic(t)
	now := h.clock.Now()
	done := sessions.TournamentPosts{Shown: t.Stamp(), Pairings: t.Posts.Pairings}
	failed := false
	// send posts msg, named for its nonce (outbox.SendChannel) by the
	// tournament, what it is and which: the sign-up and the standings as
	// they read at this stamp, a round's pairings part by part, the
	// podium once.
	send := func(what string, msg *message, which ...any) string {
		if failed {
			return ""
		}
		key := fmt.Sprintf("tournament %s %d %s %v", t.ChannelID, t.ID, what, which)
		id, err := h.boards.SendChannel(ctx, t.ChannelID, key, msg)
		if err != nil {
			failed = true
			h.log.Warn("posting a tournament's "+what, "tournament", t.ID, "channel", t.ChannelID, "gone", outbox.Gone(err),
				"err", outbox.RESTErrorText(err))
		}
		return id
	}
	edit := func(what, messageID string, msg *message) {
		if failed || messageID == "" {
			return
		}
		if err := h.boards.EditChannel(ctx, t.ChannelID, messageID, msg); err != nil && !outbox.Gone(err) {
			failed = true
			h.log.Warn("editing a tournament's "+what, "tournament", t.ID, "channel", t.ChannelID, "err", outbox.RESTErrorText(err))
		}
	}
	stale := t.Posts.Shown != done.Shown
	signUp := render.SignUp(l, t, h.turn(t), now)
	if t.Posts.SignUp == "" {
		done.SignUp = send("sign-up", signUp, done.Shown)
	} else if stale {
		edit("sign-up", t.Posts.SignUp, signUp)
	}
	if t.State.Config.Format != tournament.Arena && t.Status != sessions.TournamentFinished {
		for r := t.Posts.Pairings + 1; r <= len(t.State.Rounds) && !failed; r++ {
			for i, msg := range render.Pairings(l, t, r) {
				send("pairings", msg, r, i)
			}
			if !failed {
				done.Pairings = r
			}
		}
	}
	if len(t.State.Rounds) > 0 {
		standings := render.Standings(l, t)
		if t.Posts.Standings == "" {
			done.Standings = send("standings", standings, done.Shown)
		} else if stale {
			edit("standings", t.Posts.Standings, standings)
		}
	}
	if t.Over() && t.Posts.Podium == "" {
		done.Podium = send("podium", h.podium(l, t))
	}
	if failed {
		done.Shown = 0 // not all of it shows the tournament yet
	}
	_, err = h.store.UpdateTournament(ctx, id, func(x *sessions.Tournament) error {
		x.PostsDone(done, now)
		if failed {
			x.PostsLater(now.Add(retryTournamentAfter))
		}
		return nil
	})
	if err != nil {
		h.log.Warn("recording a tournament's messages", "tournament", id, "err", err)
	}
}

// podium draws the end of t, with the crosstable picture of a round robin
// attached (the names it cannot draw given in the message).
func (h *tournaments) podium(l *locale.Localizer, t *sessions.Tournament) *message {
	if t.State.Config.Format != tournament.RoundRobin || len(t.State.Rounds) == 0 {
		return render.Podium(l, t, "", "")
	}
	ct, err := tournament.CrosstableOf(t.State)
	if err != nil || len(ct.Players) > picture.MaxCrosstablePlayers {
		return render.Podium(l, t, "", "")
	}
	st, _ := tournament.Standings(t.State)
	points := map[string]string{}
	for _, s := range st {
		points[s.Player] = render.Points(s.Points)
	}
	pic := picture.Crosstable{
		Title:       l.T("tournament_crosstable_title", "Name", strings.Join(strings.Fields(t.State.Config.Name), " ")),
		PointsLabel: l.T("tournament_crosstable_points"),
	}
	var missing []string
	for i, id := range ct.Players {
		name := t.Names[id]
		if sessions.Forgotten(id) {
			name = l.T("tournament_former_player")
		}
		if !picture.CanDraw(name) {
			missing = append(missing, strconv.Itoa(i+1)+" "+render.PlayerName(l, t, id))
			name = ""
		}
		pic.Players = append(pic.Players, picture.CrosstableRow{Name: name, Points: points[id]})
		row := make([]string, len(ct.Players))
		for j := range ct.Players {
			row[j] = render.CrosstableCell(ct.Cells[i][j])
		}
		pic.Cells = append(pic.Cells, row)
	}
	var buf bytes.Buffer
	if err := picture.EncodeCrosstable(&buf, pic); err != nil {
		h.log.Warn("drawing a crosstable", "tournament", t.ID, "err", err)
		return render.Podium(l, t, "", "")
	}
	legend := ""
	if len(missing) > 0 {
		legend = l.T("tournament_crosstable_names", "Names", strings.Join(missing, " · "))
	}
	msg := render.Podium(l, t, crosstableFile, legend)
	leader := ""
	if len(st) > 0 {
		leader = st[0].Player
	}
	render.Attach(msg, crosstableFile, buf.Bytes(), render.CrosstableAlt(l, t, len(ct.Players), leader, points[leader]))
	return msg
}
