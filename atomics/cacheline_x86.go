//go:build 386 || amd64

package atomics

import (
	"strconv"

	"github.com/klauspost/cpuid/v2"
)

// cpuidLineSize reads the line size CPUID reports (leaf 1 CLFLUSH size or the
// cache descriptors, as decoded by cpuid/v2).
func cpuidLineSize() (int, bool) {
	return validLineSize(strconv.Itoa(cpuid.CPU.CacheLine))
}
