package cpuid

import (
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// leaves is a recorded processor: the registers CPUID answers per leaf and
// subleaf. Leaves it does not list answer zeros, as a leaf past the
// maximum does on AMD.
type leaves map[[2]uint32][4]uint32

func (l leaves) query(leaf, sub uint32) (a, b, c, d uint32) {
	r := l[[2]uint32{leaf, sub}]
	return r[0], r[1], r[2], r[3]
}

// str packs s (12 bytes) into the registers CPUID returns it in, least
// significant byte first.
func str(s string) (r [3]uint32) {
	for i := range 12 {
		if i < len(s) {
			r[i/4] |= uint32(s[i]) << (8 * (i % 4))
		}
	}
	return r
}

// cacheRegs encodes one deterministic cache parameter subleaf.
func cacheRegs(kind, level, ways, partitions, line, sets uint32) [4]uint32 {
	return [4]uint32{kind | level<<5, (ways-1)<<22 | (partitions-1)<<12 | (line - 1), sets - 1, 0}
}

func decoded(l leaves) Info {
	info := Info{L1D: -1, L1I: -1, L2: -1, L3: -1, Known: true}
	decode(&info, l.query)
	return info
}

// TestDecodeIntel decodes a made-up Intel part: family 6 with an extended
// model, caches from leaf 4, topology from leaf 0xB, no hypervisor.
func TestDecodeIntel(t *testing.T) {
	v := str("GenuineIntel")
	brand := func(s string) (r [4]uint32) { // 16 bytes of the brand string
		for i := range 16 {
			r[i/4] |= uint32(s[i]) << (8 * (i % 4))
		}
		return r
	}
	l := leaves{
		{0, 0}:          {0x16, v[0], v[2], v[1]},
		{0x80000000, 0}: {0x80000008},
		{0x80000002, 0}: brand("Intel(R) Xeon(R)"),
		{0x80000003, 0}: brand(" CPU      @ 2.0G"),
		{0x80000004, 0}: brand("Hz\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"),
		// family 6, extended model 5, model 5, stepping 4; CLFLUSH 8*8;
		// HTT; no hypervisor bit.
		{1, 0}:   {0x00050654, 8 << 8, 0, 1 << 28},
		{4, 0}:   cacheRegs(1, 1, 12, 1, 64, 64),   // L1d 48 KiB
		{4, 1}:   cacheRegs(2, 1, 8, 1, 64, 64),    // L1i 32 KiB
		{4, 2}:   cacheRegs(3, 2, 16, 1, 64, 2048), // L2 2 MiB
		{4, 3}:   cacheRegs(3, 3, 15, 1, 64, 65536),
		{0xb, 0}: {1, 2, 1 << 8, 0},  // SMT: 2 threads
		{0xb, 1}: {7, 56, 2 << 8, 0}, // core level: 56 logical
		// A hypervisor leaf that must not be read without the bit.
		{0x40000000, 0}: {0, 1, 2, 3},
	}
	got := decoded(l)
	assert.Equal(t, Info{
		Known: true, Vendor: "GenuineIntel", Brand: "Intel(R) Xeon(R) CPU      @ 2.0GHz",
		Family: 6, Model: 0x55, Stepping: 4,
		LogicalCores: 56, ThreadsPerCore: 2, PhysicalCores: 28,
		CacheLine: 64, L1D: 48 << 10, L1I: 32 << 10, L2: 2 << 20, L3: 60 << 20,
	}, got)
}

// TestDecodeAMD decodes made-up AMD parts: a Zen guest without leaf 0xB,
// caches from 0x8000001D, threads from 0x8000001E, under KVM; and an older
// part without TOPOEXT, whose caches come from 0x80000005/6.
func TestDecodeAMD(t *testing.T) {
	v := str("AuthenticAMD")
	hv := str("KVMKVMKVM")
	l := leaves{
		{0, 0}:          {0x10, v[0], v[2], v[1]},
		{0x80000000, 0}: {0x80000021},
		{0x80000001, 0}: {0, 0, 1 << 22, 0}, // TOPOEXT
		// family 0xf + 0xa = 25, model 1<<4 | 1 = 17, stepping 1; hypervisor.
		{1, 0}:          {0x00a10f11, 8<<8 | 16<<16, 1 << 31, 1 << 28},
		{0x8000001d, 0}: cacheRegs(1, 1, 8, 1, 64, 64),
		{0x8000001d, 1}: cacheRegs(2, 1, 8, 1, 64, 64),
		{0x8000001d, 2}: cacheRegs(3, 2, 8, 1, 64, 1024),
		{0x8000001d, 3}: cacheRegs(3, 3, 16, 1, 64, 32768),
		{0x8000001e, 0}: {0, 1 << 8, 0, 0}, // 2 threads per core
		{0x80000008, 0}: {0, 0, 7, 0},      // 8 logical
		{0x40000000, 0}: {0x40000001, hv[0], hv[1], hv[2]},
	}
	assert.Equal(t, Info{
		Known: true, Vendor: "AuthenticAMD", Family: 25, Model: 17, Stepping: 1,
		LogicalCores: 8, ThreadsPerCore: 2, PhysicalCores: 4,
		CacheLine: 64, L1D: 32 << 10, L1I: 32 << 10, L2: 512 << 10, L3: 32 << 20,
		Hypervisor: "KVMKVMKVM",
	}, decoded(l))

	// Without TOPOEXT: the legacy leaves (KiB, and 512 KiB units for L3).
	l[[2]uint32{0x80000001, 0}] = [4]uint32{}
	l[[2]uint32{0x80000005, 0}] = [4]uint32{0, 0, 64 << 24, 32 << 24}
	l[[2]uint32{0x80000006, 0}] = [4]uint32{0, 0, 512 << 16, 16 << 18}
	got := decoded(l)
	assert.Equal(t, [4]int{64 << 10, 32 << 10, 512 << 10, 8 << 20}, [4]int{got.L1D, got.L1I, got.L2, got.L3})
}

// TestDecodeBare decodes a processor with leaf 1 alone: no brand, no
// caches, one logical processor without HTT, the line from 0x80000006 when
// leaf 1 gives none.
func TestDecodeBare(t *testing.T) {
	v := str("CentaurHauls")
	l := leaves{
		{0, 0}:          {1, v[0], v[2], v[1]},
		{0x80000000, 0}: {0x80000006},
		{1, 0}:          {0x6f2, 0, 0, 0},
		{0x80000006, 0}: {0, 0, 64, 0},
	}
	assert.Equal(t, Info{
		Known: true, Vendor: "CentaurHauls", Family: 6, Model: 0xf, Stepping: 2,
		LogicalCores: 1, ThreadsPerCore: 1, PhysicalCores: 1, CacheLine: 64,
		L1D: -1, L1I: -1, L2: -1, L3: -1,
	}, decoded(l))
}

// TestRead checks the running processor's answer for consistency; the
// comparison with github.com/klauspost/cpuid/v2 is in cpuid_compare_test.go.
func TestRead(t *testing.T) {
	info := Read()
	x86 := runtime.GOARCH == "amd64" || runtime.GOARCH == "386"
	assert.Equal(t, x86, info.Known)
	if !x86 {
		assert.Equal(t, Info{L1D: -1, L1I: -1, L2: -1, L3: -1}, info)
		return
	}
	assert.NotEmpty(t, info.Vendor)
	assert.NotContains(t, info.Brand, "\x00")
	assert.Equal(t, strings.TrimSpace(info.Brand), info.Brand)
	assert.Positive(t, info.Family)
	assert.Positive(t, info.ThreadsPerCore)
	assert.GreaterOrEqual(t, info.LogicalCores, info.ThreadsPerCore)
	assert.Contains(t, []int{32, 64, 128, 256}, info.CacheLine)
}
