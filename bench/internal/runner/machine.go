package runner

import (
	"fmt"
	"os/exec"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/blitz-go/blitz/bench/internal/report"
	"github.com/blitz-go/blitz/topology"
)

// detectMachine describes the running machine. commit names the measured
// commit when the build was stamped with it (the bench command's
// -ldflags "-X main.buildCommit=...", see the README); "" detects it.
func detectMachine(commit string) report.Machine {
	t := topology.Detect()
	id := t.Identity
	m := report.Machine{
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
		Commit:     commit,
	}
	if m.Commit == "" {
		m.Commit = detectCommit()
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

// detectCommit names the measured commit: the VCS stamp of the build, or
// `git rev-parse` in the working directory.
func detectCommit() string {
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
