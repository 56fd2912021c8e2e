// Package render draws what the bot shows: boards as emoji grids with
// their buttons, challenges, round records, finished matches, stats,
// leaderboards, the analysis and its chart, positions, the picture of a
// board, a thread's name and link. Each is a pure function of a
// localizer (every string from package locale, in the reader's or the
// channel's language) and a session or an outcome: no store, no network.
// Buttons carry custom_ids made with package customid.
package render
