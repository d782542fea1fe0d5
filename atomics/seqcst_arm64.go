//go:build !race

package atomics

// SeqCstFence orders every earlier load and store against every later one:
// DMB ISH on arm64 (atomics_arm64.s), the only full barrier the architecture
// has.
func SeqCstFence()
