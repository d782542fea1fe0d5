package report

import (
	"fmt"
	"strings"
)

// Machine describes where a report was measured: figures from different
// machines are not comparable, so every report, JSON file and raw file
// starts with it. Package runner fills it in from package topology
// (Identity and the sysfs topology), the Go runtime and the build.
type Machine struct {
	GOOS       string   `json:"goos"`
	GOARCH     string   `json:"goarch"`
	ArchLevel  string   `json:"arch_level,omitempty"` // GOAMD64=v1, GOARM64=v8.0, ... as built
	GoVersion  string   `json:"go_version"`
	Commit     string   `json:"commit"` // the measured tree's commit, "unknown" if not known
	NumCPU     int      `json:"num_cpu"`
	GOMAXPROCS int      `json:"gomaxprocs"`
	Allowed    int      `json:"allowed_cpus"` // CPUs this process may run on
	CPUModel   string   `json:"cpu_model"`
	Vendor     string   `json:"vendor,omitempty"`
	Features   []string `json:"features"`
	Caches     []string `json:"caches"` // "L1d 48KiB x2": level, size, instances
	CacheLine  int      `json:"cache_line,omitempty"`
	Packages   int      `json:"packages"`
	Cores      int      `json:"cores"`
	SMT        int      `json:"smt"` // hardware threads per core
	NUMANodes  int      `json:"numa_nodes"`
	Hypervisor string   `json:"hypervisor,omitempty"`
	Kernel     string   `json:"kernel"`
}

// String is the one-line description printed at the top of a report.
func (m Machine) String() string {
	virt := "bare metal or undetected hypervisor"
	if m.Hypervisor != "" {
		virt = "hypervisor " + m.Hypervisor
	}
	level := ""
	if m.ArchLevel != "" {
		level = " " + m.ArchLevel
	}
	return fmt.Sprintf("%s/%s%s, %d CPUs (%d allowed, GOMAXPROCS=%d; %d cores, SMT %d, %d NUMA node(s)), %s, %s, %s, %s, commit %s",
		m.GOOS, m.GOARCH, level, m.NumCPU, m.Allowed, m.GOMAXPROCS, m.Cores, m.SMT, m.NUMANodes, m.CPUModel, virt, m.Kernel, m.GoVersion, m.Commit)
}

// Details is the rest of the identity, for the report's header.
func (m Machine) Details() string {
	return fmt.Sprintf("features: %s; caches: %s; cache line %d", strings.Join(m.Features, " "), strings.Join(m.Caches, ", "), m.CacheLine)
}
