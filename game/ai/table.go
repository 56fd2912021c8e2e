package ai

import (
	"math/bits"
	"sync/atomic"
)

// table is the solver's transposition table: a fixed array of 64-bit
// entries, one position per slot, the newest entry replacing the old one
// (Pons' policy). Two searches may share it: every entry is read and written
// with one atomic operation, so a reader sees either the old or the new entry,
// never half of each.
//
// A position's 64-bit key k (current + mask, unique for its board) becomes
// h = k XOR salt; of the 2^n slots, h picks the one numbered by its low n
// bits XOR the top n bits of its high bits times hashMul (Knuth's
// multiplicative hashing), and its high 64 - n bits are stored as the
// check. Slot and check give h back (the high bits, then the low ones), so
// two positions of the same board can never be confused, as in Pons' table,
// whose slot is h mod a prime and check h mod a power of two (the Chinese
// remainder theorem); a multiplication costs a few cycles where the
// division costs tens. The salt differs between board geometries, so a
// position of another geometry matches only if all 64 bits of h agree.
//
// An entry holds, from the low bits: the lower bound of the score (7 bits,
// offset by 64), its upper bound (7 bits, offset by 64), the best move's
// column plus one (5 bits, 0 for none), and the check in the remaining bits.
// Keeping both bounds in one entry is a refinement of Pons' table, which
// keeps only the last one.
type table struct {
	slots []uint64
	// size is the number of slots (of buckets with two tiers): a power of
	// two, 1 << (64 - shift), or a prime below with tableModulo.
	size  uint64
	shift uint // 64 less the bits of the slot's number
	bits  uint // bits of the check
	// modulo: the slot is h mod size, a prime, and the check h's low bits
	// (Pons' table; tableModulo).
	modulo bool
	// gen is the table's generation, 1 to maxGen, kept in the bits of an
	// entry above its check (the bits the check leaves free): an entry of
	// another generation reads as empty, so that clear only moves to the
	// next generation and empties the slots once every maxGen clears
	// (maxGen 0: no bits free, every clear empties the slots). Emptying
	// 64 MiB takes milliseconds and leaves the processor's caches full of
	// the table; a search of a few microseconds after it then runs from
	// memory (docs/ai.md, "Beside c4 and Pons"). tag is gen << bits.
	gen, maxGen, tag uint64
	// checkShift is where the check starts: after the move (and the work,
	// with two tiers) for the main table, right after the bounds for the
	// near table, which keeps no move.
	checkShift uint
	// twoTier: a key's bucket is two slots; the first keeps the entry
	// that cost the most work, the second the newest (Breuker, Uiterwijk
	// and van den Herik's two-tier replacement). Only tables of at least
	// 32 MiB (64 MiB with tableModulo's extra check bit) have room for
	// the work in their entries; off by default (twoTierOff).
	twoTier bool
}

const (
	boundBits  = 7
	boundMask  = 1<<boundBits - 1
	boundBias  = 64
	moveShift  = 2 * boundBits
	moveBits   = 5
	checkShift = moveShift + moveBits
	// workShift and workBits: with two tiers, the work below an entry,
	// the bit length of its number of nodes over 5 (0 to 3), right after
	// the move; the check then starts at workCheckShift.
	workShift      = checkShift
	workBits       = 2
	workCheckShift = workShift + workBits
	// minTableLog is the smallest table, 2^19 entries (4 MiB): the check
	// must fit in 64 - checkShift bits.
	minTableLog = checkShift
)

// newTable returns a table of about sizeMB mebibytes: the largest power of
// two number of 8-byte entries that fits, at least 4 MiB.
func newTable(sizeMB int) *table {
	entries := uint64(max(sizeMB, 1)) << 20 / 8
	log := uint(max(bits.Len64(entries)-1, minTableLog))
	modBit := uint(0)
	if tableModulo {
		modBit = 1 // the check's extra bit (shapedTable)
	}
	if !twoTierOff && 64-(log-1)+modBit+workCheckShift <= 64 {
		// Buckets of two slots, when the work and the check fit beside
		// the bounds and the move.
		return shapedTable(log-1, workCheckShift, true, allocSlots)
	}
	return shapedTable(log, checkShift, false, allocSlots)
}

// shapedTable returns a table of 1 << log slots (of buckets of two slots
// with twoTier), or of the prime below with tableModulo, their memory from
// alloc, whose check starts at bit checkShift of an entry: 64 - log bits
// of it, one more with tableModulo.
func shapedTable(log, checkShift uint, twoTier bool, alloc func(n uint64) []uint64) *table {
	t := &table{size: 1 << log, shift: 64 - log, bits: 64 - log, checkShift: checkShift, twoTier: twoTier}
	if tableModulo {
		t.size, t.bits, t.modulo = prevPrime(t.size), t.bits+1, true
	}
	n := t.size
	if twoTier {
		n *= 2
	}
	t.slots = alloc(n)
	t.generations()
	return t
}

// generations sets up the table's generations from the bits the check
// leaves free in an entry.
func (t *table) generations() {
	t.maxGen = 1<<(64-t.checkShift-t.bits) - 1
	t.gen = min(1, t.maxGen)
	t.tag = t.gen << t.bits
}

