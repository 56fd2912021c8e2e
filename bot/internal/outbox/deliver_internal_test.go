package outbox

import "testing"

// TestPostPrefix: the look for a lost post knows a board by its match and
// post sequence, whatever ply and column its buttons now name, and a
// message without column buttons by its exact buttons.
func TestPostPrefix(t *testing.T) {
	board := []string{"cn:drop:42:3:17:1", "cn:drop:42:3:17:2", "cn:forfeit:42"}
	played := []string{"cn:drop:42:3:18:1", "cn:drop:42:3:18:2", "cn:forfeit:42"}
	p := postPrefix(board)
	if p != "cn:drop:42:3:" {
		t.Fatalf("postPrefix = %q, want cn:drop:42:3:", p)
	}
	if postPrefix(played) != p {
		t.Errorf("the board played on has prefix %q, want %q", postPrefix(played), p)
	}
	for _, other := range [][]string{
		{"cn:drop:42:4:18:1"},  // the next post
		{"cn:drop:421:3:18:1"}, // another match
	} {
		if postPrefix(other) == p {
			t.Errorf("%v has the board's prefix %q", other, p)
		}
	}
	if got := postPrefix([]string{"cn:rematch:42", "cn:drop:bad"}); got != "" {
		t.Errorf("postPrefix without a column button = %q, want \"\"", got)
	}
}
