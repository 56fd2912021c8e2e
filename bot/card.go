package bot

import (
	"context"
	"log/slog"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/bot/internal/outbox"
	"github.com/connectn/connectn/bot/internal/render"
	"github.com/connectn/connectn/game"
	"github.com/connectn/connectn/sessions"
)

// cards is the feature of the Share button under a player's private
// result card (the answer to the last board's Picture button, picture.go):
// the match's result card (render.SharedCard) posted in the channel for
// everyone, at the ask of one of its players, once per match.
type cards struct {
	store  historyStore
	shares cardShares // nil: the store keeps no shares, and Share is refused as stale
	boards *outbox.Boards
	log    *slog.Logger
}

// cardShares is what the feature writes of the shares
// (sessions.CardStore).
type cardShares interface {
	ShareCard(ctx context.Context, share sessions.CardShare) (sessions.CardShare, bool, error)
	CardPosted(ctx context.Context, match int64, messageID string) error
	UnshareCard(ctx context.Context, match int64, userID string) (bool, error)
}

// Refusals of Share.
var (
	// reasonCardNotPlayer: Share clicked by someone who did not play the
	// match (Player1, Player2: the players' names).
	reasonCardNotPlayer = sessions.NewReason("card_not_player")
	// reasonCardShared: the card was shared already (Player: who shared
	// it), its message not known (being posted, or lost to a crash).
	reasonCardShared = sessions.NewReason("card_shared")
	// reasonCardSharedLink: the card was shared already (Player), and
	// Link jumps to it.
	reasonCardSharedLink = sessions.NewReason("card_shared_link")
)

func (h *cards) routes() []route {
	return []route{button("share", matchParts, h.share,
		mayDefer(discordgo.InteractionResponseDeferredChannelMessageWithSource))}
}

// cardStore returns store as the shares' store, nil when it keeps none.
func cardStore(store sessions.Store) cardShares {
	if cs, ok := store.(cardShares); ok { // both backends keep shares
		return cs
	}
	return nil
}

// share answers Share under the private result card of the channel's
// last finished match. A player of the match claims the share in the
// store (sessions.CardStore: once per match, whoever asks, across
// processes and restarts), and the answer is a deferred public message
// that the card then replaces, through the interaction's webhook; its
// message ID is recorded once known. A card
// that could not be posted gives the share back and tells the player
// privately. The match may be one of the channel's recent ones
// (finishedMatch: a rematch may have begun since). Refused, privately, and
// changing nothing: a click by someone who did not play the match, a
// second ask (naming who shared it, with a link to the card once it is
// known), and a button whose match is no longer among the channel's
// recent ones.
func (h *cards) share(ctx context.Context, c *call) (*discordgo.InteractionResponse, error) {
	s, err := finishedMatch(ctx, h.store, c)
	if err != nil {
		return nil, err
	}
	if h.shares == nil || h.boards == nil || h.boards.Messenger == nil {
		return nil, sessions.Refuse(sessions.ReasonStale)
	}
	sharer := playerOf(s, c.user)
	if sharer == game.NoPlayer {
		return nil, sessions.Refuse(reasonCardNotPlayer,
			"Player1", render.Name(c.reader, s, game.Player1), "Player2", render.Name(c.reader, s, game.Player2),
			"Button", render.Public(s).T("button_picture")) // as the last board, in its channel's language, labels it
	}
	got, claimed, err := h.shares.ShareCard(ctx, sessions.CardShare{Match: s.ID, GuildID: s.GuildID, ChannelID: s.ChannelID, UserID: c.user})
	if err != nil {
		return nil, err
	}
	if !claimed {
		who := "**" + c.reader.T("name_someone") + "**" // a share imported from elsewhere
		if p := playerOf(s, got.UserID); p != game.NoPlayer {
			who = render.Name(c.reader, s, p)
		}
		if got.MessageID == "" {
			return nil, sessions.Refuse(reasonCardShared, "Player", who)
		}
		guild := s.GuildID
		if guild == "" {
			guild = "@me"
		}
		return nil, sessions.Refuse(reasonCardSharedLink, "Player", who, "Link", render.MessageLink(guild, s.ChannelID, got.MessageID))
	}
	in, reader := c.out(), c.reader
	c.afterResponse(func(ctx context.Context) {
		h.post(ctx, in, reader.T("card_share_failed", "Button", reader.T("button_share")), s, sharer, c.user)
	})
	return &discordgo.InteractionResponse{Type: discordgo.InteractionResponseDeferredChannelMessageWithSource}, nil
}

// post replaces the deferred public answer to in with s's result card,
// shared by player sharer (member userID), and records its message; when
// the card cannot be drawn or posted, it gives the share back and tells
// the sharer failed, privately, in place of the answer.
func (h *cards) post(ctx context.Context, in outbox.Interaction, failed string, s *sessions.Session, sharer game.Player, userID string) {
	msg, err := render.SharedCard(render.Public(s), s, sharer)
	if err != nil {
		h.log.Error("drawing the result card", "match", s.ID, "err", err)
	} else {
		err = h.boards.EditOriginal(ctx, in, msg)
	}
	if err != nil {
		if _, uerr := h.shares.UnshareCard(ctx, s.ID, userID); uerr != nil {
			h.log.Error("giving a share back", "match", s.ID, "err", uerr)
		}
		h.boards.Privately(ctx, in, failed)
		return
	}
	id, err := h.boards.Messenger.OriginalMessageID(ctx, in.AppID, in.Token)
	if err == nil {
		err = h.shares.CardPosted(ctx, s.ID, id)
	}
	if err != nil {
		// The card is posted; a second ask says so without its link.
		h.log.Warn("recording the shared card's message", "match", s.ID, "err", outbox.RESTErrorText(err))
	}
}

// playerOf returns the player of s that member userID is, NoPlayer for
// someone else (and for the bot's side).
func playerOf(s *sessions.Session, userID string) game.Player {
	for _, p := range []game.Player{game.Player1, game.Player2} {
		if m := s.Member(p); m.ID == userID && !(s.AI != "" && p == sessions.BotSide) {
			return p
		}
	}
	return game.NoPlayer
}
