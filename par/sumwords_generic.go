//go:build !amd64 || race || purego

package par

// sumWords returns the wrapping sum of s (the Go loop: sumwords.go says
// where the assembly one runs instead).
func sumWords(s []uint64) uint64 { return sumWordsGo(s) }
