package ai

import (
	"math/rand/v2"
	"testing"
)

// TestTableHashUnique checks that a slot and its check determine the key
// (so that two positions can never share an entry): the key is rebuilt
// from them, for tables of every kind, random keys and keys a few bits
// apart. It fails when the check loses a bit the slot does not carry.
func TestTableHashUnique(t *testing.T) {
	defer func() { tableModulo, twoTierOff = false, true }()
	rng := rand.New(rand.NewPCG(1, 2))
	salt := mix64(42)
	for _, kind := range []struct {
		name      string
		modulo    bool
		twoTier   bool
		sizeMB    int
		nearTable bool
	}{{"4 MiB", false, false, 4, false}, {"64 MiB", false, false, 64, false}, {"two tiers", false, true, 64, false}, {"near", false, false, 0, true}, {"modulo", true, false, 64, false},
		{"modulo, two tiers, 32 MiB", true, true, 32, false}, {"modulo, two tiers, 64 MiB", true, true, 64, false}} {
		tableModulo, twoTierOff = kind.modulo, !kind.twoTier
		var tb *table
		if kind.nearTable {
			tb = newNearTable()
		} else {
			tb = newTable(kind.sizeMB)
		}
		if tb.checkShift+tb.bits > 64 {
			t.Fatalf("%s: the check (%d bits from bit %d) does not fit in an entry", kind.name, tb.bits, tb.checkShift)
		}
		for i := 0; i < 20000; i++ {
			key := rng.Uint64()
			if i%2 == 1 {
				key = uint64(i) << (i % 50) // keys a few bits apart
			}
			slot, check := tb.hash(key, salt)
			if slot >= tb.size || check >= 1<<tb.bits {
				t.Fatalf("%s: key %#x: slot %d of %d, check %#x of %d bits", kind.name, key, slot, tb.size, check, tb.bits)
			}
			if tb.modulo {
				continue // the Chinese remainder theorem: Pons' proof
			}
			high := check
			h := high<<(64-tb.shift) | (slot ^ high*hashMul>>tb.shift)
			if h^salt != key {
				t.Fatalf("%s: key %#x gives slot %d and check %#x, which rebuild %#x", kind.name, key, slot, check, h^salt)
			}
		}
	}
}

// TestTableGenerations checks that a cleared table finds nothing of before,
// through every generation and after the generations run out (when clear
// must empty the slots: without it an entry of the first generation would
// come back).
func TestTableGenerations(t *testing.T) {
	for _, tb := range []*table{newTable(64), newNearTable(), newTable(4)} {
		salt := mix64(7)
		for round := uint64(0); round < 2*tb.maxGen+3; round++ {
			key := round + 1
			for old := uint64(1); old <= round; old++ {
				if _, _, _, ok := tb.get(old, salt); ok {
					t.Fatalf("table of %d slots, generation %d of %d: the entry of clear %d is still there", tb.size, tb.gen, tb.maxGen, old-1)
				}
			}
			tb.put(key, salt, -3, 5, 2, 1)
			if lo, hi, c, ok := tb.get(key, salt); !ok || lo != -3 || hi != 5 || (c != 2 && tb.checkShift != moveShift) {
				t.Fatalf("table of %d slots, generation %d: got %d %d %d %v, want -3 5 2 true", tb.size, tb.gen, lo, hi, c, ok)
			}
			tb.clear()
		}
		if tb.size == newTable(64).size && tb.maxGen == 0 {
			t.Errorf("a 64 MiB table has no bits for generations: every clear empties it")
		}
	}
}
