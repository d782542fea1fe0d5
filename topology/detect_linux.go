//go:build linux

package topology

import (
	"os"

	"golang.org/x/sys/unix"
)

// Detect reads the running machine's topology from /sys, with the allowed
// set from sched_getaffinity (which already reflects cgroup cpusets) and the
// processor identity (HostIdentity). It never fails; see
// DetectFrom for what it reads and how it degrades.
func Detect() *Topology {
	t := DetectFrom(os.DirFS("/"), processAffinity())
	t.Source = "sysfs at /"
	t.Identity = HostIdentity()
	return t
}

// affinityCPUs is the number of CPUs a unix.CPUSet holds: glibc's
// CPU_SETSIZE, 1024 on every GOARCH (in 32 or 64-bit words).
const affinityCPUs = 1024

// fromUnix converts a unix.CPUSet.
func fromUnix(u *unix.CPUSet) CPUSet {
	var b setBuilder
	for c := 0; c < affinityCPUs; c++ {
		if u.IsSet(c) {
			b.add(c)
		}
	}
	return b.set()
}
