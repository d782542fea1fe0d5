package topology

import (
	"bufio"
	"bytes"
	"os"
	"runtime"
	"slices"
	"strings"

	"github.com/klauspost/cpuid/v2"
	"golang.org/x/sys/cpu"
)

// Identity describes the processor model of the running machine, as
// github.com/klauspost/cpuid/v2 and golang.org/x/sys/cpu report it. Sysfs
// says how CPUs are connected; Identity says what they are.
type Identity struct {
	Known  bool   // false when not detected (a fixture root, or cpuid found nothing)
	Arch   string // runtime.GOARCH
	Vendor string // cpuid vendor string, e.g. "GenuineIntel", "AuthenticAMD", "ARM"
	Brand  string // cpuid brand name, e.g. "Intel(R) Xeon(R) Processor"

	Family, Model, Stepping int

	// Counts as cpuid sees them (0 if unknown). Under a hypervisor these
	// describe the virtual CPU, not the host.
	PhysicalCores, LogicalCores, ThreadsPerCore int

	// CacheLine is cpuid's cache line size in bytes (0 if unknown).
	// cpuid/v2 hard-codes 64 on arm64: do not trust it there; sysfs's
	// coherency_line_size (Cache.LineSize) is the better source.
	CacheLine int
	// Cache sizes per cpuid in bytes, -1 if unknown.
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
	c := cpuid.CPU
	id := Identity{
		Arch:           runtime.GOARCH,
		Vendor:         c.VendorString,
		Brand:          c.BrandName,
		Family:         c.Family,
		Model:          c.Model,
		Stepping:       c.Stepping,
		PhysicalCores:  c.PhysicalCores,
		LogicalCores:   c.LogicalCores,
		ThreadsPerCore: c.ThreadsPerCore,
		CacheLine:      c.CacheLine,
		L1D:            c.Cache.L1D,
		L1I:            c.Cache.L1I,
		L2:             c.Cache.L2,
		L3:             c.Cache.L3,
		Features:       hostFeatures(),
	}
	if id.Vendor == "" && c.VendorID != cpuid.VendorUnknown {
		id.Vendor = c.VendorID.String()
	}
	info, _ := os.ReadFile("/proc/cpuinfo")
	model, virtualFlag := parseCPUInfo(info, runtime.GOARCH)
	id.ModelName = model
	if id.ModelName == "" {
		id.ModelName = strings.TrimSpace(id.Brand)
	}
	id.Hypervisor = hypervisorName(c, virtualFlag)
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

// parseCPUInfo returns the processor model of a /proc/cpuinfo text and
// whether its flags include "hypervisor" (the CPUID bit x86 guests see).
// The model is the first "model name" on x86; elsewhere the first "CPU
// implementer" and "CPU part" (arm64 kernels print no model name). An
// emulator such as qemu-user may show the host's file, so only the keys of
// the running arch are read.
func parseCPUInfo(text []byte, arch string) (model string, hypervisor bool) {
	x86 := arch == "amd64" || arch == "386"
	var implementer, part string
	sc := bufio.NewScanner(bytes.NewReader(text))
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		key, val, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		switch {
		case x86 && key == "model name" && model == "":
			model = val
		case x86 && key == "flags":
			hypervisor = hypervisor || slices.Contains(strings.Fields(val), "hypervisor")
		case !x86 && key == "CPU implementer" && implementer == "":
			implementer = val
		case !x86 && key == "CPU part" && part == "":
			part = val
		}
	}
	if !x86 && implementer != "" {
		model = "CPU implementer " + implementer + " part " + part
	}
	return model, hypervisor
}

// hypervisorName names the hypervisor from cpuid's vendor leaf, else says
// "unknown" when /proc/cpuinfo flags the CPU as virtual, else "".
func hypervisorName(c cpuid.CPUInfo, virtualFlag bool) string {
	if c.HypervisorVendorID != cpuid.VendorUnknown {
		return c.HypervisorVendorID.String()
	}
	if v := strings.TrimSpace(strings.Trim(c.HypervisorVendorString, "\x00")); v != "" {
		return v
	}
	if virtualFlag {
		return "unknown"
	}
	return ""
}
