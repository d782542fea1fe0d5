// Package cpuid reads what the x86 CPUID instruction says about the
// processor: its vendor, brand and model, its cache line and caches, and the
// logical processors per core and per package; and the vendor of the
// hypervisor it runs under. Package topology reports it (Identity) and
// package atomics takes the cache line from it.
//
// It replaces github.com/klauspost/cpuid/v2 in the library's import graph:
// that package detects several hundred features at init and registers
// command-line flags, which linked package flag and about 0.2 MB into every
// program that imports the pool, for the dozen fields read here. Its tests
// check this package against it.
//
// Off x86 there is no CPUID: Read returns an Info with Known false.
package cpuid

import "strings"

// Info is what CPUID reports. Sizes are in bytes; -1 means unknown, and 0
// for a count or the line size.
type Info struct {
	// Known is true on x86, where CPUID answered.
	Known bool

	// Vendor is the vendor string of leaf 0 ("GenuineIntel",
	// "AuthenticAMD"); Brand the brand string of leaves
	// 0x80000002-0x80000004, trimmed ("" if the CPU has none).
	Vendor, Brand string

	// Family, Model and Stepping as leaf 1 encodes them, the extended
	// family and model folded in.
	Family, Model, Stepping int

	// LogicalCores are the logical processors of one package,
	// ThreadsPerCore those of one core, PhysicalCores their quotient
	// (0 when unknown). Under a hypervisor they describe the virtual
	// CPU.
	LogicalCores, ThreadsPerCore, PhysicalCores int

	// CacheLine is the line size: leaf 1's CLFLUSH size, else the L2's
	// line of leaf 0x80000006.
	CacheLine int

	// L1D, L1I, L2 and L3 are the sizes of one cache of each kind, from
	// the deterministic cache parameters (leaf 4 on Intel, 0x8000001D on
	// AMD), else AMD's older leaves 0x80000005 and 0x80000006.
	L1D, L1I, L2, L3 int

	// Hypervisor is the vendor string of leaf 0x40000000 ("KVMKVMKVM",
	// "Microsoft Hv"), trimmed of NULs and spaces, when leaf 1 says a
	// hypervisor is present; else "".
	Hypervisor string
}

// Read queries the processor. Each call executes CPUID again (a few
// dozen times): callers keep the result.
func Read() Info {
	info := Info{L1D: -1, L1I: -1, L2: -1, L3: -1}
	if !hasCPUID {
		return info
	}
	info.Known = true
	decode(&info, cpuid)
	return info
}

// A query executes CPUID with EAX = leaf and ECX = sub, and returns the four
// registers. Tests pass recorded answers.
type query func(leaf, sub uint32) (eax, ebx, ecx, edx uint32)

