//go:build ppc64 || ppc64le

package atomics

// CacheLineSize is 128 bytes on POWER: POWER7 through POWER10 have 128-byte
// cache lines (golang.org/x/sys/cpu uses 128 for ppc64 and ppc64le).
const CacheLineSize = 128
