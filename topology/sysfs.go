package topology

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"runtime"
	"sort"
	"strconv"
	"strings"
)

// # Detection
//
// Detect reads Linux sysfs; DetectFrom reads the same files under any fs.FS,
// which is how the tests and blitz-topo -root read fixtures on any OS:
//
//	sys/devices/system/cpu/{online,offline,possible}     which CPUs exist and run
//	cpuN/online                                          (only without the online list)
//	cpuN/topology/physical_package_id, die_id, cluster_id, core_id
//	cpuN/topology/core_cpus_list (else thread_siblings_list)   the SMT siblings
//	cpuN/cpu_capacity                                    big.LITTLE / hybrid speed
//	cpuN/cache/indexK/{level,type,shared_cpu_list,size,coherency_line_size,id}
//	sys/devices/system/node/nodeN/{cpulist,distance}     NUMA nodes and distances
//
// The allowed set comes from sched_getaffinity (processAffinity,
// pin_linux.go), which already reflects cgroup cpusets (read on a thread
// that no pinned goroutine holds, so that a pinned caller sees the process's
// CPUs, not its own; failing that, the Cpus_allowed_list line of
// /proc/self/status), and is cut to the online CPUs. A core is identified by
// its sibling list, not by core_id, which restarts in every package and, on
// many arm64 parts, in every cluster. Caches are de-duplicated by level, type and sharing set.
// The CPUID instruction adds the vendor, brand, family and model, cache
// sizes and line size on x86, /proc/cpuinfo the model elsewhere, and
// golang.org/x/sys/cpu the feature flags that matter here (Identity). Those
// describe the running machine only, so DetectFrom leaves Identity empty.
// Sysfs's coherency_line_size is the line size to trust.

//
// # Degraded modes
//
// Containers hide parts of sysfs, CPUs go offline, numbering has holes and
// files can be malformed or unreadable. Detection never fails and never
// panics; each gap is replaced by an assumption and written, in words, into
// Topology.Degraded, one line per cause with the CPUs it applies to:
//
//   - no online list: the cpuN directories are listed, less those whose
//     cpuN/online says 0; no directories either: runtime.NumCPU;
//   - no topology directory for a CPU: it is its own core, package unknown;
//   - a malformed sibling list: thread_siblings_list, else a core of one;
//   - a package id missing or malformed: taken from an SMT sibling if one
//     knows it, else unknown (-1);
//   - no cache directory, or a malformed shared_cpu_list: cache unknown, or
//     private to the CPU;
//   - no node directory: NUMA unknown; a distance row of the wrong length or
//     with garbage: every distance unknown (-1);
//   - an affinity mask naming no online CPU: every online CPU allowed.
//
// die_id and cluster_id are simply unknown on kernels too old to have them
// (and die_id is -1 on arm64): that is not degraded. Offline CPUs have no
// topology in sysfs; they are listed in Offline and never used.

// Paths read by DetectFrom, relative to the filesystem root it is given.
const (
	cpuDir    = "sys/devices/system/cpu"
	nodeDir   = "sys/devices/system/node"
	statusTxt = "proc/self/status" // only its Cpus_allowed_list line
)

// DetectFrom reads the CPU topology from a Linux sysfs tree under fsys, whose
// root stands for "/" (os.DirFS("/") for the live machine, a directory of
// testdata for a fixture). It reads only:
//
//	sys/devices/system/cpu/{online,offline,possible}
//	sys/devices/system/cpu/cpuN/online (only when the online list is missing)
//	sys/devices/system/cpu/cpuN/topology/{physical_package_id,die_id,cluster_id,core_id,
//	                                      core_cpus_list,thread_siblings_list}
//	sys/devices/system/cpu/cpuN/cpu_capacity
//	sys/devices/system/cpu/cpuN/cache/indexK/{level,type,shared_cpu_list,size,
//	                                          coherency_line_size,id}
//	sys/devices/system/node/nodeN/{cpulist,distance}
//	proc/self/status (the Cpus_allowed_list line, only when allowed is empty)
//
// allowed is the process's affinity mask; when empty, the Cpus_allowed_list of
// proc/self/status under fsys is used, and failing that every online CPU.
//
// DetectFrom never fails: whatever is missing, unreadable or malformed is
// replaced by a safe assumption (a CPU is its own core, a cache is unknown,
// there is one NUMA node) and described in Topology.Degraded. Identity is left
// empty.
func DetectFrom(fsys fs.FS, allowed CPUSet) *Topology {
	d := &detector{fsys: fsys, t: &Topology{Source: "sysfs"}}
	d.online()
	d.allowed(allowed)
	d.cpus()
	d.nodes()
	d.inherit()
	d.group()
	d.t.Degraded = d.notes.list()
	return d.t
}

