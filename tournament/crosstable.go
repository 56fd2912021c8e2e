package tournament

// Crosstable is the table of results between every two players, the rows
// and columns in the order of the standings (what a round robin's final
// picture shows).
type Crosstable struct {
	// Players are the IDs, in the order of the standings.
	Players []string `json:"players"`
	// Cells[i][j] are player i's games against player j, in round order:
	// empty when they did not meet (and on the diagonal).
	Cells [][][]Cell `json:"cells"`
}

// Cell is one game seen from one player's side.
type Cell struct {
	// Points are the player's points in the game: 1, ½ or 0.
	Points float64 `json:"points"`
	// Forfeit is set for a game won or lost by forfeit (not played).
	Forfeit bool `json:"forfeit,omitempty"`
	// Opened is set when the player was the game's opener.
	Opened bool `json:"opened,omitempty"`
	// Round is the round of the game, from 1.
	Round int `json:"round"`
}

// CrosstableOf returns the crosstable of s from the results so far (a game
// without a result is left out). It returns an error wrapping
// ErrInvalidConfig or ErrInvalidState when s.Validate fails.
func CrosstableOf(s State) (Crosstable, error) {
	st, err := Standings(s)
	if err != nil {
		return Crosstable{}, err
	}
	at := make(map[string]int, len(st))
	ct := Crosstable{Players: make([]string, len(st)), Cells: make([][][]Cell, len(st))}
	for i, x := range st {
		at[x.Player] = i
		ct.Players[i] = x.Player
		ct.Cells[i] = make([][]Cell, len(st))
	}
	for _, r := range s.Rounds {
		for _, p := range r.Pairings {
			if p.IsBye() || p.Result == Pending {
				continue
			}
			a, b := at[p.Opener], at[p.Second]
			pa, pb := p.Result.Points()
			f := p.Result.Forfeit()
			ct.Cells[a][b] = append(ct.Cells[a][b], Cell{Points: pa, Forfeit: f, Opened: true, Round: r.Number})
			ct.Cells[b][a] = append(ct.Cells[b][a], Cell{Points: pb, Forfeit: f, Round: r.Number})
		}
	}
	return ct, nil
}
