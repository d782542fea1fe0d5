//go:build !386 && !amd64

package atomics

// cpuidLineSize: there is no trustworthy CPUID-style source off x86 (a
// library that reports 64 on arm64 hard-codes it, where Apple and several
// server cores use 128-byte lines), so nothing is detected here.
func cpuidLineSize() (int, bool) { return 0, false }