// tableModulo makes new tables pick the slot as Pons' does, h mod a prime
// (h = key XOR salt), instead of the top bits of a product: it was the
// default before 2026-11-29, and the benchmarks that weigh it turn it on
// (docs/ai.md, "What each idea pays").
var tableModulo = false

// hashMul is the odd multiplier of the table's hash: 2^64 over the golden
// ratio (Knuth's multiplicative hashing).
const hashMul = 0x9e3779b97f4a7c15

// twoTierOff turns the two-tier buckets off (one entry per slot, the newest
// replacing the old, Pons' policy): they are off because they did not pay
// (docs/ai.md, "What each idea pays"); the benchmarks that weigh them turn
// them on.
var twoTierOff = true

// prevPrime returns the largest prime below n (n > 2).
func prevPrime(n uint64) uint64 {
	for p := n - 1; ; p-- {
		prime := true
		for d := uint64(2); d*d <= p; d++ {
			if p%d == 0 {
				prime = false
				break
			}
		}
		if prime {
			return p
		}
	}
}

// hash maps a key of the geometry with the given salt to its slot and check:
// with h = key XOR salt and 2^n slots, h's low n bits XOR the top n bits of
// (h >> n) * hashMul, and h >> n; with modulo, h mod size and h's low bits
// (a prime size and a power of two determine h by the Chinese remainder
// theorem).
func (t *table) hash(key, salt uint64) (slot uint64, check uint64) {
	h := key ^ salt
	if t.modulo {
		return h % t.size, h & (1<<t.bits - 1)
	}
	low := h & (t.size - 1)
	return low ^ (h>>(64-t.shift))*hashMul>>t.shift, h >> (64 - t.shift)
}

// get returns the stored bounds and best column (-1 for none) of key, and
// ok false when the table holds nothing for it.
func (t *table) get(key, salt uint64) (lower, upper, column int, ok bool) {
	slot, check := t.hash(key, salt)
	if t.twoTier {
		slot *= 2
	}
	check |= t.tag
	e := atomic.LoadUint64(&t.slots[slot])
	if e == 0 || e>>t.checkShift != check {
		if !t.twoTier {
			return 0, 0, -1, false
		}
		e = atomic.LoadUint64(&t.slots[slot+1])
		if e == 0 || e>>t.checkShift != check {
			return 0, 0, -1, false
		}
	}
	column = -1
	if t.checkShift != moveShift {
		column = int(e>>moveShift&(1<<moveBits-1)) - 1
	}
	return int(e&boundMask) - boundBias, int(e>>boundBits&boundMask) - boundBias, column, true
}

// put stores bounds and best column (-1 for none) for key, which cost
// nodes nodes of search (with two tiers: the first slot of the bucket keeps
// the entry of most work, the second the newest).
// A bucket's two slots are 2b and 2b+1 for bucket b = h mod size, so that
// the check of an entry is always read against keys of its own bucket.
func (t *table) put(key, salt uint64, lower, upper, column int, nodes uint64) {
	slot, check := t.hash(key, salt)
	check |= t.tag
	e := check<<t.checkShift | uint64(upper+boundBias)<<boundBits | uint64(lower+boundBias)
	if t.checkShift != moveShift {
		e |= uint64(column+1) << moveShift
	}
	if !t.twoTier {
		t.store(slot, e)
		return
	}
	work := uint64(min(bits.Len64(nodes)/5, 1<<workBits-1))
	e |= work << workShift
	slot *= 2
	first := atomic.LoadUint64(&t.slots[slot])
	switch {
	case first == 0 || first>>t.checkShift == check || first>>t.checkShift>>t.bits != t.gen:
		t.store(slot, e)
	case work >= first>>workShift&(1<<workBits-1):
		t.store(slot+1, first)
		t.store(slot, e)
	default:
		t.store(slot+1, e)
	}
}

// store writes entry e to slot i. On a processor of 64-bit words it is a
// plain store: the Go memory model guarantees that a read of a memory
// location no larger than a word observes a value some write stored (no
// torn entry), and an atomic store (XCHG on amd64) waits for the slot's
// cache line to come from memory, which took a fifth of the time of
// small searches (docs/ai.md, "What each idea pays"). With the race
// detector, which reports a plain store beside atomic loads, and on 32-bit
// processors, it is atomic.
func (t *table) store(i, e uint64) {
	if raceBuild || ^uint(0)>>63 == 0 {
		atomic.StoreUint64(&t.slots[i], e)
		return
	}
	t.slots[i] = e
}

// clear empties the table: it moves to the next generation, or empties
// every slot once the generations run out. No search may use the table
// meanwhile.
func (t *table) clear() {
	if t.gen < t.maxGen {
		t.gen++
		t.tag = t.gen << t.bits
		return
	}
	t.wipe()
}

// wipe empties the table by writing every slot, whatever its generation.
// No search may use the table meanwhile.
func (t *table) wipe() {
	clear(t.slots)
	t.gen = min(1, t.maxGen)
	t.tag = t.gen << t.bits
}

// nearTableLog sizes the table of positions near the end of the game: 2^17
// entries, 1 MiB, which fits the processor's level 2 cache. Its entries keep
// no best move, which leaves room for the longer check (48 bits).
const nearTableLog = 17

func newNearTable() *table {
	return shapedTable(nearTableLog, moveShift, false, func(n uint64) []uint64 { return make([]uint64, n) })
}
