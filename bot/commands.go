package bot

import (
	"strconv"

	"github.com/bwmarrin/discordgo"
)

// The command and option names, and the bounds Discord enforces on the
// integer options (the handler checks them again: a request can be crafted).
const (
	commandName   = "connectn"
	subChallenge  = "challenge"
	optOpponent   = "opponent"
	optRows       = "rows"
	optColumns    = "columns"
	optConnect    = "connect"
	optWins       = "wins"
	minRows       = 4
	maxRows       = 12
	minColumns    = 4
	maxColumns    = 12
	minConnect    = 3
	maxConnect    = 12
	minWins       = 1
	maxWins       = 9
	defaultRows   = 6
	defaultCols   = 7
	defaultConn   = 4
	defaultWins   = 2
	maxNameLength = 32
)

func intOption(name, description string, minimum, maximum, def int) *discordgo.ApplicationCommandOption {
	lo := float64(minimum)
	return &discordgo.ApplicationCommandOption{
		Type:        discordgo.ApplicationCommandOptionInteger,
		Name:        name,
		Description: description + " (default " + strconv.Itoa(def) + ")",
		MinValue:    &lo,
		MaxValue:    float64(maximum),
	}
}

// Commands returns the bot's application commands, registered with one bulk
// overwrite (globally, or in one guild while testing): `/connectn challenge
// opponent:@user [rows] [columns] [connect] [wins]`. Each call returns a
// fresh slice.
func Commands() []*discordgo.ApplicationCommand {
	return []*discordgo.ApplicationCommand{{
		Name:        commandName,
		Description: "Play Connect N: Connect Four on any board, as a multi-round match",
		Contexts:    &[]discordgo.InteractionContextType{discordgo.InteractionContextGuild},
		Options: []*discordgo.ApplicationCommandOption{{
			Type:        discordgo.ApplicationCommandOptionSubCommand,
			Name:        subChallenge,
			Description: "Challenge a member of this server to a match",
			Options: []*discordgo.ApplicationCommandOption{
				{
					Type:        discordgo.ApplicationCommandOptionUser,
					Name:        optOpponent,
					Description: "Who you challenge",
					Required:    true,
				},
				intOption(optRows, "Rows on the board", minRows, maxRows, defaultRows),
				intOption(optColumns, "Columns on the board", minColumns, maxColumns, defaultCols),
				intOption(optConnect, "Discs in a line needed to win a round", minConnect, maxConnect, defaultConn),
				intOption(optWins, "Round wins needed to take the match", minWins, maxWins, defaultWins),
			},
		}},
	}}
}
