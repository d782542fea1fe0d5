package topology

import (
	"bufio"
	"bytes"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/blitz-go/blitz/internal/cpuid"
	"golang.org/x/sys/cpu"
)

// Identity describes the processor model of the running machine, as the
// CPUID instruction (on x86), /proc/cpuinfo (on Linux) and
// golang.org/x/sys/cpu report it. Sysfs says how CPUs are connected;
// Identity says what they are.
type Identity struct {
	Known  bool   // false when not detected (a fixture root, or nothing found)
	Arch   string // runtime.GOARCH
	Vendor string // CPUID's vendor string ("GenuineIntel", "AuthenticAMD"), or the arm64 implementer's name ("Arm Limited")
	Brand  string // CPUID's brand string, e.g. "Intel(R) Xeon(R) Processor" (x86 only)

	// Family, Model and Stepping as CPUID's leaf 1 encodes them; on arm64
	// the variant, part number and revision of /proc/cpuinfo.
	Family, Model, Stepping int

	// Counts as CPUID sees them, per package (0 if unknown; x86 only).
	// Under a hypervisor these describe the virtual CPU, not the host.
	PhysicalCores, LogicalCores, ThreadsPerCore int

	// CacheLine is the line size CPUID reports in bytes (leaf 1's CLFLUSH
	// size), 0 if unknown and off x86; sysfs's coherency_line_size
	// (Cache.LineSize) is the better source.
	CacheLine int
	// Cache sizes per CPUID in bytes, -1 if unknown (and off x86).
	L1D, L1I, L2, L3 int

	// Features lists the instruction-set features that matter to this
	// project (fences, atomics, vector widths), as x/sys/cpu detects them.
	Features []string

	// ModelName is /proc/cpuinfo's "model name" where the kernel gives
	// one, else Brand; empty if neither is known.
	ModelName string
	// Hypervisor names the hypervisor the machine runs under ("KVM",
	// "VMware", ...), "unknown" when the CPU says it is virtual but not
	// whose, and empty on bare metal (or an undetected hypervisor).
	Hypervisor string
	// Kernel is the operating system and its release ("linux 6.8.0-45"),
	// or just runtime.GOOS where the release is not readable.
	Kernel string
}

// HostIdentity returns the Identity of the running machine.
func HostIdentity() Identity {
	c := cpuid.Read()
	id := Identity{
		Arch:           runtime.GOARCH,
		Vendor:         c.Vendor,
		Brand:          c.Brand,
		Family:         c.Family,
		Model:          c.Model,
		Stepping:       c.Stepping,
		PhysicalCores:  c.PhysicalCores,
		LogicalCores:   c.LogicalCores,
		ThreadsPerCore: c.ThreadsPerCore,
		CacheLine:      c.CacheLine,
		L1D:            c.L1D,
		L1I:            c.L1I,
		L2:             c.L2,
		L3:             c.L3,
		Features:       hostFeatures(),
	}
	info, _ := os.ReadFile("/proc/cpuinfo")
	ci := parseCPUInfo(info, runtime.GOARCH)
	id.ModelName = ci.model
	if id.ModelName == "" {
		id.ModelName = strings.TrimSpace(id.Brand)
	}
	if ci.implementer != "" {
		id.Vendor = armImplementer(ci.implementer)
		id.Family, id.Model, id.Stepping = cpuinfoInt(ci.variant), cpuinfoInt(ci.part), cpuinfoInt(ci.revision)
	}
	id.Hypervisor = hypervisorName(c.Hypervisor, ci.hypervisor)
	id.Kernel = runtime.GOOS
	if rel, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil && len(bytes.TrimSpace(rel)) > 0 {
		id.Kernel += " " + string(bytes.TrimSpace(rel))
	}
	id.Known = id.Vendor != "" || id.Brand != "" || len(id.Features) > 0
	return id
}

// hostFeatures lists the relevant x/sys/cpu feature flags that are set. The
// lists are short on purpose: what decides fence, atomic and copy strategies.
func hostFeatures() []string {
	type flag struct {
		name string
		on   bool
	}
	var flags []flag
	switch runtime.GOARCH {
	case "amd64", "386":
		x := cpu.X86
		flags = []flag{
			{"sse2", x.HasSSE2}, {"sse4.2", x.HasSSE42}, {"popcnt", x.HasPOPCNT},
			{"cx16", x.HasCX16}, {"bmi2", x.HasBMI2}, {"erms", x.HasERMS},
			{"avx", x.HasAVX}, {"avx2", x.HasAVX2}, {"fma", x.HasFMA},
			{"avx512f", x.HasAVX512F}, {"avx512bw", x.HasAVX512BW}, {"avx512vl", x.HasAVX512VL},
		}
	case "arm64":
		a := cpu.ARM64
		flags = []flag{
			{"asimd", a.HasASIMD}, {"atomics(lse)", a.HasATOMICS}, {"lrcpc", a.HasLRCPC},
			{"crc32", a.HasCRC32}, {"aes", a.HasAES}, {"sha2", a.HasSHA2},
			{"sve", a.HasSVE}, {"sve2", a.HasSVE2}, {"cpuid", a.HasCPUID},
		}
	}
	var out []string
	for _, f := range flags {
		if f.on {
			out = append(out, f.name)
		}
	}
	return out
}

