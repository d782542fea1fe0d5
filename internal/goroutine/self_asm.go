//go:build amd64 || arm64

package goroutine

// self returns the address of the calling goroutine's g, the runtime's
// descriptor of the goroutine (self_amd64.s, self_arm64.s).
//
//go:noescape
func self() uintptr

// Self returns an identity of the calling goroutine: the address of its g.
// See the package documentation for why that is exact among live goroutines.
func Self() ID { return ID(self()) }

// identityIsAddress says that identities are g addresses, which the runtime
// recycles (the tests check that they were).
const identityIsAddress = true
