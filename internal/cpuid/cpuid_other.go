//go:build !386 && !amd64

package cpuid

const hasCPUID = false

func cpuid(leaf, sub uint32) (eax, ebx, ecx, edx uint32) { return 0, 0, 0, 0 }
