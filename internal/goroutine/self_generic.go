//go:build !amd64 && !arm64

package goroutine

import "runtime"

// Self returns an identity of the calling goroutine. Other architectures
// have no assembly here: the identity is the goroutine's id, parsed from the
// first line of its stack trace ("goroutine 42 [running]:"), which costs a
// traceback (about a microsecond) instead of a register read. Ids are never
// reused, so the identity is exact here too.
func Self() ID {
	var buf [64]byte
	n := runtime.Stack(buf[:], false)
	const prefix = "goroutine "
	if n <= len(prefix) {
		return 0
	}
	var id uint64
	for _, c := range buf[len(prefix):n] {
		if c < '0' || c > '9' {
			break
		}
		id = id*10 + uint64(c-'0')
	}
	return ID(id)
}

// identityIsAddress says that identities are g addresses, which the runtime
// recycles; here they are goroutine ids, which it never reuses.
const identityIsAddress = false
