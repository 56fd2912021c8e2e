package main

import (
	"log/slog"
	"runtime/debug"
	"testing"
)

func TestParseMemoryLimit(t *testing.T) {
	tests := []struct {
		name, v string
		want    int64
		bad     bool
	}{
		{"MiB", "32MiB", 32 << 20, false},
		{"GiB", "1GiB", 1 << 30, false},
		{"KiB", "65536KiB", 64 << 20, false},
		{"bytes", "33554432B", 32 << 20, false},
		{"the least", "16MiB", 16 << 20, false},
		{"off", "off", 0, false},
		{"OFF", "OFF", 0, false},
		{"below the least", "15MiB", 0, true},
		{"no unit", "64", 0, true},
		{"decimal unit", "64MB", 0, true},
		{"a fraction", "1.5GiB", 0, true},
		{"negative", "-32MiB", 0, true},
		{"too large", "9999999999TiB", 0, true},
		{"text", "lots", 0, true},
		{"unit alone", "MiB", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := int64(-1)
			problem := parseMemoryLimit(tt.v, &got)
			if tt.bad {
				if problem == "" {
					t.Errorf("parseMemoryLimit(%q) = %d, no problem; want one", tt.v, got)
				}
				if got != -1 {
					t.Errorf("parseMemoryLimit(%q) stored %d; a bad value stores nothing", tt.v, got)
				}
				return
			}
			if problem != "" || got != tt.want {
				t.Errorf("parseMemoryLimit(%q) = %d, %q; want %d", tt.v, got, problem, tt.want)
			}
		})
	}
}

// fakeRuntime is the runtime a memoryGovernor adjusts in a test: its live
// heap, and the limits set.
type fakeRuntime struct {
	live int64
	sets []int64
}

func (r *fakeRuntime) governor(limit int64) *memoryGovernor {
	return &memoryGovernor{limit: limit, live: func() int64 { return r.live },
		set: func(n int64) int64 { r.sets = append(r.sets, n); return 0 }}
}

func TestMemoryGovernor(t *testing.T) {
	const MiB = 1 << 20
	tests := []struct {
		name  string
		lives []int64 // the live heap at each adjust, MiB
		want  []int64 // the limits set, MiB, in order
	}{
		{"a small live heap: the owner's limit, set once", []int64{5, 11, 9, 11}, []int64{32}},
		{"a live heap that needs more: twice it and the slack", []int64{11, 20}, []int64{32, 48}},
		{"the AI's tables: 80 MiB more live", []int64{10, 90}, []int64{32, 188}},
		{"back down when the live heap falls by much", []int64{40, 12}, []int64{88, 32}},
		{"not for a small fall", []int64{40, 38}, []int64{88}},
		{"up for a small rise", []int64{40, 41}, []int64{88, 90}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &fakeRuntime{}
			g := r.governor(32 * MiB)
			for _, l := range tt.lives {
				r.live = l * MiB
				g.adjust()
			}
			var got []int64
			for _, n := range r.sets {
				got = append(got, n/MiB)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("limits set = %v MiB, want %v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Fatalf("limits set = %v MiB, want %v", got, tt.want)
				}
			}
		})
	}
}

func TestLimitMemory(t *testing.T) {
	const limit = 1 << 40 // far above what the test process keeps live
	before := debug.SetMemoryLimit(-1)
	tests := []struct {
		name    string
		env     map[string]string
		limit   int64
		applied bool
	}{
		{"set", nil, limit, true},
		{"off", nil, 0, false},
		{"GOMEMLIMIT in the environment rules", map[string]string{"GOMEMLIMIT": "1GiB"}, limit, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &app{c: config{memoryLimit: tt.limit}, d: deps{getenv: func(k string) string { return tt.env[k] }},
				log: slog.New(slog.DiscardHandler)}
			stop := a.limitMemory(t.Context())
			got := debug.SetMemoryLimit(-1)
			stop()
			if applied := got == limit; applied != tt.applied {
				t.Errorf("runtime's limit while the bot runs = %d, want the setting applied: %t", got, tt.applied)
			}
			if after := debug.SetMemoryLimit(-1); after != before {
				t.Errorf("runtime's limit after = %d, want it put back (%d)", after, before)
			}
		})
	}
}
