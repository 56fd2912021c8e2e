//go:build !linux

package ai

// allocSlots returns n zeroed table entries.
func allocSlots(n uint64) []uint64 { return make([]uint64, n) }

// releaseSlots empties slots.
func releaseSlots(s []uint64) { clear(s) }
