package sqlstore

import (
	"encoding/json"
	"fmt"
	"strconv"

	fastjson "github.com/segmentio/encoding/json"

	"github.com/connectn/connectn/game"
)

// The actions column holds a match's actions (game.Action, in order) in
// one of two forms, told apart by the first byte:
//
//   - the move text, written since schema version 10 (010_move_text.sql): a token per action,
//     with no separator; "" is no action. A drop is its column as a letter,
//     lower case for game.Player1 ('a' is column 0, 'z' column 25) and
//     upper case for game.Player2, preceded for columns from 26 on by the
//     decimal of column/26 (no leading zero), the letter then giving
//     column%26: "d" is player 1 in column 3, "D" player 2 there, "1e"
//     player 1 in column 30 (game.MaxSize is 256, so at most one digit).
//     A forfeit is '-' then 'r' (the round) or 'm' (the match), lower case
//     for player 1 and upper case for player 2: "-R" is player 2
//     forfeiting the round. A move is one byte in matches of up to 26
//     columns.
//   - the JSON list of the actions (game.Action's JSON, as encoding/json
//     writes it: [{"kind":"drop","player":1,"column":3}]), written before;
//     it starts with '['. Rows in this form are read as they are, and
//     written in the move text by their next change of actions.
//
// A move writes the whole column, and the JSON list took about 38 bytes an
// action (1.4 KB in a match of two rounds): each write bound the text
// (modernc.org/sqlite copies it into the C library's memory), built the
// row's record from it and wrote it to the page that went to the log, and
// the cache kept a copy. The move text is one byte a move (figures in
// docs/load.md, "The store's write of a move").

// letters is the number of columns a letter of the move text tells apart.
const letters = 26

// appendActionText appends the move text of actions to b. It returns an
// error wrapping game.ErrInvalidAction for an action of an unknown kind, a
// player other than game.Player1 or game.Player2, or a negative column:
// none of which a match holds (game.Match.Apply refuses them).
func appendActionText(b []byte, actions ...game.Action) ([]byte, error) {
	for _, a := range actions {
		var upper bool
		switch a.Player {
		case game.Player1:
		case game.Player2:
			upper = true
		default:
			return nil, fmt.Errorf("encode action %v: player %d: %w", a, a.Player, game.ErrInvalidAction)
		}
		switch a.Kind {
		case game.Drop:
			if a.Column < 0 {
				return nil, fmt.Errorf("encode action %v: column %d: %w", a, a.Column, game.ErrInvalidAction)
			}
			if q := a.Column / letters; q > 0 {
				b = strconv.AppendInt(b, int64(q), 10)
			}
			b = append(b, caseOf('a'+byte(a.Column%letters), upper))
		case game.ForfeitRound:
			b = append(b, '-', caseOf('r', upper))
		case game.ForfeitMatch:
			b = append(b, '-', caseOf('m', upper))
		default:
			return nil, fmt.Errorf("encode action %v: %w", a, game.ErrInvalidAction)
		}
	}
	return b, nil
}

// maxPrefix bounds the decimal prefix of a drop's column in the move text
// (a column up to 26 times that; game.MaxSize is far below).
const maxPrefix = 1 << 20

// parseActions reads the actions column in either form (see
// appendActionText): the JSON list when text starts with '[', else the
// move text. It returns an error for text in neither form, wrapping
// game.ErrInvalidAction for a move text it cannot read (an unknown byte,
// a forfeit or a column prefix cut short); the actions are not checked
// against any match (game.Replay does that).
func parseActions(text []byte) ([]game.Action, error) {
	if len(text) > 0 && text[0] == '[' {
		var list []game.Action
		if err := fastjson.Unmarshal(text, &list); err != nil {
			return nil, err
		}
		return list, nil
	}
	list := make([]game.Action, 0, len(text))
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c == '-':
			i++
			if i == len(text) {
				return nil, fmt.Errorf("move text at byte %d: a forfeit cut short: %w", i-1, game.ErrInvalidAction)
			}
			a := game.Action{Player: game.Player1}
			switch text[i] {
			case 'r', 'R':
				a.Kind = game.ForfeitRound
			case 'm', 'M':
				a.Kind = game.ForfeitMatch
			default:
				return nil, fmt.Errorf("move text at byte %d: forfeit %q: %w", i, text[i], game.ErrInvalidAction)
			}
			if text[i] < 'a' {
				a.Player = game.Player2
			}
			list = append(list, a)
		case '1' <= c && c <= '9':
			start, q := i, 0
			for ; i < len(text) && '0' <= text[i] && text[i] <= '9'; i++ {
				if q = q*10 + int(text[i]-'0'); q > maxPrefix {
					return nil, fmt.Errorf("move text at byte %d: column prefix too long: %w", start, game.ErrInvalidAction)
				}
			}
			if i == len(text) || !isLetter(text[i]) {
				return nil, fmt.Errorf("move text at byte %d: column prefix without its letter: %w", start, game.ErrInvalidAction)
			}
			list = append(list, drop(text[i], q))
		case isLetter(c):
			list = append(list, drop(c, 0))
		default:
			return nil, fmt.Errorf("move text at byte %d: %q: %w", i, c, game.ErrInvalidAction)
		}
	}
	return list, nil
}

// caseOf returns the lower-case letter c, in upper case when upper.
func caseOf(c byte, upper bool) byte {
	if upper {
		return c - 'a' + 'A'
	}
	return c
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// drop returns the drop of the letter c after the column prefix q.
func drop(c byte, q int) game.Action {
	if c >= 'a' {
		return game.Action{Kind: game.Drop, Player: game.Player1, Column: q*letters + int(c-'a')}
	}
	return game.Action{Kind: game.Drop, Player: game.Player2, Column: q*letters + int(c-'A')}
}

// isMoveText reports whether the actions column text is in the move text
// (not the JSON list).
func isMoveText(text string) bool { return len(text) == 0 || text[0] != '[' }

// encodeActions returns the actions of m as the actions column: the move
// text (see appendActionText). When prev (the cache entry the session was
// loaded from) holds a prefix of them in the move text, only the new
// actions are encoded and appended to it; a column in the JSON list is
// written anew, in the move text.
func encodeActions(prev *cached, m *game.Match) (string, error) {
	n := m.Plies()
	if prev != nil && isMoveText(prev.actions) {
		old := prev.sess.Match
		k := old.Plies()
		same := k <= n
		for i := 0; same && i < k; i++ {
			same = old.Action(i) == m.Action(i)
		}
		if same {
			if k == n {
				return prev.actions, nil
			}
			b := make([]byte, len(prev.actions), len(prev.actions)+2*(n-k))
			copy(b, prev.actions)
			for i := k; i < n; i++ {
				var err error
				if b, err = appendActionText(b, m.Action(i)); err != nil {
					return "", err
				}
			}
			return string(b), nil
		}
	}
	b := make([]byte, 0, n+n/8)
	for i := range n {
		var err error
		if b, err = appendActionText(b, m.Action(i)); err != nil {
			return "", err
		}
	}
	return string(b), nil
}

// exportActions returns the actions column text as the export writes it,
// the JSON list (the form an export has always had): the move text
// converted, the JSON list as it is. A column in neither form is returned
// as the text it holds (see rawJSON; import then refuses it).
func exportActions(text string) json.RawMessage {
	if !isMoveText(text) {
		return rawJSON(text)
	}
	list, err := parseActions([]byte(text))
	if err != nil {
		return rawJSON(text)
	}
	if list == nil {
		list = []game.Action{}
	}
	b, err := json.Marshal(list)
	if err != nil {
		return rawJSON(text)
	}
	return b
}
