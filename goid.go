package blitz

import "runtime"

// curGoid returns the calling goroutine's id, parsed from the first line of
// its stack trace ("goroutine 42 [running]:"). It costs microseconds (a
// traceback), so it is used only where that does not matter: once when a
// worker goroutine starts, and in Close.
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
