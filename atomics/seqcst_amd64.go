//go:build !race

package atomics

import "sync/atomic"

// SeqCstFence is the full fence the hot paths use. On amd64 it is the
// cheapest full fence measured (see doc.go): a LOCK XADD on a stack local,
// written in Go so that it inlines into the caller and costs no CALL.
func SeqCstFence() {
	var x uint32
	atomic.AddUint32(&x, 0) // pairs with whatever the caller's protocol names
}