type detector struct {
	fsys  fs.FS
	t     *Topology
	notes notes
	cache map[string]int // dedup key -> index in t.Caches
}

// notes collects degraded reasons; a reason that applies to many CPUs is
// written once with the list of CPUs it applies to.
type notes struct {
	order []string
	cpus  map[string]*setBuilder // reason -> CPUs, nil for a plain reason
}

func (n *notes) add(reason string) { n.addCPU(reason, -1) }

// addCPU records reason for cpu (-1: for the whole machine).
func (n *notes) addCPU(reason string, cpu int) {
	if n.cpus == nil {
		n.cpus = map[string]*setBuilder{}
	}
	b, seen := n.cpus[reason]
	if !seen {
		n.order = append(n.order, reason)
		if cpu >= 0 {
			b = &setBuilder{}
		}
		n.cpus[reason] = b
	}
	if cpu >= 0 && b != nil {
		b.add(cpu)
	}
}

func (n *notes) list() []string {
	var out []string
	for _, r := range n.order {
		b := n.cpus[r]
		if b == nil {
			out = append(out, r)
			continue
		}
		set := b.set()
		word := "cpus"
		if set.Len() == 1 {
			word = "cpu"
		}
		out = append(out, fmt.Sprintf("%s %s: %s", word, set, r))
	}
	return out
}

// read returns the trimmed contents of a file under the root.
func (d *detector) read(name string) (string, error) {
	b, err := fs.ReadFile(d.fsys, name)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(b)), nil
}

func (d *detector) readInt(name string) (int, error) {
	s, err := d.read(name)
	if err != nil {
		return 0, err
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("%s: %q is not a number", name, s)
	}
	return n, nil
}

func (d *detector) readList(name string) (CPUSet, error) {
	s, err := d.read(name)
	if err != nil {
		return CPUSet{}, err
	}
	set, err := ParseCPUList(s)
	if err != nil {
		return CPUSet{}, fmt.Errorf("%s: %w", name, err)
	}
	return set, nil
}

// why shortens an error for a reason: "missing" for a file that is not there,
// "unreadable (...)" for one that cannot be opened or read, the error text
// (which names the file) for one that does not parse. The path is left out of
// the first two so that one reason covers many CPUs.
func why(err error) string {
	var pe *fs.PathError
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "missing"
	case errors.As(err, &pe):
		return "unreadable (" + pe.Err.Error() + ")"
	}
	return err.Error()
}

// online finds the online and offline CPUs.
func (d *detector) online() {
	t := d.t
	on, err := d.readList(cpuDir + "/online")
	if err == nil && on.IsEmpty() {
		err = errors.New("empty")
	}
	if err != nil {
		d.notes.add(fmt.Sprintf("%s/online %s: online CPUs taken from the cpuN directories", cpuDir, why(err)))
		on = d.cpuDirs()
	}
	if on.IsEmpty() {
		n := runtime.NumCPU()
		d.notes.add(fmt.Sprintf("no cpuN directories under %s: assuming CPUs 0-%d (runtime.NumCPU)", cpuDir, n-1))
		on = RangeCPUSet(0, n-1)
	}
	t.Online = on
	if off, err := d.readList(cpuDir + "/offline"); err == nil {
		t.Offline = off.Difference(on)
	} else if possible, err := d.readList(cpuDir + "/possible"); err == nil {
		t.Offline = possible.Difference(on)
	}
}

// cpuDirs lists the CPU numbers of the cpuN directories, leaving out those
// whose cpuN/online file says 0 (offline CPUs keep their directory).
func (d *detector) cpuDirs() CPUSet {
	ents, err := fs.ReadDir(d.fsys, cpuDir)
	if err != nil {
		return CPUSet{}
	}
	var b setBuilder
	for _, e := range ents {
		if n, ok := numbered(e.Name(), "cpu"); ok {
			if on, err := d.read(fmt.Sprintf("%s/cpu%d/online", cpuDir, n)); err == nil && on == "0" {
				continue
			}
			b.add(n)
		}
	}
	return b.set()
}

