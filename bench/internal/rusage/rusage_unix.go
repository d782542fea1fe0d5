//go:build unix

package rusage

import (
	"runtime"
	"syscall"
	"time"
)

// Read returns the process's resource usage (getrusage RUSAGE_SELF).
func Read() Usage {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return Usage{}
	}
	maxRSS := int64(ru.Maxrss) * 1024 // kilobytes on Linux and the BSDs
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		maxRSS = int64(ru.Maxrss) // bytes there
	}
	return Usage{
		OK:     true,
		CPU:    time.Duration(syscall.TimevalToNsec(ru.Utime) + syscall.TimevalToNsec(ru.Stime)),
		VCSW:   int64(ru.Nvcsw),
		IVCSW:  int64(ru.Nivcsw),
		MaxRSS: maxRSS,
	}
}
