//go:build !linux

package blitz

// hasFutexToken: there is no futex parker off Linux.
func hasFutexToken(p any) (ok, known bool) { return false, false }
