//go:build !linux

package blitz

// processCPU and threadCPU are measured on Linux only.
func processCPU() (ns int64, ok bool) { return 0, false }
func threadCPU() (ns int64, ok bool)  { return 0, false }
