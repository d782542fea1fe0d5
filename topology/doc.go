// Package topology tells the Blitz pool where its workers should sit and whom
// a thief should rob first. It detects the machine's CPU topology, places
// workers on CPUs by a policy, pins a worker's thread to its CPU, and orders
// each worker's steal victims by distance.
//
// # Which function
//
//	to ...                                              call
//	read the running machine's topology                 Detect
//	read a captured sysfs tree (tests, any OS)          DetectFrom
//	stand in for a topology in tests                    Flat
//	choose a CPU for each worker                        Topology.Place with PolicyNone,
//	                                                    PolicyCompact or PolicyScatter
//	  on CPUs of your choosing                          Topology.PlaceOn
//	bind the calling goroutine to a CPU                 Pin (PinSupported says if it can)
//	read the calling thread's CPU mask                  ThreadAffinity
//	order each worker's steal victims by distance       Topology.StealTiers,
//	                                                    Topology.StealTiersLabelled
//	ask which CPUs share a cache, how far nodes are     Topology.SharedCache, Distance
//	parse or print a Linux CPU list ("0-3,8-11")        ParseCPUList, CPUSet.String
//	name the processor model and its features           HostIdentity
//
// # Rules
//
//   - Detection never fails and never panics. Whatever sysfs hides or
//     garbles (containers, offline CPUs, malformed files) is replaced by a
//     safe assumption, described in words in Topology.Degraded. A Topology
//     is read-only once built and may be shared between goroutines.
//   - Outside Linux, Detect returns Flat(runtime.NumCPU()) with a reason in
//     Degraded: every CPU its own core, no caches, no NUMA. Pin and
//     ThreadAffinity return ErrPinUnsupported (which wraps
//     errors.ErrUnsupported) and PinSupported is false; DetectFrom works on
//     every OS.
//   - Placement uses only the CPUs this process may run on (Topology.Allowed:
//     the affinity mask, which reflects cgroup cpusets). PolicyNone, the
//     default, pins nothing and suits shared and virtual machines. With more
//     workers than CPUs, Place reuses the CPUs in order and sets
//     Placement.Oversubscribed. PlaceOn returns ErrNotAllowed if any CPU it
//     is given is not allowed.
//   - Pin binds the calling goroutine: it locks it to its OS thread and sets
//     that thread's affinity. Call unpin on the same goroutine, or never: a
//     goroutine that returns still locked takes its thread with it. When Pin
//     fails, the goroutine is left as it was, and the caller runs unpinned.
//   - A Topology and a Placement are snapshots: nothing follows later
//     changes of the cgroup's cpuset or of GOMAXPROCS (a pinned worker whose
//     CPU leaves the cpuset keeps running, unpinned). Detect again, and
//     restart the pool, to re-place its workers.
//
// # Example
//
// The package example (example_test.go) is a pool's start-up on a captured
// two-socket server: detect, place four workers, list a worker's steal
// tiers. The examples of Topology.Place and Topology.StealTiers compare the
// policies and tiers on it; the example of Pin is a worker that pins itself
// and falls back to running unpinned.
//
// How detection reads sysfs and degrades is told at the top of sysfs.go;
// the placement policies, in placement.go; pinning, in pin.go; the steal
// tiers, in tiers.go; the vocabulary, in topology.go.
package topology
