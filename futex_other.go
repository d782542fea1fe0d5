//go:build !linux

package blitz

import (
	"fmt"
	"runtime"
)

// futexBackend fails off Linux: there is no futex to park on.
func futexBackend() (backend, error) {
	return backend{}, fmt.Errorf("blitz: futex parking needs Linux, this is %s/%s; use ParkingAuto (portable) or ParkingPortable", runtime.GOOS, runtime.GOARCH)
}
