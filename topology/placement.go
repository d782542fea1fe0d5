package topology

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// # Placement
//
// Place(workers, policy) gives each worker a CPU from the allowed set.
//
// PolicyNone pins nothing (-1 for every worker): the OS scheduler places the
// workers. It is the right default on shared and virtual machines, where a
// vCPU is not a fixed core and pinning only removes the scheduler's freedom.
//
// PolicyCompact fills one core's threads, then the rest of its L2 group, L3
// group, die, NUMA node and package, then the next, faster cores (higher
// cpu_capacity) first within a node. Neighbours share the most cache, which
// suits fork-join work where a thief steals its neighbour's freshly split
// data.
//
// PolicyScatter puts the first thread of every core before any second thread,
// and among those, takes turns between packages, then NUMA nodes, capacity
// classes, dies, L3 groups and L2 groups: every worker gets as much cache and
// memory bandwidth to itself as the machine allows.
//
// PlaceOn(cpus, workers) is the explicit list for people who know better. All
// of cpus must be allowed (ErrNotAllowed otherwise: a list that silently lost
// CPUs would surprise its author); workers take them in compact order.
//
// Worked example, the 2-socket fixture (socket 0 = CPUs 0-3 with siblings
// 8-11, socket 1 = 4-7 with 12-15, an L3 and a NUMA node per socket,
// distance 21), four workers:
//
//	compact  [0 8 1 9]   two cores of socket 0, both threads each
//	scatter  [0 4 1 5]   four cores, alternating sockets, no SMT sharing
//
// More workers than CPUs: the order is reused, worker i taking the (i mod
// n)-th CPU, so each CPU carries workers/n or workers/n+1 workers;
// Placement.Oversubscribed is set and a note says so. Round-robin
// spreads the extra workers evenly (compact's first extra worker shares CPU 0
// with worker 0, not with its sibling) and keeps every worker on a CPU the
// policy chose, rather than failing a configuration that merely runs slower; a pool that
// prefers to refuse checks Oversubscribed, one that prefers floating workers
// uses PolicyNone.
//
// # GOMAXPROCS and cgroups
//
// The pool defaults to GOMAXPROCS workers. Since Go 1.25 the runtime sets
// GOMAXPROCS from the cgroup CPU limit (quota/period) as well as the affinity
// mask, and updates it at run time when the limit changes (unless GOMAXPROCS
// was set explicitly). The two limits are different things: a cpuset limits
// which CPUs (Topology.Allowed, from sched_getaffinity), a quota limits how
// much CPU time, and a quota of 2 CPUs on a 64-CPU cpuset gives GOMAXPROCS 2
// with 64 allowed CPUs. Placement respects both: the worker count comes from
// GOMAXPROCS (read when the pool starts), and the CPUs come only from the
// allowed set, so with the quota example compact placement puts the two
// workers on one core's threads or, without SMT, two cores sharing a cache. A
// pool does not resize when GOMAXPROCS changes later; and if a cgroup's
// cpuset later drops a pinned CPU, the kernel rewrites the thread's mask to
// the new cpuset, so the worker keeps running, unpinned. Re-run Detect and
// restart the pool to re-place it.

// Policy says how Place spreads workers over the allowed CPUs.
type Policy int

const (
	// PolicyNone pins nothing: every worker is left to the OS scheduler
	// (Placement.CPUs holds -1 for each). The default, and the right choice
	// on a shared or virtual machine.
	PolicyNone Policy = iota
	// PolicyCompact packs workers close together: the hardware threads of
	// one core, then the other cores of its L2 group, then of its L3 group,
	// then of its NUMA node and package, then the next. Neighbouring workers
	// share the most cache; good for fork-join work that passes data along.
	// Within a node, faster cores (higher cpu_capacity: the big cores of
	// big.LITTLE, the P-cores of hybrid x86) are filled first.
	PolicyCompact
	// PolicyScatter spreads workers as far apart as possible: across
	// packages, then NUMA nodes, capacity classes, L3 groups, L2 groups and
	// cores, and only when every allowed core has a worker, onto second SMT
	// threads. Each worker gets the most cache and memory bandwidth to
	// itself; good for independent, memory-bound tasks.
	PolicyScatter
)

