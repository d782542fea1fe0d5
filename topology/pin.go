package topology

import (
	"errors"
	"fmt"
)

// # Pinning
//
// A worker calls Pin(cpu) at its start: runtime.LockOSThread, then
// sched_setaffinity(0, {cpu}) on that thread, for the goroutine's whole life.
// When a goroutine returns still locked, the runtime ends its thread (or, for
// the main thread, parks it for good), so the narrowed mask never reaches
// another goroutine; the unpin function restores
// the old mask and unlocks, for callers that pin for a while only. New
// threads are spawned from the runtime's template thread when the requesting
// thread is locked, so they do not inherit the mask either. Failures (EINVAL
// for an offline CPU or one outside the cpuset, EPERM under seccomp or a
// security policy) return an error and leave the thread untouched: the pool
// runs that worker unpinned and reports the reason in its stats. Outside
// Linux, Pin returns ErrPinUnsupported.

// ErrPinUnsupported is returned by Pin and ThreadAffinity where the system
// offers no way to bind a thread to a CPU (everywhere but Linux). It wraps
// errors.ErrUnsupported.
var ErrPinUnsupported = fmt.Errorf("topology: pinning threads to CPUs is not supported on this system: %w", errors.ErrUnsupported)

// The platform files provide:
//
//	func Pin(cpu int) (unpin func(), err error)
//	func ThreadAffinity() (CPUSet, error)
//	const PinSupported bool
