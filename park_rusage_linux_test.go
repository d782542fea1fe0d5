//go:build linux

package blitz

import "syscall"

// rusageThread is Linux's RUSAGE_THREAD: the calling thread only.
const rusageThread = 1

// processCPU is the CPU time (user + system) the process consumed so far.
func processCPU() (ns int64, ok bool) { return rusageCPU(syscall.RUSAGE_SELF) }

// threadCPU is the CPU time the calling OS thread consumed so far.
func threadCPU() (ns int64, ok bool) { return rusageCPU(rusageThread) }

func rusageCPU(who int) (int64, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(who, &ru); err != nil {
		return 0, false
	}
	return ru.Utime.Nano() + ru.Stime.Nano(), true
}
