//go:build !race

package ai

import (
	"os"
	"strconv"
	"testing"
)

// ponsLimit is how many positions of each Pons set TestPons checks in a
// plain run: the first 100 of every set but the slowest, Test_L1_R3
// (Begin-Hard, whose first 100 take five minutes on two cores), of which
// the first 10, or the first CONNECTN_PONS (a number from 1 to 1000;
// .ci/run sets 16). A value that is not such a number reads as the
// default, and TestPonsLimit fails.
func ponsLimit(set string) int {
	if set != "Test_L1_R3" {
		return 100
	}
	if n, ok := ponsEnv(); ok {
		return n
	}
	return 10
}

// ponsEnv reads CONNECTN_PONS: the number, and whether it is one from 1 to
// 1000 (false when unset or anything else).
func ponsEnv() (int, bool) {
	n, err := strconv.Atoi(os.Getenv("CONNECTN_PONS"))
	return n, err == nil && n >= 1 && n <= 1000
}

const raceEnabled = false

// TestPonsLimit: CONNECTN_PONS, when set, must be a number from 1 to 1000
// (a typo would quietly check the default 10), and sets how many positions
// of Test_L1_R3 are checked; the other sets are checked to 100.
func TestPonsLimit(t *testing.T) {
	if v := os.Getenv("CONNECTN_PONS"); v != "" {
		if _, ok := ponsEnv(); !ok {
			t.Fatalf("CONNECTN_PONS=%q: want a number from 1 to 1000", v)
		}
	}
	for _, tt := range []struct {
		env, set string
		want     int
	}{
		{"", "Test_L1_R3", 10}, {"40", "Test_L1_R3", 40}, {"1000", "Test_L1_R3", 1000},
		{"0", "Test_L1_R3", 10}, {"1001", "Test_L1_R3", 10}, {"lots", "Test_L1_R3", 10},
		{"40", "Test_L1_R2", 100}, {"", "Test_L3_R1", 100},
	} {
		t.Setenv("CONNECTN_PONS", tt.env)
		if got := ponsLimit(tt.set); got != tt.want {
			t.Errorf("CONNECTN_PONS=%q: ponsLimit(%s) = %d, want %d", tt.env, tt.set, got, tt.want)
		}
	}
}
