//go:build !race && !purego

package par

// sumWordsSSE2 returns the wrapping sum of the n words from p; n is a
// positive multiple of 8 (sumwords_amd64.s).
//
//go:noescape
func sumWordsSSE2(p *uint64, n int) uint64

// sumWords returns the wrapping sum of s: the assembly loop over its
// multiple of eight, then the rest.
func sumWords(s []uint64) uint64 {
	n := len(s) &^ 7
	var t uint64
	if n > 0 {
		t = sumWordsSSE2(&s[0], n)
	}
	for _, x := range s[n:] {
		t += x
	}
	return t
}
