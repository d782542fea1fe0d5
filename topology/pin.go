package topology

import (
	"errors"
	"fmt"
)

// ErrPinUnsupported is returned by Pin and ThreadAffinity where the system
// offers no way to bind a thread to a CPU (everywhere but Linux). It wraps
// errors.ErrUnsupported.
var ErrPinUnsupported = fmt.Errorf("topology: pinning threads to CPUs is not supported on this system: %w", errors.ErrUnsupported)

// The platform files provide:
//
//	func Pin(cpu int) (unpin func(), err error)
//	func ThreadAffinity() (CPUSet, error)
//	const PinSupported bool
