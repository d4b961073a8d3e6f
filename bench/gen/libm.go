package main

import "math"

// Python's random draws go through the C library's exp and log, which
// (glibc's, and every other serious one) return the correctly rounded
// result, while Go's math.Exp and math.Log may be off by one unit in the
// last place: enough to shift a timestamp by a nanosecond, or a sample by
// one loop. So exp and log here compute in double-double arithmetic
// (about 106 bits) and round once to float64.

// dd is an unevaluated sum hi+lo with |lo| at most half an ulp of hi.
type dd struct{ hi, lo float64 }

func twoSum(a, b float64) dd {
	s := a + b
	bb := s - a
	return dd{s, (a - (s - bb)) + (b - bb)}
}

func quickTwoSum(a, b float64) dd {
	s := a + b
	return dd{s, b - (s - a)}
}

func twoProd(a, b float64) dd {
	p := a * b
	return dd{p, math.FMA(a, b, -p)}
}

func (a dd) add(b dd) dd {
	s := twoSum(a.hi, b.hi)
	t := twoSum(a.lo, b.lo)
	s = quickTwoSum(s.hi, s.lo+t.hi)
	return quickTwoSum(s.hi, s.lo+t.lo)
}

func (a dd) neg() dd { return dd{-a.hi, -a.lo} }

func (a dd) sub(b dd) dd { return a.add(b.neg()) }

func (a dd) mul(b dd) dd {
	p := twoProd(a.hi, b.hi)
	p.lo += a.hi*b.lo + a.lo*b.hi
	return quickTwoSum(p.hi, p.lo)
}

func (a dd) div(b dd) dd {
	q1 := a.hi / b.hi
	r := a.sub(b.mul(dd{q1, 0}))
	q2 := r.hi / b.hi
	r = r.sub(b.mul(dd{q2, 0}))
	q3 := r.hi / b.hi
	q := quickTwoSum(q1, q2)
	return q.add(dd{q3, 0})
}

func (a dd) scale(k int) dd { return dd{math.Ldexp(a.hi, k), math.Ldexp(a.lo, k)} }

// ln2 to 106 bits.
var ln2 = dd{0x1.62e42fefa39efp-1, 0x1.abc9e3b39803fp-56}

// invFact[k] is 1/k! to 106 bits, for k up to 12.
var invFact = func() [13]dd {
	var f [13]dd
	f[0] = dd{1, 0}
	for k := 1; k < len(f); k++ {
		f[k] = f[k-1].div(dd{float64(k), 0})
	}
	return f
}()

// expm1dd is e^x - 1 for |x| up to about 0.35, to about 100 bits relative
// to the result: the Taylor series of e^s - 1 for s = x/256, then eight
// doublings (e^2s - 1 = t(t+2)).
func expm1dd(x dd) dd {
	s := x.scale(-8)
	// Horner: s(1 + s/2(1 + s/3(...))) as sum of s^k/k!.
	t := invFact[12]
	for k := 11; k >= 1; k-- {
		t = t.mul(s).add(invFact[k])
	}
	t = t.mul(s)
	two := dd{2, 0}
	for range 8 {
		t = t.mul(t.add(two))
	}
	return t
}

// pyExp is exp(x) correctly rounded.
func pyExp(x float64) float64 {
	if math.IsNaN(x) || x > 700 || x < -700 {
		return math.Exp(x)
	}
	k := math.Round(x / ln2.hi)
	// r = x - k*ln2, exactly enough: k*ln2.hi and k*ln2.lo as exact products.
	r := dd{x, 0}.sub(twoProd(k, ln2.hi)).sub(twoProd(k, ln2.lo))
	e := expm1dd(r).add(dd{1, 0}).scale(int(k))
	return e.hi + e.lo
}

// pyLog is log(x) correctly rounded, for x > 0.
func pyLog(x float64) float64 {
	if !(x > 0) || math.IsInf(x, 1) {
		return math.Log(x)
	}
	m, e := math.Frexp(x)
	if m < math.Sqrt2/2 {
		m *= 2
		e--
	}
	// One Newton step from Go's log, y = y0 + (m - e^y0)/e^y0, with
	// m - e^y0 as (m-1) - (e^y0 - 1): m-1 is exact, and both stay
	// accurate relative to log m when m is near 1.
	y0 := math.Log(m)
	em1 := expm1dd(dd{y0, 0})
	d := dd{m - 1, 0}.sub(em1).div(em1.add(dd{1, 0}))
	y := dd{y0, 0}.add(d)
	if e != 0 {
		y = twoProd(float64(e), ln2.hi).add(twoProd(float64(e), ln2.lo)).add(y)
	}
	return y.hi + y.lo
}
