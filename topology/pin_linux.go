//go:build linux

package topology

import (
	"fmt"
	"runtime"

	"golang.org/x/sys/unix"
)

// PinSupported reports whether Pin can work on this system.
const PinSupported = true

// Pin binds the calling goroutine to cpu: it locks the goroutine to its OS
// thread (runtime.LockOSThread) and sets that thread's affinity to {cpu}
// (sched_setaffinity). The goroutine stays on that CPU until it calls unpin,
// which restores the thread's previous affinity and unlocks it; a worker that
// pins itself for its whole life need never call unpin: when a goroutine exits
// still locked, the runtime ends its thread, so the narrowed affinity never
// reaches another goroutine.
//
// unpin must be called on the goroutine that called Pin (it acts on that
// goroutine's thread); calling it again does nothing.
//
// On failure the goroutine is left as it was (unlocked, affinity unchanged)
// and the error wraps the kernel's errno: unix.EINVAL for a CPU that is
// offline, does not exist or is outside the cgroup's cpuset, unix.EPERM when a
// seccomp or security policy forbids it. A caller then runs unpinned and
// reports the reason.
//
// New OS threads the runtime starts later do not inherit the pinned mask: the
// runtime spawns threads from a clean template thread whenever the requesting
// thread is locked.
func Pin(cpu int) (unpin func(), err error) {
	var set unix.CPUSet
	if cpu < 0 || cpu >= affinityCPUs {
		return nil, fmt.Errorf("topology: pin to cpu %d: out of range [0, %d): %w", cpu, affinityCPUs, unix.EINVAL)
	}
	set.Set(cpu)
	runtime.LockOSThread()
	var old unix.CPUSet
	if err := unix.SchedGetaffinity(0, &old); err != nil {
		runtime.UnlockOSThread()
		return nil, fmt.Errorf("topology: pin to cpu %d: read affinity: %w", cpu, err)
	}
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		runtime.UnlockOSThread()
		return nil, fmt.Errorf("topology: pin to cpu %d: %w", cpu, err)
	}
	done := false
	return func() {
		if done {
			return
		}
		done = true
		if err := unix.SchedSetaffinity(0, &old); err != nil {
			// The old mask is gone (its cpuset shrank). Stay locked: the
			// thread dies with the goroutine instead of carrying a
			// one-CPU mask into the runtime's thread pool.
			return
		}
		runtime.UnlockOSThread()
	}, nil
}

// ThreadAffinity returns the affinity mask of the calling OS thread. It means
// something only on a goroutine locked to its thread (after Pin, or
// runtime.LockOSThread); otherwise the goroutine may move to another thread
// right after the call.
func ThreadAffinity() (CPUSet, error) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return CPUSet{}, fmt.Errorf("topology: sched_getaffinity: %w", err)
	}
	return fromUnix(&set), nil
}

// processAffinity returns the CPUs this process may use: the affinity mask
// of a thread that no pinned goroutine holds, read on a new goroutine. Pin
// narrows only the thread of a goroutine locked to it, a locked thread runs
// no other goroutine, and a pinned thread never returns to the runtime with
// its narrowed mask (unpin restores it before unlocking; a goroutine that
// exits pinned takes its thread with it). So the new goroutine's thread has
// the process's mask, whatever thread the caller is on, pinned or not
// (unless code other than Pin set thread affinities), and Pin keeps no
// record of the threads it narrowed: nothing outlives a pinned goroutine.
// It returns the empty set if sched_getaffinity fails (more than 1024
// possible CPUs, or a seccomp filter); DetectFrom then falls back to
// /proc/self/status.
func processAffinity() CPUSet {
	got := make(chan CPUSet, 1)
	go func() {
		var set unix.CPUSet
		if err := unix.SchedGetaffinity(0, &set); err != nil {
			got <- CPUSet{}
			return
		}
		got <- fromUnix(&set)
	}()
	return <-got
}
