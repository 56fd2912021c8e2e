package bot

import (
	"context"

	"github.com/bwmarrin/discordgo"
)

// openChallenges is the feature of /connectn open: a challenge of the
// challenges feature, without an opponent.
type openChallenges struct {
	challenges *challenges
}

func (h *openChallenges) routes() []route {
	return []route{
		command("open", h.open, helpLine("help_open"),
			mayDefer(discordgo.InteractionResponseDeferredChannelMessageWithSource)),
	}
}

// openOptions are the options of /connectn open: a challenge's, without
// an opponent or the bot's level.
type openOptions struct{ challengeOptions }

func (o *openOptions) declare(s *optionSet) {
	o.board(s)
	s.boolean("thread", &o.Thread)
	s.boolean("rated", &o.Rated)
}

// openChallenge handles /connectn open: a challenge any member but the
// challenger may accept (sessions.Place.Open).
func (h *openChallenges) open(ctx context.Context, c *call, o *openOptions) (*discordgo.InteractionResponse, error) {
	o.open = true
	return h.challenges.challenge(ctx, c, &o.challengeOptions)
}
