// Command blitz-topo prints the CPU topology the Blitz pool sees, as a tree
// in the manner of hwloc's lstopo (package > die > L3 > L2 > core > PU), with
// the NUMA nodes and their distances, cache sizes, the processor model and
// feature flags, and whatever detection had to guess; then the placement a
// pool of N workers would get under a policy, and each worker's steal tiers.
//
// Usage:
//
//	blitz-topo [-root DIR] [-workers N] [-policy compact|scatter|none] [-cpus LIST]
//
// -root reads a sysfs tree captured elsewhere (the fixtures under
// topology/testdata, or one written by topology/testdata/capture.sh) instead
// of this machine's. -workers defaults to GOMAXPROCS on this machine and to
// the number of allowed CPUs under -root. -cpus pins to an explicit CPU list
// ("0-3,8-11") instead of a policy.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"sort"
	"strings"

	"github.com/blitz-go/blitz/topology"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is the command without its process: it parses args, writes the report
// to stdout and errors to stderr, and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("blitz-topo", flag.ContinueOnError)
	fl.SetOutput(stderr)
	root := fl.String("root", "", "read the sysfs tree under `DIR` (a fixture) instead of this machine's")
	workers := fl.Int("workers", 0, "number of workers to place (default: GOMAXPROCS, or the allowed CPUs under -root)")
	policy := fl.String("policy", "compact", "placement `policy`: compact, scatter or none")
	cpus := fl.String("cpus", "", "pin to this explicit CPU `LIST` instead of a policy, e.g. 0-3,8-11")
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fl.NArg() > 0 {
		fmt.Fprintf(stderr, "blitz-topo: unexpected arguments %q\n", fl.Args())
		return 2
	}
	p, err := topology.ParsePolicy(*policy)
	if err != nil {
		fmt.Fprintln(stderr, "blitz-topo:", err)
		return 2
	}
	var t *topology.Topology
	source := "this machine"
	if *root != "" {
		if st, err := os.Stat(*root); err != nil || !st.IsDir() {
			fmt.Fprintf(stderr, "blitz-topo: -root %s: not a directory\n", *root)
			return 2
		}
		t = topology.DetectFrom(os.DirFS(*root), topology.CPUSet{})
		source = "sysfs under " + *root
	} else {
		t = topology.Detect()
		source = fmt.Sprintf("this machine: %s (%s/%s)", t.Source, runtime.GOOS, runtime.GOARCH)
	}
	n := *workers
	if n == 0 {
		if *root != "" {
			n = t.Allowed.Len()
		} else {
			n = runtime.GOMAXPROCS(0)
		}
	}
	var pl topology.Placement
	what := "policy " + p.String()
	if *cpus != "" {
		set, err := topology.ParseCPUList(*cpus)
		if err != nil {
			fmt.Fprintln(stderr, "blitz-topo: -cpus:", err)
			return 2
		}
		pl, err = t.PlaceOn(set, n)
		if err != nil {
			fmt.Fprintln(stderr, "blitz-topo:", err)
			return 1
		}
		what = "explicit CPUs " + set.String()
	} else if pl, err = t.Place(n, p); err != nil {
		fmt.Fprintln(stderr, "blitz-topo:", err)
		return 1
	}
	render(stdout, t, source, pl, what)
	return 0
}

