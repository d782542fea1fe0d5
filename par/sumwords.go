package par

import "unsafe"

// Sums of 64-bit integers. A piece of a Sum over int64, uint64, int, uint
// or uintptr elements (the last three where they are 64 bits wide) is
// summed by sumWords, which on amd64 is a loop in assembly over SSE2, the
// baseline of every amd64 CPU: eight running sums in four 128-bit
// registers, two elements per add. Go's compiler does not vectorise, and a
// loop of scalar adds issues four times the instructions: the SSE2 loop
// sums a slice in cache (10,000 elements) in 0.35 times the
// four-accumulator Go loop's time, and one streamed from memory (10M) in
// the same time, memory being the limit there (BenchmarkSumWords, count 8:
// 827 ns against 2,338; 4.05 ms against 3.97, p = 0.23).
// Elsewhere, and under the race detector (which does not see the memory an
// assembly function reads), sumWords is a Go loop with eight accumulators.
//
// Wrapping addition is associative and commutative, so every grouping
// gives the loop's answer, bit for bit: only integers take this path, and
// floating-point sums keep sumKernel's documented order.

// sumWordsKernel sums s through sumWords when E is a 64-bit integer type
// whose sum is a word sum (ok), and returns ok false otherwise. The type
// switch on E's zero value costs a few nanoseconds per piece, none per
// element, and allocates nothing.
func sumWordsKernel[E Number](s []E) (sum E, ok bool) {
	var z E
	if unsafe.Sizeof(z) != 8 {
		return sum, false
	}
	switch any(z).(type) {
	case int64, uint64, int, uint, uintptr:
	default:
		return sum, false
	}
	if len(s) == 0 {
		return sum, true
	}
	words := unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(s))), len(s))
	w := sumWords(words)
	return *(*E)(unsafe.Pointer(&w)), true
}

// sumWordsGo is the Go loop: eight accumulators over blocks of eight,
// each block resliced to its length so that its loads carry no bounds
// check, then the tail.
func sumWordsGo(s []uint64) uint64 {
	var a0, a1, a2, a3, a4, a5, a6, a7 uint64
	for len(s) >= 8 {
		b := s[:8:8]
		a0 += b[0]
		a1 += b[1]
		a2 += b[2]
		a3 += b[3]
		a4 += b[4]
		a5 += b[5]
		a6 += b[6]
		a7 += b[7]
		s = s[8:]
	}
	t := ((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7))
	for _, x := range s {
		t += x
	}
	return t
}
