//go:build !race

package atomics

// SeqCstFence on arm64 is DMB ISH: nothing cheaper orders an earlier store
// before a later load (DMB ISHST orders store->store only, DMB ISHLD
// load->any only, and an acquire-release RMW orders accesses against
// itself). Why the deque still needs it where an STLR followed by an LDAR
// would do on hardware is in atomics_asm.go ("qemu is not arm64's memory
// model").

// SeqCstFence orders every earlier load and store against every later one:
// DMB ISH on arm64 (atomics_arm64.s), the only full barrier the architecture
// has.
func SeqCstFence()
