package game

import "testing"

// TestColumnCode: every column the notation names reads back as itself;
// the codes are Pons' digits, then letters; other characters name none.
func TestColumnCode(t *testing.T) {
	for c := 0; c < MaxNotationColumns; c++ {
		ch := ColumnCode(c)
		if got, ok := ParseColumnCode(rune(ch)); !ok || got != c {
			t.Errorf("column %d writes %q, which reads %d, %t", c, ch, got, ok)
		}
	}
	if got := MovesCode([]int{3, 3, 8, 9, 11, 31}); got != "449acw" {
		t.Errorf("MovesCode = %q", got)
	}
	if c, ok := ParseColumnCode('C'); !ok || c != 11 {
		t.Errorf("C reads %d, %t", c, ok)
	}
	for _, ch := range "0xX -é" {
		if _, ok := ParseColumnCode(ch); ok {
			t.Errorf("%q names a column", ch)
		}
	}
}
