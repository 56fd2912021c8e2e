package ai

// WithTableMB returns an engine that shares e's pool of workers (so that
// its searches count against Options.Workers with e's), its opening book
// and its seed, but has transposition tables of its own: an exact solver's
// table of mb mebibytes (at least 4, as Options.TableMB; 0 or less is
// DefaultTableMB), allocated on its first exact search, and a heuristic
// table of a quarter of that. Nothing of e's tables is touched: a
// background task (the search of finished matches for puzzles, say) can
// search with a small table of its own, while e's stays unallocated until
// the bot plays or analyses. A table is mapped for the life of the process
// (see allocSlots): make such an engine once, not per search.
func (e *Engine) WithTableMB(mb int) *Engine {
	opts := e.opts
	opts.TableMB = tableMB(mb)
	core := &engineCore{opts: opts, pool: e.pool, solvers: map[[3]int]*Solver{}, book: e.book}
	return &Engine{engineCore: core, seed: e.seed}
}

// ForgetTables empties the tables of e's exact solver and gives their
// memory back to the system: the transposition table's pages (its mapping
// is kept; the next search finds it empty, as the first did) and the
// solvers' tables of positions near the end of the game (1 MiB per board
// geometry, made again by the next search). A background task that
// searches now and then (the puzzle finder) calls it when a search ends,
// so that its tables take no memory while it rests. It must not be called
// while a search of e runs.
func (e *Engine) ForgetTables() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.table != nil {
		releaseSlots(e.table.slots)
	}
	clear(e.solvers)
}
