//go:build 386 || amd64

package cpuid

// hasCPUID: every amd64 processor, and every 386 that Go supports
// (Pentium 4 and later), has the instruction.
const hasCPUID = true

// cpuid executes CPUID with EAX = leaf and ECX = sub (cpuid_amd64.s,
// cpuid_386.s).
func cpuid(leaf, sub uint32) (eax, ebx, ecx, edx uint32)
