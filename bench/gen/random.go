package main

import (
	"math"
	"math/bits"
)

// pyRandom is Python's random.Random: the Mersenne Twister (MT19937)
// seeded from an int as CPython seeds it (init_by_array over the int's
// 32-bit words), and the methods gen.py calls, each drawing from the
// generator exactly as CPython 3.11's random.py and _randommodule.c do.
type pyRandom struct {
	mt  [624]uint32
	mti int
}

func newPyRandom(seed int64) *pyRandom {
	r := &pyRandom{}
	n := uint64(seed)
	if seed < 0 {
		n = uint64(-seed) // CPython seeds with abs(n)
	}
	key := []uint32{uint32(n)}
	if hi := uint32(n >> 32); hi != 0 {
		key = append(key, hi)
	}
	r.initByArray(key)
	return r
}

func (r *pyRandom) initGenrand(s uint32) {
	r.mt[0] = s
	for i := 1; i < len(r.mt); i++ {
		r.mt[i] = 1812433253*(r.mt[i-1]^(r.mt[i-1]>>30)) + uint32(i)
	}
	r.mti = len(r.mt)
}

func (r *pyRandom) initByArray(key []uint32) {
	const n = 624
	r.initGenrand(19650218)
	i, j := 1, 0
	k := max(n, len(key))
	for ; k > 0; k-- {
		r.mt[i] = (r.mt[i] ^ ((r.mt[i-1] ^ (r.mt[i-1] >> 30)) * 1664525)) + key[j] + uint32(j)
		i++
		j++
		if i >= n {
			r.mt[0] = r.mt[n-1]
			i = 1
		}
		if j >= len(key) {
			j = 0
		}
	}
	for k = n - 1; k > 0; k-- {
		r.mt[i] = (r.mt[i] ^ ((r.mt[i-1] ^ (r.mt[i-1] >> 30)) * 1566083941)) - uint32(i)
		i++
		if i >= n {
			r.mt[0] = r.mt[n-1]
			i = 1
		}
	}
	r.mt[0] = 0x80000000
}

// uint32 is genrand_uint32.
func (r *pyRandom) uint32() uint32 {
	const (
		n, m      = 624, 397
		matrixA   = 0x9908b0df
		upperMask = 0x80000000
		lowerMask = 0x7fffffff
	)
	if r.mti >= n {
		var kk int
		for kk = 0; kk < n-m; kk++ {
			y := (r.mt[kk] & upperMask) | (r.mt[kk+1] & lowerMask)
			r.mt[kk] = r.mt[kk+m] ^ (y >> 1) ^ (matrixA * (y & 1))
		}
		for ; kk < n-1; kk++ {
			y := (r.mt[kk] & upperMask) | (r.mt[kk+1] & lowerMask)
			r.mt[kk] = r.mt[kk+(m-n)] ^ (y >> 1) ^ (matrixA * (y & 1))
		}
		y := (r.mt[n-1] & upperMask) | (r.mt[0] & lowerMask)
		r.mt[n-1] = r.mt[m-1] ^ (y >> 1) ^ (matrixA * (y & 1))
		r.mti = 0
	}
	y := r.mt[r.mti]
	r.mti++
	y ^= y >> 11
	y ^= (y << 7) & 0x9d2c5680
	y ^= (y << 15) & 0xefc60000
	y ^= y >> 18
	return y
}

// random is random(): 53 random bits in [0, 1).
func (r *pyRandom) random() float64 {
	a := float64(r.uint32() >> 5)
	b := float64(r.uint32() >> 6)
	return (a*67108864.0 + b) * (1.0 / 9007199254740992.0)
}

// getrandbits returns k random bits, k up to 64, as CPython fills them:
// 32-bit words from the least significant up, the last one's extra
// low bits dropped.
func (r *pyRandom) getrandbits(k int) uint64 {
	if k <= 32 {
		return uint64(r.uint32() >> (32 - k))
	}
	var v uint64
	for i := 0; k > 0; i, k = i+1, k-32 {
		w := r.uint32()
		if k < 32 {
			w >>= 32 - k
		}
		v |= uint64(w) << (32 * i)
	}
	return v
}

