package ai

// Switches of the solver's ideas, for the benchmarks that weigh them one by
// one (docs/ai.md, "What each idea pays"); production code never changes
// them.
var (
	// noClaimeven turns the claimeven bound off.
	noClaimeven = false
	// noWinTwo turns off the bound of a player who has no move that leaves
	// the opponent lost at once (they cannot win with their next two discs).
	noWinTwo = false
	// noWinNow keeps searching a position with a move that leaves the
	// opponent lost at once (no reply that does not lose at once)
	// instead of returning its score, a win with the next disc but one.
	noWinNow = false
	// noChildClaimeven leaves out claimeven on every child whose player
	// to move is the first player before searching any (c4's static
	// evaluation of children), whose bound may cut off at once.
	noChildClaimeven = false
	// noWinThree keeps searching a position with a move whose single
	// reply that does not lose at once leaves the player a move after
	// which the opponent loses at once (a win with the third disc, the
	// best left once no move wins with the second).
	noWinThree = false
	// noETCForced looks up, in the enhanced transposition cutoffs, a
	// child with a single reply that does not lose at once (which has no
	// entry of its own) instead of the grandchild after that reply.
	noETCForced = false
	// noForced searches a position with a single non-losing move as a node
	// of its own instead of passing straight to its child.
	noForced = false
	// orderBy picks the move ordering: 0 the default (threats not above an
	// opponent's threat, those right above a playable cell and the first
	// player's on odd rows counting four times), 1 Pons' count of winning
	// cells, 2 threats not above an opponent's threat, 3 c4's weights.
	orderBy = 0
	// noOddThreats leaves the first player's threats on odd rows out of
	// the default ordering's weights (the default before 2026-11-29's
	// evening).
	noOddThreats = false
	// oddThreatsFrom is the fewest empty cells at which the ordering
	// counts the first player's odd threats more: with fewer (Pons'
	// End-Easy set, 1 to 13) they cost 3 % more nodes.
	oddThreatsFrom = 14
	// probeBy picks the root's sequence of null windows: 0 the default
	// (probes.med), 1 Pons' bisection throughout, 2 c4's (0 first, then
	// next to the bound the last probe returned).
	probeBy = 0
	// probeNear and probeAdjacent: once Pons' next window lies within
	// probeNear of 0, the default probes 0 and then probeAdjacent windows
	// next to the bound the last probe returned (probes.med).
	probeNear     = 5
	probeAdjacent = 1
	// helperOddOnly makes the helpers reorder moves only at an odd
	// distance from the root (the replies, where a null window that fails
	// high must search every move, so that another order shares the work),
	// not at the root itself (where the first move that succeeds ends the
	// search, so that another order wastes it). False restores the helpers
	// of before (the root's first two moves swapped, and the next two plies').
	helperOddOnly = true
	// helperExpect makes the helpers reorder the root's moves and the
	// replies' replies instead of the replies in a probe next to a bound
	// that failed high, which is expected to fail low (every root move
	// refuted); false keeps the replies in every probe.
	helperExpect = true
	// helperHints: true lets a helper that put another move first near
	// the root keep the move that cut as the position's best in the
	// table; false keeps the common order's first (or the old hint).
	helperHints = false
	// helperResults lets a helper that settles a probe before the main
	// worker end it with its result (the first worker to finish wins, as
	// in c4); false leaves the helpers only filling the table.
	helperResults = true
	// markPlies: with helpers, the workers mark the positions they search
	// up to this many plies from the root, and search a move another
	// worker is searching after their other moves (after Weill's ABDADA);
	// 0 for none. Without it two workers on the same path go down it
	// together, each searching what the other searches at the same time.
	markPlies = 12
)
