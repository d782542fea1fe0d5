package topology

import (
	"fmt"
	"sort"
	"testing"
)

// checkTiers asserts the shape every StealTiers answer has: one entry per
// worker; each other worker in exactly one non-empty tier; tiers sorted.
func checkTiers(t testing.TB, topo *Topology, cpus []int) {
	t.Helper()
	tiers := topo.StealTiers(cpus)
	if len(tiers) != len(cpus) {
		t.Fatalf("%d tier lists for %d workers", len(tiers), len(cpus))
	}
	for i, ts := range tiers {
		seen := map[int]bool{}
		for _, tier := range ts {
			if len(tier) == 0 || !sort.IntsAreSorted(tier) {
				t.Errorf("worker %d: tier %v empty or unsorted", i, tier)
			}
			for _, j := range tier {
				if j == i || seen[j] || j < 0 || j >= len(cpus) {
					t.Errorf("worker %d: victim %d repeated, itself or out of range in %v", i, j, ts)
				}
				seen[j] = true
			}
		}
		if len(seen) != len(cpus)-1 {
			t.Errorf("worker %d: %d victims in %v, want %d", i, len(seen), ts, len(cpus)-1)
		}
	}
}

// describe renders one worker's labelled tiers, e.g. "smt[1] l3[2 3] remote(21)[4]".
func describe(tiers []Tier) string {
	s := ""
	for _, tr := range tiers {
		if s != "" {
			s += " "
		}
		label := tr.Kind.String()
		if tr.Kind == TierRemote {
			label = fmt.Sprintf("remote(%d)", tr.Distance)
		}
		s += fmt.Sprintf("%s%v", label, tr.Workers)
	}
	return s
}

func TestStealTiers(t *testing.T) {
	cases := []struct {
		fixture string
		workers int
		policy  Policy
		want    map[int]string // worker -> its tiers
	}{
		// Worker 0 on CPU 0: its SMT sibling first, then its socket's L3,
		// last the other socket.
		{"intel-2s", 16, PolicyCompact, map[int]string{
			0:  "smt[1] l3[2 3 4 5 6 7] remote(21)[8 9 10 11 12 13 14 15]",
			9:  "smt[8] l3[10 11 12 13 14 15] remote(21)[0 1 2 3 4 5 6 7]",
			15: "smt[14] l3[8 9 10 11 12 13] remote(21)[0 1 2 3 4 5 6 7]",
		}},
		// Scatter puts no SMT siblings side by side with 8 workers.
		{"intel-2s", 8, PolicyScatter, map[int]string{
			0: "l3[2 4 6] remote(21)[1 3 5 7]",
		}},
		// CCX, then the rest of the NUMA node, then the other node of
		// the same socket.
		{"epyc-nps2", 32, PolicyCompact, map[int]string{
			0:  "smt[1] l3[2 3 4 5 6 7] node[8 9 10 11 12 13 14 15] package[16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31]",
			31: "smt[30] l3[24 25 26 27 28 29] node[16 17 18 19 20 21 22 23] package[0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15]",
		}},
		// Big cores first (workers 0-3 on CPUs 4-7): the cluster's L2,
		// then the little cluster through the shared L3.
		{"arm64-biglittle", 8, PolicyCompact, map[int]string{
			0: "l2[1 2 3] l3[4 5 6 7]",
			5: "l2[4 6 7] l3[0 1 2 3]",
		}},
		// The container knows nothing: every CPU is its own core of an
		// unknown package, at unknown distance.
		{"container-1cpu", 2, PolicyCompact, map[int]string{
			0: "same-cpu[1]",
		}},
		// Two vCPUs sharing only an L3: one tier, the same as random.
		{"this-vm", 2, PolicyCompact, map[int]string{
			0: "l3[1]",
			1: "l3[0]",
		}},
		// One worker: nothing to steal from.
		{"this-vm", 1, PolicyCompact, map[int]string{0: ""}},
		// Unpinned workers: one flat tier.
		{"intel-2s", 4, PolicyNone, map[int]string{
			0: "any[1 2 3]",
			3: "any[0 1 2]",
		}},
		// Oversubscribed: the worker sharing the CPU comes first.
		{"intel-2s", 17, PolicyCompact, map[int]string{
			0:  "same-cpu[16] smt[1] l3[2 3 4 5 6 7] remote(21)[8 9 10 11 12 13 14 15]",
			16: "same-cpu[0] smt[1] l3[2 3 4 5 6 7] remote(21)[8 9 10 11 12 13 14 15]",
		}},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s/%d/%v", c.fixture, c.workers, c.policy), func(t *testing.T) {
			topo := load(t, c.fixture)
			pl := place(t, topo, c.workers, c.policy)
			checkTiers(t, topo, pl.CPUs)
			labelled := topo.StealTiersLabelled(pl.CPUs)
			for w, s := range c.want {
				if got := describe(labelled[w]); got != s {
					t.Errorf("worker %d (cpu %d): %s\n                  want %s", w, pl.CPUs[w], got, s)
				}
			}
		})
	}
}

func TestStealTiersMixed(t *testing.T) {
	topo := load(t, "intel-2s")
	// Worker 1 unpinned, worker 3 on a CPU the topology does not know.
	cpus := []int{0, -1, 8, 99, 4}
	checkTiers(t, topo, cpus)
	labelled := topo.StealTiersLabelled(cpus)
	want(t, "worker 0", describe(labelled[0]), "smt[2] remote(21)[4] remote(-1)[3] unpinned[1]")
	want(t, "worker 1", describe(labelled[1]), "any[0 2 3 4]")
	want(t, "worker 3", describe(labelled[3]), "remote(-1)[0 2 4] unpinned[1]")
	want(t, "unlabelled", topo.StealTiers(cpus)[0], [][]int{{2}, {4}, {3}, {1}})
	want(t, "no workers", len(topo.StealTiers(nil)), 0)
}

// NUMA distances order the remote tiers: a 4-node ring where node 2 is
// farther than nodes 1 and 3.
func TestStealTiersDistanceOrder(t *testing.T) {
	topo := Flat(4, "")
	dist := [][]int{{10, 20, 30, 20}, {20, 10, 20, 30}, {30, 20, 10, 20}, {20, 30, 20, 10}}
	for i := range topo.CPUs {
		topo.CPUs[i].Node = i
		topo.CPUs[i].Package = i
		topo.Nodes = append(topo.Nodes, Node{ID: i, CPUs: NewCPUSet(i), Distances: dist[i]})
	}
	labelled := topo.StealTiersLabelled([]int{0, 1, 2, 3})
	want(t, "worker 0", describe(labelled[0]), "remote(20)[1 3] remote(30)[2]")
	want(t, "worker 2", describe(labelled[2]), "remote(20)[1 3] remote(30)[0]")
}

func TestTierKindString(t *testing.T) {
	want(t, "smt", TierSMT.String(), "smt")
	want(t, "any", TierAny.String(), "any")
	want(t, "unknown", TierKind(42).String(), "TierKind(42)")
}
