package topology

import (
	"fmt"
	"sort"
)

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

// TierKind names how close a tier's workers are to the thief.
type TierKind int

// Tier kinds, nearest first. StealTiers emits them in this order (remote tiers
// by increasing NUMA distance), dropping empty ones.
const (
	TierSameCPU  TierKind = iota // pinned to the thief's own CPU (only when oversubscribed)
	TierSMT                      // an SMT sibling: same core, shares L1 and L2
	TierL2                       // another core sharing the thief's L2 (a cluster)
	TierL3                       // another core sharing the thief's L3 (an LLC group, CCX)
	TierNode                     // same NUMA node, no shared cache
	TierPackage                  // same package, another NUMA node (AMD NPS2/NPS4, Intel SNC)
	TierRemote                   // another package; Tier.Distance says how far
	TierUnpinned                 // workers without a CPU: their distance is unknown
	TierAny                      // the thief itself is unpinned: every other worker
)

var tierNames = [...]string{"same-cpu", "smt", "l2", "l3", "node", "package", "remote", "unpinned", "any"}

// String returns a short lower-case name ("smt", "l3", "remote", ...).
func (k TierKind) String() string {
	if k >= 0 && int(k) < len(tierNames) {
		return tierNames[k]
	}
	return fmt.Sprintf("TierKind(%d)", int(k))
}

// Tier is one ring of victims around a thief.
type Tier struct {
	Kind TierKind
	// Distance is the NUMA distance of a TierRemote tier (-1 if unknown);
	// 0 for other kinds.
	Distance int
	// Workers holds worker indexes, ascending.
	Workers []int
}

// StealTiers returns, for each worker i (pinned to workerCPUs[i], or -1 when
// unpinned), the other workers grouped by distance from i, nearest tier
// first: SMT siblings, shared L2, shared L3, same NUMA node, same package,
// then other packages by NUMA distance, then unpinned workers. Empty tiers
// are dropped; every other worker appears in exactly one tier. An unpinned
// worker gets one flat tier of all the others. A thief scans a tier in random
// order and moves to the next tier when it found nothing.
//
// Two workers on the same CPU (an oversubscribed placement) form a tier of
// their own before the SMT siblings.
func (t *Topology) StealTiers(workerCPUs []int) [][][]int {
	labelled := t.StealTiersLabelled(workerCPUs)
	out := make([][][]int, len(labelled))
	for i, tiers := range labelled {
		out[i] = make([][]int, len(tiers))
		for k, tier := range tiers {
			out[i][k] = tier.Workers
		}
	}
	return out
}

// StealTiersLabelled is StealTiers with each tier's kind, for reports.
func (t *Topology) StealTiersLabelled(workerCPUs []int) [][]Tier {
	out := make([][]Tier, len(workerCPUs))
	for i := range workerCPUs {
		out[i] = t.tiersOf(i, workerCPUs)
	}
	return out
}

// tierKey orders tiers: by kind, then remote tiers by distance (unknown last).
type tierKey struct {
	kind TierKind
	dist int
}

func (t *Topology) tiersOf(i int, workerCPUs []int) []Tier {
	me := workerCPUs[i]
	byKey := map[tierKey][]int{}
	for j, other := range workerCPUs {
		if j == i {
			continue
		}
		var k tierKey
		switch {
		case me < 0:
			k = tierKey{TierAny, 0}
		case other < 0:
			k = tierKey{TierUnpinned, 0}
		default:
			k = t.relation(me, other)
		}
		byKey[k] = append(byKey[k], j)
	}
	keys := make([]tierKey, 0, len(byKey))
	for k := range byKey {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(a, b int) bool {
		ka, kb := keys[a], keys[b]
		if ka.kind != kb.kind {
			return ka.kind < kb.kind
		}
		// Remote: nearer first, unknown (-1) last.
		if (ka.dist < 0) != (kb.dist < 0) {
			return kb.dist < 0
		}
		return ka.dist < kb.dist
	})
	tiers := make([]Tier, len(keys))
	for n, k := range keys {
		tiers[n] = Tier{Kind: k.kind, Distance: k.dist, Workers: byKey[k]}
	}
	return tiers
}

// relation classifies CPU b as seen from CPU a.
func (t *Topology) relation(a, b int) tierKey {
	if a == b {
		return tierKey{TierSameCPU, 0}
	}
	ca, okA := t.CPU(a)
	cb, okB := t.CPU(b)
	if !okA || !okB {
		return tierKey{TierRemote, -1}
	}
	switch {
	case ca.Threads.Contains(b):
		return tierKey{TierSMT, 0}
	case t.SharedCache(a, 2).Contains(b):
		return tierKey{TierL2, 0}
	case t.SharedCache(a, 3).Contains(b):
		return tierKey{TierL3, 0}
	case ca.Node >= 0 && ca.Node == cb.Node:
		return tierKey{TierNode, 0}
	case ca.Package >= 0 && ca.Package == cb.Package:
		return tierKey{TierPackage, 0}
	}
	return tierKey{TierRemote, t.Distance(ca.Node, cb.Node)}
}
