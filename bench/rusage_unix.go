//go:build unix

package main

import (
	"runtime"
	"syscall"
	"time"
)

// readUsage returns the process's resource usage (getrusage RUSAGE_SELF).
func readUsage() usage {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return usage{}
	}
	maxRSS := int64(ru.Maxrss) * 1024 // kilobytes on Linux and the BSDs
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		maxRSS = int64(ru.Maxrss) // bytes there
	}
	return usage{
		ok:     true,
		cpu:    time.Duration(syscall.TimevalToNsec(ru.Utime) + syscall.TimevalToNsec(ru.Stime)),
		nvcsw:  int64(ru.Nvcsw),
		nivcsw: int64(ru.Nivcsw),
		maxRSS: maxRSS,
	}
}
