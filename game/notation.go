package game

// The moves notation: a position written as the columns played from the
// empty board, first player first, one character a column, numbered from
// 1 as in Pascal Pons' test sets (blog.gamesolver.org): 1 to 9, then a to
// w for columns 10 to 32 (either case when read).

// MaxNotationColumns is the most columns the notation can name.
const MaxNotationColumns = 32

// ColumnCode returns the character of zero-based column c in the moves
// notation; c must be from 0 to MaxNotationColumns-1.
func ColumnCode(c int) byte {
	if c < 9 {
		return byte('1' + c)
	}
	return byte('a' + c - 9)
}

// ParseColumnCode returns the zero-based column of notation character ch,
// and false for a character that names no column.
func ParseColumnCode(ch rune) (int, bool) {
	switch {
	case ch >= '1' && ch <= '9':
		return int(ch - '1'), true
	case ch >= 'a' && ch <= 'w':
		return int(ch-'a') + 9, true
	case ch >= 'A' && ch <= 'W':
		return int(ch-'A') + 9, true
	}
	return 0, false
}

// MovesCode writes moves (zero-based columns) in the notation.
func MovesCode(moves []int) string {
	b := make([]byte, len(moves))
	for k, c := range moves {
		b[k] = ColumnCode(c)
	}
	return string(b)
}