// numbered parses names such as "cpu12" or "node1".
func numbered(name, prefix string) (int, bool) {
	s, ok := strings.CutPrefix(name, prefix)
	if !ok || s == "" || len(s) > 6 {
		return 0, false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return 0, false
		}
	}
	n, _ := strconv.Atoi(s)
	return n, n < MaxCPUs
}

// allowed settles the allowed set.
func (d *detector) allowed(given CPUSet) {
	t := d.t
	if given.IsEmpty() {
		given = d.statusAllowed()
	}
	if given.IsEmpty() {
		d.notes.add("affinity unknown: every online CPU assumed allowed")
		given = t.Online
	}
	t.Allowed = given.Intersect(t.Online)
	if t.Allowed.IsEmpty() {
		d.notes.add(fmt.Sprintf("affinity %s has no online CPU: every online CPU assumed allowed", given))
		t.Allowed = t.Online
	}
}

// statusAllowed reads Cpus_allowed_list from proc/self/status.
func (d *detector) statusAllowed() CPUSet {
	f, err := d.fsys.Open(statusTxt)
	if err != nil {
		return CPUSet{}
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "Cpus_allowed_list:"); ok {
			set, err := ParseCPUList(v)
			if err != nil {
				d.notes.add(fmt.Sprintf("%s: Cpus_allowed_list: %v", statusTxt, err))
				return CPUSet{}
			}
			return set
		}
	}
	return CPUSet{}
}

// cpus reads each online CPU's topology, capacity and caches.
func (d *detector) cpus() {
	t := d.t
	d.cache = map[string]int{}
	for _, id := range t.Online.List() {
		c := CPU{ID: id, Package: -1, Die: -1, Cluster: -1, Core: -1, Node: -1, Allowed: t.Allowed.Contains(id)}
		base := fmt.Sprintf("%s/cpu%d", cpuDir, id)
		if _, err := fs.Stat(d.fsys, base+"/topology"); err != nil {
			d.notes.addCPU(fmt.Sprintf("topology %s: each CPU taken as its own core, package unknown", why(err)), id)
			c.Threads = NewCPUSet(id)
		} else {
			d.topology(&c, base+"/topology/")
		}
		if n, err := d.readInt(base + "/cpu_capacity"); err == nil && n > 0 {
			c.Capacity = n
		}
		d.caches(&c, base+"/cache")
		t.CPUs = append(t.CPUs, c)
	}
}

func (d *detector) topology(c *CPU, dir string) {
	var err error
	if c.Package, err = d.readInt(dir + "physical_package_id"); err != nil {
		d.notes.addCPU("physical_package_id "+why(err)+": package unknown", c.ID)
		c.Package = -1
	}
	if c.Core, err = d.readInt(dir + "core_id"); err != nil {
		d.notes.addCPU("core_id "+why(err)+": core id unknown", c.ID)
		c.Core = -1
	}
	// die_id (Linux 5.2) and cluster_id (5.16) are absent on older kernels:
	// unknown, not degraded.
	if c.Die, err = d.readInt(dir + "die_id"); err != nil {
		c.Die = -1
	}
	if c.Cluster, err = d.readInt(dir + "cluster_id"); err != nil {
		c.Cluster = -1
	}
	// core_cpus_list (5.x) supersedes thread_siblings_list; both name the
	// SMT siblings.
	threads, err := d.readList(dir + "core_cpus_list")
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			d.notes.addCPU(err.Error()+": thread_siblings_list tried instead", c.ID)
		}
		if threads, err = d.readList(dir + "thread_siblings_list"); err != nil {
			d.notes.addCPU("SMT siblings unknown (thread_siblings_list "+why(err)+"): taken as a core of one thread", c.ID)
			threads = CPUSet{}
		}
	}
	if !threads.IsEmpty() && !threads.Contains(c.ID) {
		d.notes.addCPU(fmt.Sprintf("sibling list %s leaves the CPU itself out: taken as a core of one thread", threads), c.ID)
		threads = CPUSet{}
	}
	c.Threads = threads.Intersect(d.t.Online).Union(NewCPUSet(c.ID))
}

