package console

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/connectn/connectn/locale"
)

// maxShown is how many characters of a refused line a message quotes.
const maxShown = 20

// inputError is a line typed at a prompt, or a flag's value, that cannot be
// accepted: the catalog message that says why, a full sentence, with its
// fields. The player reads it in their language through text; Error gives
// the message ID and fields, for logs and never for the player.
type inputError struct {
	id      string
	count   int  // the count of a message with plural forms, when counted
	counted bool // the message has plural forms, read by count
	args    []any
}

func (e *inputError) Error() string {
	return fmt.Sprintf("input refused: %s %v", e.id, e.args)
}

// text returns the message of e in l's language.
func (e *inputError) text(l *locale.Localizer) string {
	if e.counted {
		return l.N(e.id, e.count, e.args...)
	}
	return l.T(e.id, e.args...)
}

// refuse returns the refusal read as catalog message id with the fields
// args (name, value pairs).
func refuse(id string, args ...any) *inputError {
	return &inputError{id: id, args: args}
}

// refuseN is refuse for a message with plural forms, read by count.
func refuseN(id string, count int, args ...any) *inputError {
	return &inputError{id: id, count: count, counted: true, args: args}
}

// parseColumn reads a line typed at a column prompt on a board of columns
// columns numbered from 0 when zero is set and from 1 otherwise. Spaces
// around the line are ignored. It returns quit true for "q" or "quit" in any
// case; otherwise the zero-based column for a plain number in range; and
// otherwise an *inputError whose message says why the line was refused: it
// is empty, signed (+3, -1), a decimal (2.5), written with leading zeros
// (007, 01; "0" alone is a number), out of range, or not a number at all.
// Whether the column is full is for the board to say.
func parseColumn(line string, columns int, zero bool) (column int, quit bool, err error) {
	lo := 1
	if zero {
		lo = 0
	}
	hi := lo + columns - 1
	text := strings.TrimSpace(line)
	switch lower := strings.ToLower(text); {
	case text == "":
		return 0, false, refuse("console_column_empty", "First", lo, "Last", hi)
	case lower == "q" || lower == "quit":
		return 0, true, nil
	}
	unsigned := strings.TrimLeft(text, "+-")
	switch {
	case isDecimal(unsigned):
		return 0, false, refuse("console_column_decimal", "Input", quote(text), "First", lo, "Last", hi)
	case !isDigits(unsigned):
		return 0, false, refuse("console_column_not_a_number", "Input", quote(text), "First", lo, "Last", hi)
	case unsigned != text:
		return 0, false, refuse("console_column_signed", "Input", quote(text), "First", lo, "Last", hi)
	case len(text) > 1 && text[0] == '0':
		return 0, false, refuse("console_column_leading_zeros", "Input", quote(text))
	}
	n, err := strconv.Atoi(text)
	if err != nil || n < lo || n > hi { // err: too large for an int
		return 0, false, refuse("console_column_out_of_range", "Column", shorten(text), "First", lo, "Last", hi)
	}
	return n - lo, false, nil
}

// parseAnswer reads a line typed at the "Play again?" prompt: y or yes, n or
// no, in any case, spaces around ignored. Anything else returns an
// *inputError.
func parseAnswer(line string) (again bool, err error) {
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true, nil
	case "n", "no":
		return false, nil
	}
	return false, refuse("console_answer_yes_or_no")
}

// isDigits reports whether s is one or more ASCII digits.
func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// isDecimal reports whether s is a decimal number with a fractional part
// ("2.5", "2,5", ".5", "3."): digits around one point or comma.
func isDecimal(s string) bool {
	i := strings.IndexAny(s, ".,")
	if i < 0 {
		return false
	}
	whole, frac := s[:i], s[i+1:]
	return whole+frac != "" && (whole == "" || isDigits(whole)) && (frac == "" || isDigits(frac))
}

// quote returns s in double quotes, with control characters escaped so a
// message never writes them to the terminal, cut to maxShown characters.
func quote(s string) string {
	return strconv.Quote(shorten(s))
}

// shorten cuts s to maxShown characters, marking the cut with "...".
func shorten(s string) string {
	r := []rune(s)
	if len(r) <= maxShown {
		return s
	}
	return string(r[:maxShown]) + "..."
}
