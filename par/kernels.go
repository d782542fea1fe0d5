package par

import "cmp"

// The loops that run inside one piece of the reductions without a user
// callback (Sum, Min, Max). A loop with one accumulator is one dependency
// chain: every add waits for the previous one (a floating-point add's
// latency is several cycles), so the piece runs at one element per
// latency whatever the machine's width. These loops keep four independent
// accumulators, element i going to accumulator i mod 4, and combine them at
// the end of the piece, so four adds are in flight at once.
//
// For integers that changes nothing in the result (wrapping addition is
// associative and commutative). For floats it changes the grouping inside a
// piece: ((a0 + a1) + (a2 + a3)) + the tail, where aj is the sum from the
// left of the elements j, j+4, j+8, ... of the piece; Sum's doc says so.
// min and max give the same answer in any grouping (NaN and signed zeros
// included), so Min and Max are exactly the loop's answer.

// sumKernel returns the sum of s with four accumulators; 0 for an empty s.
// A 64-bit integer type's sum goes through sumWordsKernel (sumwords.go).
func sumKernel[E Number](s []E) E {
	if t, ok := sumWordsKernel(s); ok {
		return t
	}
	return sumLoop(s)
}

// sumLoop is sumKernel's loop.
func sumLoop[E Number](s []E) E {
	var a0, a1, a2, a3 E
	i := 0
	for ; i+4 <= len(s); i += 4 {
		a0 += s[i]
		a1 += s[i+1]
		a2 += s[i+2]
		a3 += s[i+3]
	}
	t := (a0 + a1) + (a2 + a3)
	for _, x := range s[i:] {
		t += x
	}
	return t
}

// minKernel returns the minimum of s, which is not empty, by the built-in
// min, with four accumulators.
func minKernel[E cmp.Ordered](s []E) E {
	a0, a1, a2, a3 := s[0], s[0], s[0], s[0]
	i := 1
	for ; i+4 <= len(s); i += 4 {
		a0 = min(a0, s[i])
		a1 = min(a1, s[i+1])
		a2 = min(a2, s[i+2])
		a3 = min(a3, s[i+3])
	}
	m := min(min(a0, a1), min(a2, a3))
	for _, x := range s[i:] {
		m = min(m, x)
	}
	return m
}

// maxKernel is minKernel with the built-in max.
func maxKernel[E cmp.Ordered](s []E) E {
	a0, a1, a2, a3 := s[0], s[0], s[0], s[0]
	i := 1
	for ; i+4 <= len(s); i += 4 {
		a0 = max(a0, s[i])
		a1 = max(a1, s[i+1])
		a2 = max(a2, s[i+2])
		a3 = max(a3, s[i+3])
	}
	m := max(max(a0, a1), max(a2, a3))
	for _, x := range s[i:] {
		m = max(m, x)
	}
	return m
}
