// Package topology tells the Blitz pool where its workers should sit and whom
// a thief should rob first. It detects the machine's CPU topology, places
// workers on CPUs by a policy, pins a worker's thread to its CPU, and orders
// each worker's steal victims by distance.
//
// # Vocabulary
//
// A CPU (hwloc's PU, Linux's "cpuN") is one hardware thread. SMT siblings are
// the threads of one core; they share its L1 and L2. A cluster is a group of
// cores sharing an L2 (arm64 clusters, Intel E-core modules). An L3 group (the
// last-level cache group; AMD's CCX) shares an L3. A die and a package are the
// silicon and the socket. A NUMA node is a set of CPUs with the same memory
// latency; the kernel's distance matrix says how far nodes are from each other
// (10 is local). The allowed set is the CPUs this process may run on.
//
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
// The allowed set comes from sched_getaffinity, which already reflects cgroup
// cpusets (read on a thread that no pinned goroutine holds, so that a pinned
// caller sees the process's CPUs, not its own; failing that, the
// Cpus_allowed_list line of /proc/self/status), and is cut to the online
// CPUs. A core is identified by its sibling list, not by
// core_id, which restarts in every package and, on many arm64 parts, in every
// cluster. Caches are de-duplicated by level, type and sharing set.
// github.com/klauspost/cpuid/v2 adds the vendor, brand, family and model,
// cache sizes and line size, and golang.org/x/sys/cpu the feature flags that
// matter here (Identity). Those describe the running machine only, so
// DetectFrom leaves Identity empty. cpuid/v2 hard-codes a 64-byte line on
// arm64; sysfs's coherency_line_size is the number to trust there.
//
// On other systems Detect returns Flat(runtime.NumCPU()): every CPU its own
// core in one package of unknown id, no caches, no NUMA, and a reason.
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
//
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
// # Pinning
//
// A worker calls Pin(cpu) at its start: runtime.LockOSThread, then
// sched_setaffinity(0, {cpu}) on that thread, for the goroutine's whole life.
// When a goroutine returns still locked, the runtime ends its thread (or, for
// the main thread, parks it for good), so the narrowed mask never reaches
// another goroutine; the unpin function restores
// the old mask and unlocks, for callers that pin for a while only. New
// threads are spawned from the runtime's template thread when the requesting
// thread is locked, so they do not inherit the mask either. Failures (EINVAL
// for an offline CPU or one outside the cpuset, EPERM under seccomp or a
// security policy) return an error and leave the thread untouched: the pool
// runs that worker unpinned and reports the reason in its stats. Outside
// Linux, Pin returns ErrPinUnsupported.
//
// # Steal tiers
//
// StealTiers(workerCPUs) gives each worker its victims grouped in rings of
// increasing distance:
//
//	same-cpu   another worker on the same CPU (only when oversubscribed)
//	smt        an SMT sibling: shares L1 and L2
//	l2         shares the L2 (cluster)
//	l3         shares the L3 (CCX, LLC group)
//	node       same NUMA node, no shared cache
//	package    same package, another node (NPS2/NPS4, sub-NUMA clustering)
//	remote     other packages, one ring per NUMA distance, nearest first
//	unpinned   workers with no CPU: distance unknown, so last
//
// Empty rings are dropped. An unpinned thief gets a single ring of everyone
// ("any"). A thief scans a ring in random order (randomisation spreads
// contention, as in rayon's and Go's schedulers) and moves outwards only when
// the ring came up empty: stolen work then arrives from a cache the thief
// shares, and a cross-socket steal, which moves every cache line of the job
// over the interconnect, happens only when nothing nearer is left. With
// compact placement on the 2-socket fixture, worker 0 (CPU 0) sees
//
//	smt [1] | l3 [2 3 4 5 6 7] | remote(21) [8 ... 15]
//
// Whether this beats uniform random stealing is a measurement of the pool,
// not of this package; it belongs with the pool's benchmarks.
//
// # Why the tiers collapse on a 2-vCPU VM
//
// The development machine is a KVM guest with two vCPUs. Its sysfs (fixture
// this-vm) shows two single-thread cores with private L2s and one shared L3:
// each worker has exactly one victim, in one ring. Tiered and random stealing
// are then the same thing, and pinning buys nothing either: a vCPU is a host
// thread the hypervisor moves at will, and the guest's L3 "sharing" is the
// host's description, not a guarantee that the two vCPUs sit on one socket.
// The tiers are tested on the fixtures; their benefit must be measured on a
// real multi-core machine.
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
//
// # Testing
//
// testdata/ holds plain sysfs trees: intel-2s, epyc-nps2 (4 CCXs, NPS2),
// arm64-biglittle (two clusters of different capacity), container-1cpu (most
// of sysfs hidden, affinity one CPU), holes (offline CPUs and malformed
// files), and this-vm (copied from the development machine by
// testdata/capture.sh, which captures any Linux machine the same way). The
// synthetic ones are written by fixtures_gen_test.go (-genfixtures).
package topology
