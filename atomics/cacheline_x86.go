//go:build 386 || amd64

package atomics

import (
	"strconv"

	"github.com/blitz-go/blitz/internal/cpuid"
)

// cpuidLineSize reads the line size CPUID reports (leaf 1's CLFLUSH size,
// else the L2's line of leaf 0x80000006: internal/cpuid).
func cpuidLineSize() (int, bool) {
	return validLineSize(strconv.Itoa(cpuid.Read().CacheLine))
}
