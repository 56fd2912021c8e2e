package matching

import (
	"math/big"
	"math/bits"
)

// Weight is a signed 128-bit integer, the weight of an edge and the type of
// the algorithm's dual variables: hi·2⁶⁴ + lo, in two's complement. The zero
// value is 0. Weights let a caller pack several criteria into one number
// (the most important one in the highest digits) without the overflow that
// int64 would bring; WeightLimit bounds them so that the duals never overflow.
type Weight struct {
	hi int64
	lo uint64
}

// Int returns x as a Weight.
func Int(x int64) Weight {
	w := Weight{lo: uint64(x)}
	if x < 0 {
		w.hi = -1
	}
	return w
}

// Add returns a+b (it wraps around on overflow, which WeightLimit rules out
// inside the algorithm).
func (a Weight) Add(b Weight) Weight {
	lo, carry := bits.Add64(a.lo, b.lo, 0)
	return Weight{hi: a.hi + b.hi + int64(carry), lo: lo}
}

// Sub returns a−b (it wraps around on overflow, as Add does).
func (a Weight) Sub(b Weight) Weight {
	lo, borrow := bits.Sub64(a.lo, b.lo, 0)
	return Weight{hi: a.hi - b.hi - int64(borrow), lo: lo}
}

// Cmp returns −1, 0 or +1 as a is less than, equal to or greater than b.
func (a Weight) Cmp(b Weight) int {
	switch {
	case a.hi < b.hi:
		return -1
	case a.hi > b.hi:
		return 1
	case a.lo < b.lo:
		return -1
	case a.lo > b.lo:
		return 1
	}
	return 0
}

// Less reports whether a < b.
func (a Weight) Less(b Weight) bool { return a.Cmp(b) < 0 }

// Sign returns −1, 0 or +1 as a is negative, zero or positive.
func (a Weight) Sign() int { return a.Cmp(Weight{}) }

// MulInt returns a·m for a ≥ 0 and m ≥ 0, and false when either is negative
// or the product does not fit in 127 bits.
func (a Weight) MulInt(m int64) (Weight, bool) {
	if a.hi < 0 || m < 0 {
		return Weight{}, false
	}
	carry, lo := bits.Mul64(a.lo, uint64(m))
	over, hi := bits.Mul64(uint64(a.hi), uint64(m))
	hi, c := bits.Add64(hi, carry, 0)
	if over != 0 || c != 0 || hi > 1<<63-1 {
		return Weight{}, false
	}
	return Weight{hi: int64(hi), lo: lo}, true
}

// half returns ⌊a/2⌋ (an arithmetic shift).
func (a Weight) half() Weight {
	return Weight{hi: a.hi >> 1, lo: a.lo>>1 | uint64(a.hi)<<63}
}

// double returns 2a.
func (a Weight) double() Weight { return a.Add(a) }

// Big returns a as a big.Int, for messages and tests.
func (a Weight) Big() *big.Int {
	v := new(big.Int).SetInt64(a.hi)
	v.Lsh(v, 64)
	return v.Add(v, new(big.Int).SetUint64(a.lo))
}

// String returns a in decimal.
func (a Weight) String() string { return a.Big().String() }
