//go:build linux

package topology

import (
	"os"

	"golang.org/x/sys/unix"
)

// Detect reads the running machine's topology from /sys, with the allowed
// set from sched_getaffinity (which already reflects cgroup cpusets) and the
// processor identity from cpuid/v2 and x/sys/cpu. It never fails; see
// DetectFrom for what it reads and how it degrades.
func Detect() *Topology {
	t := DetectFrom(os.DirFS("/"), processAffinity())
	t.Identity = HostIdentity()
	return t
}

// processAffinity returns the calling thread's affinity mask, or the empty set
// if sched_getaffinity fails (more than 1024 possible CPUs, or a seccomp
// filter); DetectFrom then falls back to /proc/self/status.
//
// Every thread of a Go process starts with the process's mask unless some code
// changed its own; Pin changes only locked threads and restores them.
func processAffinity() CPUSet {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return CPUSet{}
	}
	return fromUnix(&set)
}

// fromUnix converts a unix.CPUSet.
func fromUnix(u *unix.CPUSet) CPUSet {
	var b setBuilder
	for c := 0; c < len(u)*64; c++ {
		if u.IsSet(c) {
			b.add(c)
		}
	}
	return b.set()
}
