package blitz

import "runtime"

// curGoid returns the calling goroutine's id, parsed from the first line of
// its stack trace ("goroutine 42 [running]:"). It costs microseconds (a
// traceback), so it is used only where that does not matter: once when a
// goroutine becomes a worker (Worker.run's start, and Worker.lend when a
// blocked caller lends its worker to a new goroutine), and in Pool.inTask,
// the slow-path check that Shutdown and Close make and that a submission
// waiting for room in a full queue makes (Pool.waitClaim).
func curGoid() uint64 {
	var buf [64]byte
	n := runtime.Stack(buf[:], false)
	const prefix = "goroutine "
	if n <= len(prefix) {
		return 0
	}
	var id uint64
	for _, c := range buf[len(prefix):n] {
		if c < '0' || c > '9' {
			break
		}
		id = id*10 + uint64(c-'0')
	}
	return id
}