// render writes the report.
func render(w io.Writer, t *topology.Topology, source string, pl topology.Placement, what string) {
	fmt.Fprintf(w, "CPU topology from %s\n", source)
	fmt.Fprintf(w, "Machine: %s online, %s allowed, %s offline; %s, %s, %s per core, %s\n",
		count(t.Online), count(t.Allowed), count(t.Offline), plural(len(t.Packages), "package"),
		plural(len(t.Cores), "core"), plural(t.ThreadsPerCore(), "thread"), plural(len(t.Nodes), "NUMA node"))
	renderIdentity(w, t.Identity)

	fmt.Fprintln(w, "\nTree (* = not allowed for this process):")
	tree(w, t, t.Online, 0, "  ")

	fmt.Fprintln(w, "\nNUMA nodes:")
	if len(t.Nodes) == 0 {
		fmt.Fprintln(w, "  unknown")
	}
	for _, n := range t.Nodes {
		d := "unknown"
		if n.Distances != nil {
			d = strings.Trim(fmt.Sprint(n.Distances), "[]")
		}
		fmt.Fprintf(w, "  node %d: CPUs %s; distances: %s\n", n.ID, orNone(n.CPUs), d)
	}

	fmt.Fprintln(w, "\nDegraded:")
	if len(t.Degraded) == 0 {
		fmt.Fprintln(w, "  none: every file detection looks for was read")
	}
	for _, r := range t.Degraded {
		fmt.Fprintf(w, "  - %s\n", r)
	}

	fmt.Fprintf(w, "\nPlacement of %s, %s:\n", plural(len(pl.CPUs), "worker"), what)
	for i, c := range pl.CPUs {
		if c < 0 {
			fmt.Fprintf(w, "  worker %d: unpinned\n", i)
		} else {
			fmt.Fprintf(w, "  worker %d: CPU %d\n", i, c)
		}
	}
	for _, n := range pl.Notes {
		fmt.Fprintf(w, "  note: %s\n", n)
	}

	fmt.Fprintln(w, "\nSteal tiers (nearest first; a thief scans each tier in random order):")
	for i, tiers := range t.StealTiersLabelled(pl.CPUs) {
		var parts []string
		for _, tier := range tiers {
			label := tier.Kind.String()
			if tier.Kind == topology.TierRemote && tier.Distance >= 0 {
				label = fmt.Sprintf("remote(%d)", tier.Distance)
			}
			parts = append(parts, fmt.Sprintf("%s %v", label, tier.Workers))
		}
		if len(parts) == 0 {
			parts = []string{"none (only worker)"}
		}
		fmt.Fprintf(w, "  worker %d: %s\n", i, strings.Join(parts, " | "))
	}
}

func renderIdentity(w io.Writer, id topology.Identity) {
	if !id.Known {
		fmt.Fprintln(w, "Processor: not identified (cpuid describes only the running machine)")
		return
	}
	fmt.Fprintf(w, "Processor: %s %q, family %d model %d stepping %d (cpuid, %s)\n",
		orUnknown(id.Vendor), id.Brand, id.Family, id.Model, id.Stepping, id.Arch)
	fmt.Fprintf(w, "  cpuid counts: %s, %d logical, %s per core; cache line %s\n",
		plural(id.PhysicalCores, "physical core"), id.LogicalCores, plural(id.ThreadsPerCore, "thread"), lineSize(id.CacheLine))
	fmt.Fprintf(w, "  cpuid caches: L1d %s, L1i %s, L2 %s, L3 %s\n",
		size(int64(id.L1D)), size(int64(id.L1I)), size(int64(id.L2)), size(int64(id.L3)))
	fmt.Fprintf(w, "  features (x/sys/cpu): %s\n", orUnknown(strings.Join(id.Features, " ")))
}

// level is one layer of the tree: key names a CPU's group at this level
// (ok false when unknown), label describes a group.
type level struct {
	key   func(t *topology.Topology, c topology.CPU) (int, bool)
	label func(t *topology.Topology, c topology.CPU, set topology.CPUSet) string
	// onlyIfSplit skips the level when all CPUs of the parent fall in one
	// group (a NUMA node level on a one-node package says nothing).
	onlyIfSplit bool
}

