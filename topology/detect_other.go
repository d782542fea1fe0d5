//go:build !linux

package topology

import (
	"fmt"
	"runtime"
)

// # Detection outside Linux
//
// On other systems Detect returns Flat(runtime.NumCPU()): every CPU its own
// core in one package of unknown id, no caches, no NUMA, and a reason.

// Detect returns a flat topology on systems other than Linux: runtime.NumCPU
// CPUs, each its own core in one unknown package, with no cache sharing or
// NUMA information, and the processor identity (HostIdentity).
// Topology.Degraded says why.
func Detect() *Topology {
	t := Flat(runtime.NumCPU(), fmt.Sprintf("no topology source on %s: flat topology of runtime.NumCPU() CPUs", runtime.GOOS))
	t.Identity = HostIdentity()
	return t
}
