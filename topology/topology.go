package topology

import (
	"fmt"
	"sort"
)

// # Vocabulary
//
// A CPU (hwloc's PU, Linux's "cpuN") is one hardware thread. SMT siblings are
// the threads of one core; they share its L1 and L2. A cluster is a group of
// cores sharing an L2 (arm64 clusters, Intel E-core modules). An L3 group (the
// last-level cache group; AMD's CCX) shares an L3. A die and a package are the
// silicon and the socket. A NUMA node is a set of CPUs with the same memory
// latency; the kernel's distance matrix says how far nodes are from each other
// (10 is local). The allowed set is the CPUs this process may run on.

// Topology is what is known about the machine's CPUs: how hardware threads
// group into cores, cores into caches, clusters, dies and packages, packages
// into NUMA nodes, and which CPUs this process may run on. Build one with
// Detect or DetectFrom; treat it as read-only afterwards (every method only
// reads, so a Topology may be shared between goroutines).
//
// Kernel ids that are unknown are -1. Sizes that are unknown are 0.
type Topology struct {
	// CPUs holds every online CPU, in ascending ID order. Offline CPUs have
	// no topology in sysfs and are listed only in Offline.
	CPUs []CPU

	// Online is the set of online CPUs (sys/devices/system/cpu/online).
	Online CPUSet
	// Offline is the set of CPUs the kernel knows of but has offline
	// (sys/devices/system/cpu/offline). Holes in Online that are in no
	// such list are CPU numbers that do not exist.
	Offline CPUSet
	// Allowed is the set of online CPUs this process may run on: the
	// affinity mask from sched_getaffinity (which reflects cgroup cpusets),
	// intersected with Online. Placement uses only these.
	Allowed CPUSet

	// Packages, Dies, Clusters and Cores group the online CPUs by the
	// kernel's physical_package_id, die_id, cluster_id and core_cpus_list
	// (a core is a set of SMT siblings). Each is ordered by its lowest CPU.
	// Dies and Clusters are empty where the kernel does not report them.
	Packages []Group
	Dies     []Group
	Clusters []Group
	Cores    []Group

	// Caches holds each distinct cache once (the same level, type and set
	// of sharing CPUs), ordered by level, then type, then lowest CPU.
	Caches []Cache

	// Nodes holds the NUMA nodes, in ascending ID order, including nodes
	// without CPUs (memory-only nodes). Empty when the kernel has no NUMA
	// information.
	Nodes []Node

	// Identity describes the processor model (HostIdentity). Detect
	// fills it in for the running machine; DetectFrom leaves it empty
	// (Known false), since a fixture root is some other machine.
	Identity Identity

	// Source says where the topology came from, for reports.
	Source string

	// Degraded lists, in words, what could not be read or made sense of and
	// what was assumed instead. Empty when detection saw everything it
	// looks for.
	Degraded []string
}

// CPU is one hardware thread (what hwloc calls a PU and Linux a "cpu").
type CPU struct {
	ID      int // the kernel's CPU number
	Package int // physical_package_id, -1 if unknown
	Die     int // die_id within the package, -1 if unknown
	Cluster int // cluster_id, -1 if unknown
	Core    int // core_id (unique only within a package or cluster), -1 if unknown

	// Threads is the set of online hardware threads of this CPU's core (its
	// SMT siblings), this CPU included.
	Threads CPUSet

	Node     int   // NUMA node, -1 if unknown
	Capacity int   // cpu_capacity (1024 = the biggest core; big.LITTLE), 0 if unknown
	Caches   []int // indexes into Topology.Caches, lowest level first
	Allowed  bool  // whether this process may run on it
}

// Group is a set of CPUs that share one piece of hardware: a package, a die,
// a cluster or a core.
type Group struct {
	ID      int // the kernel's id (physical_package_id, die_id, cluster_id or core_id), -1 if unknown
	Package int // the package it belongs to, -1 if unknown
	CPUs    CPUSet
}

// CacheType is the kind of data a cache holds, as sysfs names it.
type CacheType string

// Cache types, spelled as in sys/devices/system/cpu/cpuN/cache/indexK/type.
const (
	CacheData        CacheType = "Data"
	CacheInstruction CacheType = "Instruction"
	CacheUnified     CacheType = "Unified"
)

// Cache is one cache and the online CPUs that share it.
type Cache struct {
	Level    int       // 1, 2, 3, ...
	Type     CacheType // Data, Instruction or Unified
	Size     int64     // bytes, 0 if unknown
	LineSize int       // coherency_line_size in bytes, 0 if unknown
	ID       int       // the kernel's cache id, -1 if unknown
	CPUs     CPUSet    // the online CPUs sharing it
}

// Name is the conventional short name: L1d, L1i, L2, L3.
func (c Cache) Name() string {
	switch c.Type {
	case CacheData:
		return fmt.Sprintf("L%dd", c.Level)
	case CacheInstruction:
		return fmt.Sprintf("L%di", c.Level)
	}
	return fmt.Sprintf("L%d", c.Level)
}

// Node is a NUMA node.
type Node struct {
	ID   int
	CPUs CPUSet // its online CPUs; empty for a memory-only node
	// Distances[k] is the kernel's distance (10 = local) from this node to
	// Topology.Nodes[k]; nil when unknown.
	Distances []int
}

// CPU returns the online CPU numbered id.
func (t *Topology) CPU(id int) (CPU, bool) {
	i := sort.Search(len(t.CPUs), func(i int) bool { return t.CPUs[i].ID >= id })
	if i < len(t.CPUs) && t.CPUs[i].ID == id {
		return t.CPUs[i], true
	}
	return CPU{}, false
}

// SharedCache returns the online CPUs that share cpu's cache at level (its
// data or unified cache; instruction caches are skipped), or the empty set
// when that cache is unknown.
func (t *Topology) SharedCache(cpu, level int) CPUSet {
	c, ok := t.CPU(cpu)
	if !ok {
		return CPUSet{}
	}
	for _, k := range c.Caches {
		if k >= 0 && k < len(t.Caches) && t.Caches[k].Level == level && t.Caches[k].Type != CacheInstruction {
			return t.Caches[k].CPUs
		}
	}
	return CPUSet{}
}

// Distance returns the kernel's NUMA distance between the nodes with IDs a and
// b, or -1 when unknown.
func (t *Topology) Distance(a, b int) int {
	ia, ib := t.nodeIndex(a), t.nodeIndex(b)
	if ia < 0 || ib < 0 || ib >= len(t.Nodes[ia].Distances) {
		return -1
	}
	return t.Nodes[ia].Distances[ib]
}

func (t *Topology) nodeIndex(id int) int {
	for i, n := range t.Nodes {
		if n.ID == id {
			return i
		}
	}
	return -1
}

// ThreadsPerCore returns the largest number of online hardware threads of any
// core (1 without SMT).
func (t *Topology) ThreadsPerCore() int {
	n := 0
	for _, c := range t.Cores {
		n = max(n, c.CPUs.Len())
	}
	return n
}