// cpuInfo is what parseCPUInfo reads from /proc/cpuinfo.
type cpuInfo struct {
	model string // the processor model (see parseCPUInfo)
	// hypervisor: the flags include "hypervisor" (the CPUID bit x86
	// guests see).
	hypervisor bool
	// The arm64 identification fields, as the kernel prints them
	// ("0x41", "0xd0c"); empty elsewhere.
	implementer, variant, part, revision string
}

// parseCPUInfo reads a /proc/cpuinfo text: the processor model, the first
// "model name" on x86; elsewhere the first "CPU implementer" and "CPU part"
// (arm64 kernels print no model name), with the other identification
// fields; and whether the flags include "hypervisor". An emulator such as
// qemu-user may show the host's file, so only the keys of the running arch
// are read.
func parseCPUInfo(text []byte, arch string) cpuInfo {
	x86 := arch == "amd64" || arch == "386"
	var ci cpuInfo
	sc := bufio.NewScanner(bytes.NewReader(text))
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	first := func(field *string, val string) {
		if *field == "" {
			*field = val
		}
	}
	for sc.Scan() {
		key, val, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		switch {
		case x86 && key == "model name":
			first(&ci.model, val)
		case x86 && key == "flags":
			ci.hypervisor = ci.hypervisor || slices.Contains(strings.Fields(val), "hypervisor")
		case !x86 && key == "CPU implementer":
			first(&ci.implementer, val)
		case !x86 && key == "CPU variant":
			first(&ci.variant, val)
		case !x86 && key == "CPU part":
			first(&ci.part, val)
		case !x86 && key == "CPU revision":
			first(&ci.revision, val)
		}
	}
	if !x86 && ci.implementer != "" {
		ci.model = "CPU implementer " + ci.implementer + " part " + ci.part
	}
	return ci
}

// cpuinfoInt parses a /proc/cpuinfo number ("0xd0c", "1"), 0 if it is none.
func cpuinfoInt(s string) int {
	n, err := strconv.ParseInt(s, 0, 32)
	if err != nil {
		return 0
	}
	return int(n)
}

// armImplementer names the implementer of an arm64 part from its MIDR code
// as /proc/cpuinfo prints it ("0x41"), or returns the code.
func armImplementer(code string) string {
	names := map[int]string{
		0x41: "Arm Limited", 0x42: "Broadcom Corporation", 0x43: "Cavium Inc",
		0x46: "Fujitsu Ltd", 0x48: "HiSilicon", 0x4e: "NVIDIA Corporation",
		0x50: "Applied Micro Circuits Corporation", 0x51: "Qualcomm Inc",
		0x53: "Samsung", 0x56: "Marvell International Ltd", 0x61: "Apple Inc",
		0x69: "Intel Corporation", 0x6d: "Microsoft", 0xc0: "Ampere Computing",
	}
	if name, ok := names[cpuinfoInt(code)]; ok {
		return name
	}
	return code
}

// hypervisorName names the hypervisor from the vendor string of CPUID's
// hypervisor leaf (vendor), else says "unknown" when /proc/cpuinfo flags
// the CPU as virtual, else "".
func hypervisorName(vendor string, virtualFlag bool) string {
	names := map[string]string{
		"KVMKVMKVM": "KVM", "Linux KVM Hv": "KVM", "Microsoft Hv": "Hyper-V",
		"VMwareVMware": "VMware", "XenVMMXenVMM": "Xen", "TCGTCGTCGTCG": "QEMU",
		"bhyve bhyve": "bhyve", "ACRNACRNACRN": "ACRN", "QNXQVMBSQG": "QNX",
		"Apple VZ": "Apple", "VBoxVBoxVBox": "VirtualBox", "lrpepyh  vr": "Parallels",
	}
	if name, ok := names[vendor]; ok {
		return name
	}
	if vendor != "" {
		return vendor
	}
	if virtualFlag {
		return "unknown"
	}
	return ""
}
