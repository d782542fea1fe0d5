//go:build !race

package atomics

// SeqCstFence is the full fence the hot paths use: DMB ISH on arm64, the only
// full barrier the architecture has (see LockedFence).
func SeqCstFence() { FullFence() }
