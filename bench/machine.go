package main

import (
	"fmt"
	"os/exec"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/blitz-go/blitz/topology"
)

// Machine describes where a report was measured: figures from different
// machines are not comparable, so every report, JSON file and raw file
// starts with this. The processor and its topology come from package
// topology (Identity and the sysfs topology); the rest from the Go runtime
// and the build.
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

// buildCommit is the commit the binary was built from, set with
// -ldflags "-X main.buildCommit=..." when cross-building (see README).
var buildCommit string

// DetectMachine describes the running machine.
func DetectMachine() Machine {
	t := topology.Detect()
	id := t.Identity
	m := Machine{
		GOOS:       runtime.GOOS,
		GOARCH:     runtime.GOARCH,
		GoVersion:  runtime.Version(),
		NumCPU:     runtime.NumCPU(),
		GOMAXPROCS: runtime.GOMAXPROCS(0),
		Allowed:    t.Allowed.Len(),
		CPUModel:   id.ModelName,
		Vendor:     id.Vendor,
		Features:   slices.Clone(id.Features),
		CacheLine:  id.CacheLine,
		Packages:   len(t.Packages),
		Cores:      len(t.Cores),
		NUMANodes:  len(t.Nodes),
		Hypervisor: id.Hypervisor,
		Kernel:     id.Kernel,
		Commit:     commit(),
	}
	if m.CPUModel == "" {
		m.CPUModel = "unknown"
	}
	if m.Features == nil {
		m.Features = []string{}
	}
	if m.NUMANodes == 0 {
		m.NUMANodes = 1
	}
	for _, c := range t.Cores {
		m.SMT = max(m.SMT, c.CPUs.Len())
	}
	if m.SMT == 0 {
		m.SMT = max(id.ThreadsPerCore, 1)
	}
	m.Caches = cacheSummary(t)
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if strings.HasPrefix(s.Key, "GO"+strings.ToUpper(runtime.GOARCH)) { // GOAMD64, GOARM64, GO386, GOARM
				m.ArchLevel = s.Key + "=" + s.Value
			}
		}
	}
	return m
}

// cacheSummary lists each cache level and type with its size and how many
// instances sysfs shows ("L2 1MiB x2"), or cpuid's sizes when sysfs has
// none.
func cacheSummary(t *topology.Topology) []string {
	type key struct {
		name string
		size int64
	}
	count := map[key]int{}
	var order []key
	for _, c := range t.Caches {
		k := key{c.Name(), c.Size}
		if count[k] == 0 {
			order = append(order, k)
		}
		count[k]++
	}
	var out []string
	for _, k := range order {
		out = append(out, fmt.Sprintf("%s %s x%d", k.name, fmtBytes(k.size), count[k]))
	}
	if len(out) == 0 {
		id := t.Identity
		for _, c := range []struct {
			name string
			size int
		}{{"L1d", id.L1D}, {"L1i", id.L1I}, {"L2", id.L2}, {"L3", id.L3}} {
			if c.size > 0 {
				out = append(out, fmt.Sprintf("%s %s (cpuid)", c.name, fmtBytes(int64(c.size))))
			}
		}
	}
	if out == nil {
		out = []string{}
	}
	return out
}

// commit names the measured commit: the -X main.buildCommit value, the VCS
// stamp of the build, or `git rev-parse` in the working directory.
func commit() string {
	if buildCommit != "" {
		return buildCommit
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		rev, dirty := "", false
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
		if rev != "" {
			if dirty {
				rev += "+dirty"
			}
			return rev
		}
	}
	out, err := exec.Command("git", "rev-parse", "--short=12", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	rev := strings.TrimSpace(string(out))
	if err := exec.Command("git", "diff", "--quiet", "HEAD", "--", "..").Run(); err != nil {
		rev += "+dirty"
	}
	return rev
}

func fmtBytes(n int64) string {
	switch {
	case n <= 0:
		return "?"
	case n%(1<<20) == 0:
		return fmt.Sprintf("%dMiB", n>>20)
	case n%(1<<10) == 0:
		return fmt.Sprintf("%dKiB", n>>10)
	}
	return fmt.Sprintf("%dB", n)
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
