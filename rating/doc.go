// Package rating rates players with the Glicko-2 system of Mark Glickman, as
// described in "Example of the Glicko-2 system"
// (http://www.glicko.net/glicko/glicko2.pdf): a rating R, a rating deviation
// RD (both on the Glicko scale, where a new player is 1500 ± 350) and a
// volatility σ (0.06 for a new player).
//
// Update is one rating period of the paper, steps 1 to 8, with τ = 0.5 (Tau)
// and the Illinois iteration for σ′ to within ε = 0.000001 (Epsilon); it
// reproduces the paper's worked example. System{Tau: τ} is the same system
// with another τ (the bot's puzzles use 0.75, as lichess does). The bot rates
// every game as its own rating period, the instant updates of lichess: Match
// updates both players from their ratings before the game. Between games a
// player's RD grows with the time that passed: Idle(r, periods) is step 6
// extended to a real number of periods and capped at MaxRD (350);
// PeriodLength (one day) says how the bot turns a duration into periods. A
// rating whose RD is at least ProvisionalRD (110) is provisional.
//
// Usage, when a rated match between a and b ends and a scored s (1 a won, 0.5
// draw, 0 b won):
//
//	day := rating.PeriodLength.Hours()
//	a = rating.Idle(a, now.Sub(aLastRated).Hours()/day)
//	b = rating.Idle(b, now.Sub(bLastRated).Hours()/day)
//	a, b = rating.Match(a, b, s)
//	if a.Provisional() { ... }                 // show "1520?" rather than "1520"
//
// A Rating is three plain float64 fields and round-trips exactly through
// encoding/json. With one game per period, an active player's RD settles near
// an equilibrium (about 60 for σ = 0.06 against similar opponents) where the
// information of a game balances the period it counts as; below it, a game may
// raise RD slightly. The package uses the standard library only.
package rating
