package atomics

import (
	"os"
	"strconv"
	"strings"
)

// Cache lines.
//
// CacheLineSize is the padding granule, a constant per GOARCH with its
// reason beside it (cacheline_*.go), and Pad is that many bytes. On amd64 it
// is 128, not the 64-byte line: the adjacent-line prefetcher couples the
// two lines of a 128-byte pair, as crossbeam and Folly measured on hosts
// that expose it. The false-sharing benchmark (BenchmarkFalseSharing: two
// goroutines incrementing counters 8, 64, 128 and 256 bytes apart; figures
// in bench/results/atomics-amd64.txt) shows the same-line case several
// times slower, and cannot show the coupling on a guest whose host hides
// it. 128 costs 64 bytes per padded field on a handful of per-worker
// structures, while under-padding costs a multiple where the coupling
// exists. DetectedCacheLineSize reports the line the machine has,
// for reports; the tests check the compiled padding is never smaller.

// Pad is CacheLineSize bytes of padding. Put one between two fields written
// by different goroutines so that they never share a cache line (or, on
// amd64, a pair of lines the adjacent-line prefetcher fetches together):
//
//	type deque struct {
//		top    atomic.Uint64 // written by thieves
//		_      atomics.Pad
//		bottom atomic.Uint64 // written by the owner
//		_      atomics.Pad
//	}
//
// The pad does not align the struct; it guarantees distance. Two fields
// separated by a Pad are at least CacheLineSize bytes apart, so they cannot
// fall into the same aligned block of CacheLineSize bytes.
type Pad [CacheLineSize]byte

// coherencyLineSizePath is the sysfs file Linux exports the L1 data cache's
// coherency granule in. A variable so tests can point it at a fixture.
var coherencyLineSizePath = "/sys/devices/system/cpu/cpu0/cache/index0/coherency_line_size"

// Sources reported by DetectedCacheLineSize.
const (
	SourceSysfs    = "sysfs"    // Linux coherency_line_size of cpu0's first cache
	SourceCPUID    = "cpuid"    // the CPUID instruction's leaf 1 CLFLUSH size (x86 only)
	SourceFallback = "fallback" // nothing detected: the compiled CacheLineSize
)

// DetectedCacheLineSize reports the cache-line size of the machine the
// program runs on, and where the figure came from (SourceSysfs, SourceCPUID
// or SourceFallback). It is for reports and tests; the padding in this module
// uses the compile-time CacheLineSize, which is chosen per GOARCH to cover
// every part of the architecture and may be larger than the detected line on
// purpose.
//
// Order: Linux sysfs, then CPUID on x86 (other architectures have no
// trustworthy equivalent), then the compiled constant.
func DetectedCacheLineSize() (size int, source string) {
	if n, ok := readLineSize(coherencyLineSizePath); ok {
		return n, SourceSysfs
	}
	if n, ok := cpuidLineSize(); ok {
		return n, SourceCPUID
	}
	return CacheLineSize, SourceFallback
}

// readLineSize parses a sysfs size file. It accepts only a positive power of
// two no larger than 4096; anything else (missing file, garbage, 0 on some
// virtual machines) is "not detected".
func readLineSize(path string) (int, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	return validLineSize(strings.TrimSpace(string(b)))
}

func validLineSize(s string) (int, bool) {
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 || n > 4096 || n&(n-1) != 0 {
		return 0, false
	}
	return n, true
}