// decode fills info from the answers of q.
func decode(info *Info, q query) {
	maxLeaf, b, c, d := q(0, 0)
	info.Vendor = regString(b, d, c)
	maxExt, _, _, _ := q(0x80000000, 0)
	if maxExt < 0x80000000 {
		maxExt = 0 // no extended leaves
	}
	amd := info.Vendor == "AuthenticAMD" || info.Vendor == "HygonGenuine"

	if maxExt >= 0x80000004 {
		var regs []uint32
		for l := uint32(0x80000002); l <= 0x80000004; l++ {
			a, b, c, d := q(l, 0)
			regs = append(regs, a, b, c, d)
		}
		info.Brand = regString(regs...)
	}

	var leaf1B, leaf1C, leaf1D uint32
	if maxLeaf >= 1 {
		var a uint32
		a, leaf1B, leaf1C, leaf1D = q(1, 0)
		base := int(a>>8) & 0xf
		info.Family = base
		info.Model = int(a>>4) & 0xf
		if base == 0xf {
			info.Family += int(a>>20) & 0xff
		}
		if base == 0x6 || base == 0xf {
			info.Model += int(a>>12) & 0xf0
		}
		info.Stepping = int(a) & 0xf
		info.CacheLine = int(leaf1B>>8&0xff) * 8
	}
	if info.CacheLine == 0 && maxExt >= 0x80000006 {
		_, _, c, _ := q(0x80000006, 0)
		info.CacheLine = int(c & 0xff)
	}

	// Caches: the deterministic parameters, one subleaf per cache.
	cacheLeaf := uint32(0)
	switch {
	case !amd && maxLeaf >= 4:
		cacheLeaf = 4
	case amd && maxExt >= 0x8000001d:
		if _, _, c, _ := q(0x80000001, 0); c&(1<<22) != 0 { // TOPOEXT
			cacheLeaf = 0x8000001d
		}
	}
	if cacheLeaf != 0 {
		// A bounded number of subleaves: some hypervisors answer the
		// same cache for every one.
		for sub := range uint32(16) {
			a, b, c, _ := q(cacheLeaf, sub)
			kind := a & 0x1f // 1 data, 2 instruction, 3 unified, 0 no more
			if kind == 0 {
				break
			}
			size := int(b>>22&0x3ff+1) * int(b>>12&0x3ff+1) * int(b&0xfff+1) * int(c+1)
			switch level := a >> 5 & 7; {
			case level == 1 && kind == 1:
				info.L1D = size
			case level == 1 && kind == 2:
				info.L1I = size
			case level == 1:
				info.L1D, info.L1I = size, size
			case level == 2:
				info.L2 = size
			case level == 3:
				info.L3 = size
			}
		}
	} else if amd && maxExt >= 0x80000005 {
		_, _, c, d := q(0x80000005, 0)
		info.L1D, info.L1I = int(c>>24)<<10, int(d>>24)<<10
		if maxExt >= 0x80000006 {
			_, _, c, d := q(0x80000006, 0)
			info.L2 = int(c>>16) << 10
			if l3 := int(d>>18) * 512 << 10; l3 > 0 {
				info.L3 = l3
			}
		}
	}

	// Logical processors per core and per package: the extended topology
	// leaf, where it describes an SMT level and a core level.
	if maxLeaf >= 0xb {
		_, smtB, smtC, _ := q(0xb, 0)
		_, coreB, coreC, _ := q(0xb, 1)
		if smtC>>8&0xff == 1 && coreC>>8&0xff == 2 && smtB&0xffff != 0 {
			info.ThreadsPerCore = int(smtB & 0xffff)
			info.LogicalCores = int(coreB & 0xffff)
		}
	}
	if info.ThreadsPerCore == 0 {
		switch {
		case amd && info.Family >= 0x17 && maxExt >= 0x8000001e:
			_, b, _, _ := q(0x8000001e, 0)
			info.ThreadsPerCore = int(b>>8&0xff) + 1
		case leaf1D&(1<<28) == 0: // no HTT: one logical processor
			info.ThreadsPerCore = 1
		}
		switch {
		case amd && maxExt >= 0x80000008:
			_, _, c, _ := q(0x80000008, 0)
			info.LogicalCores = int(c&0xff) + 1
		case leaf1D&(1<<28) != 0:
			info.LogicalCores = int(leaf1B >> 16 & 0xff)
		default:
			info.LogicalCores = 1
		}
		if info.ThreadsPerCore == 0 {
			info.ThreadsPerCore = 1
		}
	}
	if info.ThreadsPerCore > 0 {
		info.PhysicalCores = info.LogicalCores / info.ThreadsPerCore
	}

	if leaf1C&(1<<31) != 0 { // a hypervisor is present
		_, b, c, d := q(0x40000000, 0)
		info.Hypervisor = regString(b, c, d)
	}
}

// regString is the text the registers hold, four bytes each, least
// significant first, trimmed of NULs and spaces.
func regString(regs ...uint32) string {
	b := make([]byte, 0, 4*len(regs))
	for _, r := range regs {
		b = append(b, byte(r), byte(r>>8), byte(r>>16), byte(r>>24))
	}
	return strings.Trim(string(b), "\x00 ")
}
