package bot

import (
	"strconv"

	"github.com/bwmarrin/discordgo"

	"github.com/connectn/connectn/game/ai"
)

// The command, subcommand and option names, and the bounds Discord enforces
// on the integer options (the handler checks them again: a request can be
// crafted).
const (
	commandName    = "connectn"
	subChallenge   = "challenge"
	subForfeit     = "forfeit"
	subBoard       = "board"
	subStats       = "stats"
	subLeaderboard = "leaderboard"
	subHelp        = "help"
	optOpponent    = "opponent"
	optRows        = "rows"
	optColumns     = "columns"
	optConnect     = "connect"
	optWins        = "wins"
	optFirst       = "first"
	optTheme       = "theme"
	optUser        = "user"
	optLevel       = "level"
	minRows        = 4
	maxRows        = 12
	minColumns     = 4
	maxColumns     = 12
	minConnect     = 3
	maxConnect     = 12
	minWins        = 1
	maxWins        = 9
	defaultRows    = 6
	defaultCols    = 7
	defaultConn    = 4
	defaultWins    = 2
	maxNameLength  = 32
	leaderboardTop = 10
)

// The values of the first option: who opens round 1.
const (
	firstChallenger = "challenger"
	firstOpponent   = "opponent"
	firstRandom     = "random"
)

func intOption(name, description string, minimum, maximum, def int) *discordgo.ApplicationCommandOption {
	lo := float64(minimum)
	return &discordgo.ApplicationCommandOption{
		Type:        discordgo.ApplicationCommandOptionInteger,
		Name:        name,
		Description: description + " (" + strconv.Itoa(minimum) + "–" + strconv.Itoa(maximum) + ", default " + strconv.Itoa(def) + ")",
		MinValue:    &lo,
		MaxValue:    float64(maximum),
	}
}

func subcommand(name, description string, options ...*discordgo.ApplicationCommandOption) *discordgo.ApplicationCommandOption {
	return &discordgo.ApplicationCommandOption{
		Type: discordgo.ApplicationCommandOptionSubCommand, Name: name, Description: description, Options: options,
	}
}

// Commands returns the bot's application commands, registered with one bulk
// overwrite (globally, or in one guild while testing): one `/connectn`
// command with the subcommands challenge, forfeit, board, stats,
// leaderboard and help. Each call returns a fresh slice.
func Commands() []*discordgo.ApplicationCommand {
	return []*discordgo.ApplicationCommand{{
		Name:        commandName,
		Description: "Connect Four on any board, as multi-round matches between members",
		Contexts:    &[]discordgo.InteractionContextType{discordgo.InteractionContextGuild},
		Options: []*discordgo.ApplicationCommandOption{
			subcommand(subChallenge, "Challenge a member of this server, or the bot, to a match of Connect N",
				&discordgo.ApplicationCommandOption{
					Type: discordgo.ApplicationCommandOptionUser, Name: optOpponent,
					Description: "The member you challenge; leave it out, or pick me, to play against the bot",
				},
				intOption(optRows, "Rows on the board", minRows, maxRows, defaultRows),
				intOption(optColumns, "Columns on the board", minColumns, maxColumns, defaultCols),
				intOption(optConnect, "Discs in a line that win a round", minConnect, maxConnect, defaultConn),
				intOption(optWins, "Rounds to win to take the match", minWins, maxWins, defaultWins),
				&discordgo.ApplicationCommandOption{
					Type: discordgo.ApplicationCommandOptionString, Name: optFirst,
					Description: "Who drops the first disc of round 1; then the opener alternates (default: you)",
					Choices: []*discordgo.ApplicationCommandOptionChoice{
						{Name: "Me, the challenger", Value: firstChallenger},
						{Name: "My opponent", Value: firstOpponent},
						{Name: "Random", Value: firstRandom},
					},
				},
				&discordgo.ApplicationCommandOption{
					Type: discordgo.ApplicationCommandOptionString, Name: optTheme,
					Description: "Colours of the discs and the board (default: classic red and yellow)",
					Choices:     themeChoices(),
				},
				&discordgo.ApplicationCommandOption{
					Type: discordgo.ApplicationCommandOptionString, Name: optLevel,
					Description: "How well the bot plays, when you play against it (default: hard)",
					Choices:     levelChoices(),
				},
			),
			subcommand(subForfeit, "Give up the match you are playing in this channel (asks first)"),
			subcommand(subBoard, "Post the live board of this channel's match again, at the bottom"),
			subcommand(subStats, "A member's record in this server: matches, rounds, win rate, streak",
				&discordgo.ApplicationCommandOption{
					Type: discordgo.ApplicationCommandOptionUser, Name: optUser,
					Description: "Whose record (default: yours)",
				},
			),
			subcommand(subLeaderboard, "The top 10 players of this server"),
			subcommand(subHelp, "How to play, and every command (only you see it)"),
		},
	}}
}

// levelDescriptions names the AI's levels in the level option's choices.
var levelDescriptions = map[ai.Level]string{
	ai.Easy:    "Easy: takes a win when it sees one, little more",
	ai.Medium:  "Medium: never misses a win or a single threat",
	ai.Hard:    "Hard: searches deep, plays endgames perfectly",
	ai.Perfect: "Perfect: unbeatable where the solver settles the board",
}

// levelChoices returns the choices of the level option, weakest first.
func levelChoices() []*discordgo.ApplicationCommandOptionChoice {
	var out []*discordgo.ApplicationCommandOptionChoice
	for _, l := range ai.Levels() {
		out = append(out, &discordgo.ApplicationCommandOptionChoice{Name: levelDescriptions[l], Value: l.String()})
	}
	return out
}