func (d *detector) caches(c *CPU, dir string) {
	ents, err := fs.ReadDir(d.fsys, dir)
	if err != nil {
		d.notes.addCPU("cache information "+why(err)+": shared caches unknown", c.ID)
		return
	}
	var idx []int
	for _, e := range ents {
		if k, ok := numbered(e.Name(), "index"); ok {
			idx = append(idx, k)
		}
	}
	sort.Ints(idx)
	if len(idx) == 0 {
		d.notes.addCPU("no cache/indexK directories: shared caches unknown", c.ID)
	}
	for _, k := range idx {
		p := fmt.Sprintf("%s/index%d/", dir, k)
		level, err := d.readInt(p + "level")
		if err != nil || level < 1 {
			if err == nil {
				err = fmt.Errorf("level %d", level)
			}
			d.notes.addCPU(fmt.Sprintf("cache index%d level %s: that cache skipped", k, why(err)), c.ID)
			continue
		}
		typ, err := d.read(p + "type")
		if err != nil {
			typ = string(CacheUnified)
		}
		shared, err := d.readList(p + "shared_cpu_list")
		if err == nil && !shared.Contains(c.ID) {
			err = fmt.Errorf("%s leaves the CPU itself out", shared)
		}
		if err != nil {
			d.notes.addCPU(fmt.Sprintf("L%d shared_cpu_list %s: cache taken as private", level, why(err)), c.ID)
			shared = NewCPUSet(c.ID)
		}
		shared = shared.Intersect(d.t.Online)
		key := fmt.Sprintf("%d/%s/%s", level, typ, shared) // the same as group's cacheKey
		i, seen := d.cache[key]
		if !seen {
			i = len(d.t.Caches)
			d.cache[key] = i
			cache := Cache{Level: level, Type: CacheType(typ), ID: -1, CPUs: shared}
			if s, err := d.read(p + "size"); err == nil {
				cache.Size = parseSize(s)
			}
			if n, err := d.readInt(p + "coherency_line_size"); err == nil && n > 0 {
				cache.LineSize = n
			}
			if n, err := d.readInt(p + "id"); err == nil {
				cache.ID = n
			}
			d.t.Caches = append(d.t.Caches, cache)
		}
		c.Caches = append(c.Caches, i)
	}
}

// parseSize parses a sysfs cache size such as "48K", "2048K" or "32M"; 0 if
// malformed.
func parseSize(s string) int64 {
	mult := int64(1)
	switch {
	case strings.HasSuffix(s, "K"):
		mult, s = 1<<10, s[:len(s)-1]
	case strings.HasSuffix(s, "M"):
		mult, s = 1<<20, s[:len(s)-1]
	case strings.HasSuffix(s, "G"):
		mult, s = 1<<30, s[:len(s)-1]
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || n > 1<<40/mult {
		return 0
	}
	return n * mult
}

// nodes reads the NUMA nodes and their distances.
func (d *detector) nodes() {
	t := d.t
	ents, err := fs.ReadDir(d.fsys, nodeDir)
	if err != nil {
		d.notes.add(fmt.Sprintf("NUMA information %s (%s): one node assumed", why(err), nodeDir))
		return
	}
	var ids []int
	for _, e := range ents {
		if n, ok := numbered(e.Name(), "node"); ok {
			ids = append(ids, n)
		}
	}
	sort.Ints(ids)
	if len(ids) == 0 {
		d.notes.add(fmt.Sprintf("no nodeN directories under %s: one node assumed", nodeDir))
		return
	}
	distOK := true
	for _, id := range ids {
		n := Node{ID: id}
		p := fmt.Sprintf("%s/node%d/", nodeDir, id)
		cpus, err := d.readList(p + "cpulist")
		if err != nil {
			d.notes.add(fmt.Sprintf("node%d cpulist %s: its CPUs unknown", id, why(err)))
		}
		n.CPUs = cpus.Intersect(t.Online)
		if s, err := d.read(p + "distance"); err != nil {
			d.notes.add(fmt.Sprintf("node%d distance %s: NUMA distances unknown", id, why(err)))
			distOK = false
		} else if n.Distances, err = parseDistances(s, len(ids)); err != nil {
			d.notes.add(fmt.Sprintf("node%d distance %q: %v: NUMA distances unknown", id, s, err))
			distOK = false
		}
		t.Nodes = append(t.Nodes, n)
	}
	if !distOK {
		for i := range t.Nodes {
			t.Nodes[i].Distances = nil
		}
	}
	for i := range t.CPUs {
		c := &t.CPUs[i]
		for _, n := range t.Nodes {
			if n.CPUs.Contains(c.ID) {
				if c.Node >= 0 {
					d.notes.addCPU(fmt.Sprintf("listed in nodes %d and %d: node %d kept", c.Node, n.ID, c.Node), c.ID)
					continue
				}
				c.Node = n.ID
			}
		}
		if c.Node < 0 {
			d.notes.addCPU("in no NUMA node's cpulist: node unknown", c.ID)
		}
	}
}

// parseDistances parses a node's distance row: one number per node.
func parseDistances(s string, nodes int) ([]int, error) {
	f := strings.Fields(s)
	if len(f) != nodes {
		return nil, fmt.Errorf("%d entries for %d nodes", len(f), nodes)
	}
	out := make([]int, len(f))
	for i, v := range f {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("entry %q is not a distance", v)
		}
		out[i] = n
	}
	return out, nil
}