// String returns "none", "compact" or "scatter".
func (p Policy) String() string {
	switch p {
	case PolicyNone:
		return "none"
	case PolicyCompact:
		return "compact"
	case PolicyScatter:
		return "scatter"
	}
	return fmt.Sprintf("Policy(%d)", int(p))
}

// ParsePolicy parses the String form of a Policy.
func ParsePolicy(s string) (Policy, error) {
	for _, p := range []Policy{PolicyNone, PolicyCompact, PolicyScatter} {
		if strings.EqualFold(s, p.String()) {
			return p, nil
		}
	}
	return 0, fmt.Errorf("%w: %q (want none, compact or scatter)", ErrPolicy, s)
}

// Errors returned by Place and PlaceOn.
var (
	ErrWorkers    = errors.New("topology: worker count must be at least 1")
	ErrPolicy     = errors.New("topology: unknown placement policy")
	ErrNotAllowed = errors.New("topology: CPUs not allowed for this process")
	ErrNoCPUs     = errors.New("topology: no CPU to place workers on")
)

// Placement assigns a CPU to each worker.
type Placement struct {
	// CPUs[i] is the CPU worker i is to pin itself to, or -1 for a worker
	// left to the OS scheduler.
	CPUs []int
	// Oversubscribed is true when there are more workers than CPUs to place
	// them on, so that some CPUs carry two or more workers (see Place).
	Oversubscribed bool
	// Notes explains, in words, anything a person reading a report should
	// know about this placement (oversubscription, no pinning).
	Notes []string
}

// Place assigns the topology's allowed CPUs to workers according to p.
//
// Only Allowed CPUs are used. When workers exceeds the number of allowed CPUs,
// the CPUs are reused in the policy's order (worker i takes the (i mod n)-th
// CPU of the order, n the number of allowed CPUs), so each CPU carries
// workers/n or workers/n+1 workers; Oversubscribed is set and a note says so.
// Pinned oversubscription keeps the workers where the policy wants them at the
// price of time-slicing them on one CPU; a caller that prefers an error checks
// Oversubscribed, and one that prefers floating workers uses PolicyNone.
//
// Place errors only on workers < 1 (ErrWorkers), an unknown policy
// (ErrPolicy) or a topology without allowed CPUs (ErrNoCPUs).
func (t *Topology) Place(workers int, p Policy) (Placement, error) {
	if workers < 1 {
		return Placement{}, fmt.Errorf("%w: got %d", ErrWorkers, workers)
	}
	switch p {
	case PolicyNone:
		cpus := make([]int, workers)
		for i := range cpus {
			cpus[i] = -1
		}
		return Placement{CPUs: cpus, Notes: []string{"policy none: workers are not pinned; the OS scheduler places them"}}, nil
	case PolicyCompact, PolicyScatter:
	default:
		return Placement{}, fmt.Errorf("%w: %v", ErrPolicy, p)
	}
	if t.Allowed.IsEmpty() {
		return Placement{}, ErrNoCPUs
	}
	var order []int
	if p == PolicyCompact {
		order = t.compactOrder(t.Allowed)
	} else {
		order = t.scatterOrder(t.Allowed)
	}
	return assign(order, workers, p.String()), nil
}

// PlaceOn pins workers to an explicit set of CPUs, for people who know their
// machine better than the policies do. Every CPU of cpus must be allowed (an
// error wrapping ErrNotAllowed lists those that are not). Workers take the
// set's CPUs in compact order, so that neighbouring workers share the most
// cache; more workers than CPUs reuse them as Place does.
func (t *Topology) PlaceOn(cpus CPUSet, workers int) (Placement, error) {
	if workers < 1 {
		return Placement{}, fmt.Errorf("%w: got %d", ErrWorkers, workers)
	}
	if cpus.IsEmpty() {
		return Placement{}, fmt.Errorf("%w: the explicit CPU list is empty", ErrNoCPUs)
	}
	if bad := cpus.Difference(t.Allowed); !bad.IsEmpty() {
		return Placement{}, fmt.Errorf("%w: %s (allowed: %s)", ErrNotAllowed, bad, t.Allowed)
	}
	return assign(t.compactOrder(cpus), workers, "cpus "+cpus.String()), nil
}