var levels = []level{
	{ // package
		key: func(_ *topology.Topology, c topology.CPU) (int, bool) { return c.Package, true },
		label: func(_ *topology.Topology, c topology.CPU, set topology.CPUSet) string {
			id := "?"
			if c.Package >= 0 {
				id = fmt.Sprint(c.Package)
			}
			return fmt.Sprintf("Package %s (%s)", id, cpuList(set))
		},
	},
	{ // NUMA node, where a package holds several (AMD NPS2/NPS4, Intel SNC)
		key: func(_ *topology.Topology, c topology.CPU) (int, bool) { return c.Node, c.Node >= 0 },
		label: func(_ *topology.Topology, c topology.CPU, set topology.CPUSet) string {
			return fmt.Sprintf("NUMA node %d (%s)", c.Node, cpuList(set))
		},
		onlyIfSplit: true,
	},
	{ // die
		key: func(_ *topology.Topology, c topology.CPU) (int, bool) { return c.Die, c.Die >= 0 },
		label: func(_ *topology.Topology, c topology.CPU, set topology.CPUSet) string {
			return fmt.Sprintf("Die %d", c.Die)
		},
	},
	{key: cacheKey(3), label: cacheLabel(3)},
	{key: cacheKey(2), label: cacheLabel(2)},
	{ // core
		key: func(_ *topology.Topology, c topology.CPU) (int, bool) { return c.Threads.Min(), true },
		label: func(t *topology.Topology, c topology.CPU, set topology.CPUSet) string {
			s := "Core ?"
			if c.Core >= 0 {
				s = fmt.Sprintf("Core %d", c.Core)
			}
			if c.Cluster >= 0 {
				s += fmt.Sprintf(" (cluster %d)", c.Cluster)
			}
			var l1 []string
			for _, k := range c.Caches {
				if ch := t.Caches[k]; ch.Level == 1 {
					l1 = append(l1, fmt.Sprintf("%s %s", ch.Name(), size(ch.Size)))
				}
			}
			if len(l1) > 0 {
				s += ": " + strings.Join(l1, ", ")
			}
			return s
		},
	},
	{ // PU
		key: func(_ *topology.Topology, c topology.CPU) (int, bool) { return c.ID, true },
		label: func(_ *topology.Topology, c topology.CPU, set topology.CPUSet) string {
			s := fmt.Sprintf("PU %d", c.ID)
			if c.Node >= 0 {
				s += fmt.Sprintf(" node %d", c.Node)
			}
			if c.Capacity > 0 {
				s += fmt.Sprintf(" capacity %d", c.Capacity)
			}
			if !c.Allowed {
				s += " *"
			}
			return s
		},
	},
}

func cacheKey(lvl int) func(*topology.Topology, topology.CPU) (int, bool) {
	return func(t *topology.Topology, c topology.CPU) (int, bool) {
		s := t.SharedCache(c.ID, lvl)
		return s.Min(), !s.IsEmpty()
	}
}

func cacheLabel(lvl int) func(*topology.Topology, topology.CPU, topology.CPUSet) string {
	return func(t *topology.Topology, c topology.CPU, set topology.CPUSet) string {
		for _, k := range c.Caches {
			ch := t.Caches[k]
			if ch.Level == lvl && ch.Type != topology.CacheInstruction {
				return fmt.Sprintf("%s %s, line %s, shared by %s", ch.Name(), size(ch.Size), lineSize(ch.LineSize), cpuList(ch.CPUs))
			}
		}
		return fmt.Sprintf("L%d", lvl)
	}
}

// tree prints the CPUs of set from level lv down, grouping them by each
// level's key; a level unknown for every CPU of set is skipped.
func tree(w io.Writer, t *topology.Topology, set topology.CPUSet, lv int, indent string) {
	if lv == len(levels) || set.IsEmpty() {
		return
	}
	l := levels[lv]
	groups := map[int][]int{}
	var keys []int
	known := false
	for _, id := range set.List() {
		c, _ := t.CPU(id)
		k, ok := l.key(t, c)
		if ok {
			known = true
		} else {
			k = -1
		}
		if _, seen := groups[k]; !seen {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], id)
	}
	if !known || (l.onlyIfSplit && len(keys) == 1) {
		tree(w, t, set, lv+1, indent)
		return
	}
	sort.Slice(keys, func(i, j int) bool { return groups[keys[i]][0] < groups[keys[j]][0] })
	for _, k := range keys {
		sub := topology.NewCPUSet(groups[k]...)
		first, _ := t.CPU(groups[k][0])
		fmt.Fprintf(w, "%s%s\n", indent, l.label(t, first, sub))
		tree(w, t, sub, lv+1, indent+"  ")
	}
}

func count(s topology.CPUSet) string {
	if s.IsEmpty() {
		return "no CPUs"
	}
	return fmt.Sprintf("%s (%s)", plural(s.Len(), "CPU"), s)
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func cpuList(s topology.CPUSet) string {
	if s.Len() == 1 {
		return "CPU " + s.String()
	}
	return "CPUs " + s.String()
}

func orNone(s topology.CPUSet) string {
	if s.IsEmpty() {
		return "none"
	}
	return s.String()
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

func lineSize(n int) string {
	if n <= 0 {
		return "unknown"
	}
	return fmt.Sprintf("%d B", n)
}

// size formats a byte count as hwloc does: KiB, MiB or GiB when exact.
func size(n int64) string {
	switch {
	case n <= 0:
		return "unknown size"
	case n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d B", n)
}