// inherit gives a CPU whose package is unknown the package of an SMT sibling
// that knows it: the threads of one core cannot sit in different packages.
func (d *detector) inherit() {
	t := d.t
	for i := range t.CPUs {
		c := &t.CPUs[i]
		if c.Package >= 0 {
			continue
		}
		for _, s := range c.Threads.List() {
			if sc, ok := t.CPU(s); ok && sc.Package >= 0 {
				c.Package = sc.Package
				d.notes.addCPU("package taken from an SMT sibling", c.ID)
				break
			}
		}
	}
}

// group derives Packages, Dies, Clusters and Cores from the per-CPU ids.
func (d *detector) group() {
	t := d.t
	type key struct{ pkg, die, id int }
	collect := func(keyOf func(CPU) (key, bool)) []Group {
		m := map[key]*setBuilder{}
		var keys []key
		for _, c := range t.CPUs {
			k, ok := keyOf(c)
			if !ok {
				continue
			}
			if m[k] == nil {
				m[k] = &setBuilder{}
				keys = append(keys, k)
			}
			m[k].add(c.ID)
		}
		out := make([]Group, 0, len(keys))
		for _, k := range keys {
			out = append(out, Group{ID: k.id, Package: k.pkg, CPUs: m[k].set()})
		}
		sort.Slice(out, func(i, j int) bool { return out[i].CPUs.Min() < out[j].CPUs.Min() })
		return out
	}
	t.Packages = collect(func(c CPU) (key, bool) { return key{c.Package, -1, c.Package}, true })
	t.Dies = collect(func(c CPU) (key, bool) { return key{c.Package, -1, c.Die}, c.Die >= 0 })
	t.Clusters = collect(func(c CPU) (key, bool) { return key{c.Package, -1, c.Cluster}, c.Cluster >= 0 })
	// A core is its set of SMT siblings; core_id alone is not unique (it
	// restarts in each package, and in each cluster on many arm64 parts).
	seen := map[string]bool{}
	for _, c := range t.CPUs {
		k := c.Threads.String()
		if seen[k] {
			continue
		}
		seen[k] = true
		t.Cores = append(t.Cores, Group{ID: c.Core, Package: c.Package, CPUs: c.Threads})
	}
	sort.Slice(t.Cores, func(i, j int) bool { return t.Cores[i].CPUs.Min() < t.Cores[j].CPUs.Min() })
	// Order the caches by level, type and lowest CPU, then renumber the
	// per-CPU references to match.
	orig := append([]Cache(nil), t.Caches...)
	sort.SliceStable(t.Caches, func(i, j int) bool {
		a, b := t.Caches[i], t.Caches[j]
		if a.Level != b.Level {
			return a.Level < b.Level
		}
		if a.Type != b.Type {
			return a.Type < b.Type
		}
		return a.CPUs.Min() < b.CPUs.Min()
	})
	cacheKey := func(c Cache) string { return fmt.Sprintf("%d/%s/%s", c.Level, c.Type, c.CPUs) }
	pos := make(map[string]int, len(t.Caches))
	for i, c := range t.Caches {
		pos[cacheKey(c)] = i
	}
	for i := range t.CPUs {
		refs := t.CPUs[i].Caches
		for k, old := range refs {
			refs[k] = pos[cacheKey(orig[old])]
		}
		sort.Ints(refs)
	}
}