// getrandbitsHex is getrandbits(k) for any k, formatted as "%0*x" with
// width digits.
func (r *pyRandom) getrandbitsHex(k, width int) string {
	var words []uint32 // least significant first
	for ; k > 0; k -= 32 {
		w := r.uint32()
		if k < 32 {
			w >>= 32 - k
		}
		words = append(words, w)
	}
	const hex = "0123456789abcdef"
	var digits []byte
	for i := len(words) - 1; i >= 0; i-- {
		for s := 28; s >= 0; s -= 4 {
			digits = append(digits, hex[(words[i]>>s)&0xf])
		}
	}
	// Drop leading zeros past the width, as %0*x does.
	for len(digits) > width && digits[0] == '0' {
		digits = digits[1:]
	}
	for len(digits) < width {
		digits = append([]byte{'0'}, digits...)
	}
	return string(digits)
}

// randbelow is _randbelow_with_getrandbits: a random int in [0, n).
func (r *pyRandom) randbelow(n int) int {
	k := bits.Len(uint(n))
	v := r.getrandbits(k)
	for v >= uint64(n) {
		v = r.getrandbits(k)
	}
	return int(v)
}

// randint is randint(a, b), b included.
func (r *pyRandom) randint(a, b int) int { return a + r.randbelow(b+1-a) }

// randrange is randrange(a, b).
func (r *pyRandom) randrange(a, b int) int { return a + r.randbelow(b-a) }

// choice returns choice(seq) for a sequence of n items: its index.
func (r *pyRandom) choiceIndex(n int) int { return r.randbelow(n) }

// uniform is uniform(a, b). The conversion keeps the product from being
// fused into the addition (as Python computes it: rounded, then added).
func (r *pyRandom) uniform(a, b float64) float64 {
	return a + float64((b-a)*r.random())
}

// nvMagic is random.NV_MAGICCONST, 4*exp(-0.5)/sqrt(2).
var nvMagic = 4 * pyExp(-0.5) / math.Sqrt(2.0)

// normalvariate is normalvariate(mu, sigma) (Kinderman and Monahan).
func (r *pyRandom) normalvariate(mu, sigma float64) float64 {
	for {
		u1 := r.random()
		u2 := 1.0 - r.random()
		z := nvMagic * (u1 - 0.5) / u2
		zz := z * z / 4.0
		if zz <= -pyLog(u2) {
			return mu + float64(z*sigma)
		}
	}
}

// lognormvariate is lognormvariate(mu, sigma).
func (r *pyRandom) lognormvariate(mu, sigma float64) float64 {
	return pyExp(r.normalvariate(mu, sigma))
}

// sampleIndexes is sample(population, k) for a population of n items:
// the indexes it picks, in order.
func (r *pyRandom) sampleIndexes(n, k int) []int {
	result := make([]int, k)
	setsize := 21
	if k > 5 {
		setsize += int(math.Pow(4, math.Ceil(pyLog(float64(k*3))/pyLog(4))))
	}
	if n <= setsize {
		pool := make([]int, n)
		for i := range pool {
			pool[i] = i
		}
		for i := range k {
			j := r.randbelow(n - i)
			result[i] = pool[j]
			pool[j] = pool[n-i-1]
		}
		return result
	}
	selected := map[int]bool{}
	for i := range k {
		j := r.randbelow(n)
		for selected[j] {
			j = r.randbelow(n)
		}
		selected[j] = true
		result[i] = j
	}
	return result
}

// choice, sample for the types gen.py uses.
func choice[T any](r *pyRandom, seq []T) T { return seq[r.choiceIndex(len(seq))] }

func sample[T any](r *pyRandom, seq []T, k int) []T {
	out := make([]T, 0, k)
	for _, i := range r.sampleIndexes(len(seq), k) {
		out = append(out, seq[i])
	}
	return out
}
