package main

import (
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
)

// cryptoFloor is the oldest golang.org/x/crypto the program may link: the
// newest the module proxy served when go.mod was last brought up to date.
// discordgo v0.29.0 alone would pull in a version of April 2021
// (v0.0.0-20210421170649-83a5a9bb288b), years of fixes behind.
const cryptoFloor = "v0.59.0"

// TestCryptoUpToDate checks that the binary links golang.org/x/crypto at
// cryptoFloor or later, as go.mod requires, not the 2021 version discordgo
// asks for.
func TestCryptoUpToDate(t *testing.T) {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		t.Fatal("no build information in the test binary")
	}
	for _, d := range bi.Deps {
		if d.Path != "golang.org/x/crypto" {
			continue
		}
		v := d.Version
		if d.Replace != nil {
			v = d.Replace.Version
		}
		if !atLeast(v, cryptoFloor) {
			t.Errorf("golang.org/x/crypto %s is linked, want %s or later: go get golang.org/x/crypto@latest && go mod tidy", v, cryptoFloor)
		}
		return
	}
	t.Fatal("golang.org/x/crypto is not linked: this test has lost its subject")
}

// atLeast reports whether the tagged version v (vMAJOR.MINOR.PATCH) is at
// least floor; a pseudo-version (v0.0.0-DATE-HASH) or anything unreadable
// is not.
func atLeast(v, floor string) bool {
	parse := func(s string) ([3]int, bool) {
		var n [3]int
		parts := strings.Split(strings.TrimPrefix(s, "v"), ".")
		if len(parts) != 3 || !strings.HasPrefix(s, "v") {
			return n, false
		}
		for i, p := range parts {
			x, err := strconv.Atoi(p)
			if err != nil {
				return n, false
			}
			n[i] = x
		}
		return n, true
	}
	got, ok1 := parse(v)
	want, ok2 := parse(floor)
	if !ok1 || !ok2 {
		return false
	}
	for i := range got {
		if got[i] != want[i] {
			return got[i] > want[i]
		}
	}
	return true
}

func TestAtLeast(t *testing.T) {
	tests := []struct {
		v    string
		want bool
	}{
		{"v0.59.0", true},
		{"v0.60.1", true},
		{"v1.0.0", true},
		{"v0.58.9", false},
		{"v0.0.0-20210421170649-83a5a9bb288b", false},
		{"v0.59.0-rc.1", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := atLeast(tt.v, "v0.59.0"); got != tt.want {
			t.Errorf("atLeast(%q, v0.59.0) = %t, want %t", tt.v, got, tt.want)
		}
	}
}