// assign gives worker i the (i mod len(order))-th CPU of order.
func assign(order []int, workers int, what string) Placement {
	pl := Placement{CPUs: make([]int, workers)}
	for i := range pl.CPUs {
		pl.CPUs[i] = order[i%len(order)]
	}
	if workers > len(order) {
		pl.Oversubscribed = true
		pl.Notes = append(pl.Notes, fmt.Sprintf(
			"oversubscribed: %d workers on %d CPUs (%s); CPUs are reused in order, up to %d workers per CPU",
			workers, len(order), what, (workers+len(order)-1)/len(order)))
	}
	return pl
}

// placeLevels is the number of hierarchy levels in a placeKey.
const placeLevels = 7

// placeKey locates a CPU in the hierarchy, outermost level first: package,
// NUMA node, capacity class, die, L3 group, L2 group, core. Each level is
// named by the kernel id (package, node, die), a group's lowest CPU (caches,
// core) or the negated capacity (so that faster cores sort first on
// big.LITTLE and hybrid parts); equal keys mean the same group.
func (t *Topology) placeKey(cpu int) [placeLevels]int {
	c, ok := t.CPU(cpu)
	if !ok {
		return [placeLevels]int{-1, -1, 0, -1, -1, -1, cpu}
	}
	return [placeLevels]int{
		c.Package,
		c.Node,
		-c.Capacity,
		c.Die,
		t.SharedCache(cpu, 3).Min(),
		t.SharedCache(cpu, 2).Min(),
		c.Threads.Min(),
	}
}

// compactOrder orders cpus so that walking the order fills a core, then its
// L2 group, L3 group, die, node and package before moving on.
func (t *Topology) compactOrder(cpus CPUSet) []int {
	order := cpus.List()
	keys := make(map[int][placeLevels]int, len(order))
	for _, c := range order {
		keys[c] = t.placeKey(c)
	}
	sort.SliceStable(order, func(i, j int) bool {
		a, b := keys[order[i]], keys[order[j]]
		for k := range a {
			if a[k] != b[k] {
				return a[k] < b[k]
			}
		}
		return order[i] < order[j]
	})
	return order
}

// scatterOrder orders cpus so that consecutive CPUs are as far apart as the
// hierarchy allows: the first thread of every core comes before any second
// thread, and within each such round, packages, nodes, dies, L3 and L2
// groups and cores take turns.
func (t *Topology) scatterOrder(cpus CPUSet) []int {
	// rank[c] is c's position among the allowed threads of its core.
	byRank := map[int][]int{}
	maxRank := 0
	for _, c := range cpus.List() {
		threads := NewCPUSet(c)
		if cc, ok := t.CPU(c); ok {
			threads = cc.Threads.Intersect(cpus)
		}
		r := 0
		for _, s := range threads.List() {
			if s < c {
				r++
			}
		}
		byRank[r] = append(byRank[r], c)
		maxRank = max(maxRank, r)
	}
	var order []int
	for r := 0; r <= maxRank; r++ {
		order = append(order, t.interleave(byRank[r], 0)...)
	}
	return order
}

// interleave orders cpus by taking turns between the groups at hierarchy
// level (an index into placeKey), each group ordered the same way one level
// down.
func (t *Topology) interleave(cpus []int, level int) []int {
	if len(cpus) <= 1 || level == placeLevels {
		return cpus
	}
	groups := map[int][]int{}
	var ids []int
	for _, c := range cpus {
		k := t.placeKey(c)[level]
		if _, ok := groups[k]; !ok {
			ids = append(ids, k)
		}
		groups[k] = append(groups[k], c)
	}
	sort.Ints(ids)
	if len(ids) == 1 {
		return t.interleave(cpus, level+1)
	}
	lists := make([][]int, len(ids))
	for i, id := range ids {
		lists[i] = t.interleave(groups[id], level+1)
	}
	out := make([]int, 0, len(cpus))
	for round := 0; len(out) < len(cpus); round++ {
		for _, l := range lists {
			if round < len(l) {
				out = append(out, l[round])
			}
		}
	}
	return out
}
