//go:build !linux

package topology

// PinSupported reports whether Pin can work on this system.
const PinSupported = false

// Pin returns ErrPinUnsupported: this system has no thread affinity call that
// this package uses (macOS offers only affinity hints, Windows a different
// API not wired up yet). The caller runs its workers unpinned.
func Pin(cpu int) (unpin func(), err error) { return nil, ErrPinUnsupported }

// ThreadAffinity returns ErrPinUnsupported on this system.
func ThreadAffinity() (CPUSet, error) { return CPUSet{}, ErrPinUnsupported }
