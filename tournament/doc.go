// Package tournament holds the rules of ConnectN's tournaments: Swiss,
// round robin (single or double) and arena. It pairs rounds, scores games,
// breaks ties and ranks players, as pure functions of a State: plain data
// (Config, Players, Rounds of Pairings with their Results) that a store
// keeps and that round-trips through encoding/json. It has no Discord, no
// SQL and no clock of its own; time comes in as an argument. It imports
// game and rating, and the standard library.
//
// # A tournament game
//
// One tournament game is one Connect N match of the tournament's board
// rules (Config.Game: Wins round wins, openers alternating round by round),
// played to its end. The pairing's Opener (White in chess terms) drops the
// first disc of the match's first round; the opener matters a great deal in
// Connect Four, so the pairing balances it. The game's Result is the
// match's (MatchResult): a win for the player who took the match; a win by
// forfeit when the loser gave the match up (or let a turn's deadline pass)
// without having dropped a single disc; a Draw when a match stopped before
// its end is level on round wins, drawn rounds included (StoppedResult), as
// a match that is played out never ends level. A player who does not move
// loses the game.
//
// # Scoring
//
// In a Swiss and a round robin a win scores 1 (by forfeit too), a draw ½,
// a loss 0 (a double forfeit 0 for both), and a bye 1 (Result.Points). An
// arena scores as lichess's arena does, without berserk: a win 2, a draw 1,
// a loss 0; after two wins in a row a player is on fire, and then a win
// scores 4 and a draw 2, until a game they do not win (which still scores
// double if it is a draw). A win by forfeit counts as a win there too.
//
// # Swiss pairing
//
// NextRound pairs a Swiss round as a maximum-weight matching over the
// allowed pairs (package internal/matching: Edmonds' blossom algorithm,
// exact, in Galil's O(n³) formulation), as lichess's arena and Swiss
// pairings do, with FIDE's Dutch system (Handbook C.04.3) as the reference
// for the order of the criteria. The players in are ordered for pairing by
// points, then rating (an unrated player counting 1500), then order of
// entry; a withdrawn player is not paired.
//
// Absolute rules, never broken (the round is refused with ErrNoPairing
// when no pairing keeps them): no two players meet twice (a game won by
// forfeit counts as met); a player gets at most one bye. Among the pairings
// that keep them and pair every player (but one, with an odd number, who
// gets the bye), the pairing is the best by these criteria in turn, each
// counted over the whole round and compared only when all the ones before
// are equal:
//
//  1. The bye goes to the lowest player in the pairing order who has had
//     none and without whom the others can all be paired.
//  2. The fewest players whose openers and seconds end more than one apart:
//     each player's opener alternates as far as possible, keeping the balance
//     within one (stricter than the Dutch system's two, since the opener
//     matters more in Connect Four than White does in chess).
//  3. The least total score difference of the pairs: players meet within
//     their score group as far as possible.
//  4. The least sum of the squares of those differences: two players one
//     point apart rather than one pair two points apart.
//  5. The fewest players, among those with as many openers as seconds, who
//     do not alternate from their last game.
//  6. Within a score group, the top half against the bottom half (FIDE's S1
//     against S2: in a group of 2k, the first against the (k+1)th and so
//     on); a player who floats down is the lowest of their group and meets
//     the highest of the next.
//
// Who opens: the player whose openers lag, else the one who went second in
// their last game (criteria 2 and 5); when both are equal, the higher placed
// player gets their due (as C.04.3 E.4); when neither has played, the
// drawing of lots: on board 1 a lot drawn from the tournament's seed decides
// whether the higher placed player opens, and the boards alternate from
// there. Boards are ordered by their higher placed player; the bye comes
// last, its Result already Bye. Not taken from the Dutch system: its
// criteria on floating twice in a row, on which players float, and its
// colour rule E.3 (the last round in which two players' colours differed);
// nor FIDE's bar on a bye for a player who won a game by forfeit.
//
// A Swiss has Config.Rounds rounds, by default DefaultRounds of its entries:
// ⌈log₂ players⌉ + 1.
//
// # Round robin
//
// Berger tables (FIDE Handbook C.05, Annex 1), the pairing numbers drawn by
// lot from the seed: every player meets every other once in N − 1 rounds
// (N rounds with an odd number, each player sitting one out with a bye),
// player N's openers alternating and everyone's openers balanced within one
// at the end. A double round robin plays the same rounds again with the
// openers swapped, so each pair meets twice, once each way round. A
// withdrawn player's later games are not played: each opponent wins by
// forfeit, recorded at once in the round NextRound returns.
//
// # Arena
//
// A timed event of Config.Duration from State.Started. ArenaPair pairs the
// players waiting at a given time (the lifecycle calls it as soon as a game
// ends): as many pairs as possible, never two who played each other in
// either's last game, and among those the least total difference of arena
// points, then of rating (a maximum-weight matching). It refuses from the
// end on (ErrTournamentOver); games paired before the end are played out
// and count.
//
// # Tie-breaks and standings
//
// Standings ranks by points, then (Swiss, round robin) by these tie-breaks
// in order, as FIDE's Handbook C.02 tie-break regulations define them, with
// unplayed games handled as the 2009 FIDE Congress (Kallithea) agreed:
//
//   - Buchholz: the sum of the opponents' scores. An opponent's score counts
//     each of their unplayed rounds (a bye, a game won or lost by forfeit, a
//     round absent after withdrawing) as a draw, ½. Each of the player's own
//     unplayed rounds R counts a virtual opponent whose score is the player's
//     points before R, plus 1 minus what the player scored in R, plus ½ for
//     every later round: Svon = SPR + (1 − SfPR) + ½(n − R), with n the rounds
//     paired so far. So a bye counts as a game against someone the player
//     beat who then drew every later round.
//   - Sonneborn–Berger: the sum over the player's rounds of their points in
//     the round times that opponent's score (as above; the virtual
//     opponent's for an unplayed round): the scores of those they beat, and
//     half of those they drew with.
//   - The direct encounter: among the players still level on points,
//     Buchholz and Sonneborn–Berger, when every two of them played each
//     other, the points each scored in those games (forfeits aside).
//     Otherwise it decides nothing.
//   - Then the rating, highest first, and last the order of entry, so that
//     every place is a player's own.
//
// An arena ranks by points, then by performance (lichess breaks arena ties
// by performance): the linear performance rating over the played games, the
// opponents' average rating plus 400 × (wins − losses) / games (the
// "algorithm of 400"), then rating and entry. Points count every decided
// game; a game without a result counts for nothing yet.
//
// # Using it
//
// The lifecycle keeps a State: New, Join and Leave before the start; then
// NextRound (Swiss, round robin) or ArenaPair (arena) make a Round that the
// store appends with a compare-and-swap, RecordResult records each game as
// its match ends (MatchResult), and Standings ranks. NextRound is a pure
// function of the state: two replicas that see the last result at the same
// instant compute the same round, and the store keeps it once; a second
// RecordResult of the same game is refused (ErrAlreadyRecorded), so a
// replica that loses the race knows. See the example.
package tournament
