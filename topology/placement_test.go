package topology

import (
	"errors"
	"os"
	"strings"
	"testing"
)

func place(t *testing.T, topo *Topology, workers int, p Policy) Placement {
	t.Helper()
	pl, err := topo.Place(workers, p)
	if err != nil {
		t.Fatalf("Place(%d, %v): %v", workers, p, err)
	}
	if len(pl.CPUs) != workers {
		t.Fatalf("Place(%d, %v): %d CPUs", workers, p, len(pl.CPUs))
	}
	return pl
}

func TestPlaceOrders(t *testing.T) {
	cases := []struct {
		fixture string
		workers int
		policy  Policy
		want    []int
	}{
		// A core's threads, then the next core of the L3, then the other socket.
		{"intel-2s", 16, PolicyCompact, []int{0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15}},
		// Sockets alternate; no second thread before every core has one.
		{"intel-2s", 16, PolicyScatter, []int{0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15}},
		// One CCX first.
		{"epyc-nps2", 8, PolicyCompact, []int{0, 16, 1, 17, 2, 18, 3, 19}},
		// Nodes alternate, then the CCXs within each node: the first four
		// workers sit on four different L3s.
		{"epyc-nps2", 8, PolicyScatter, []int{0, 8, 4, 12, 1, 9, 5, 13}},
		{"epyc-nps2", 20, PolicyScatter, []int{0, 8, 4, 12, 1, 9, 5, 13, 2, 10, 6, 14, 3, 11, 7, 15, 16, 24, 20, 28}},
		// Big cores (capacity 1024) first, then the little cluster.
		{"arm64-biglittle", 8, PolicyCompact, []int{4, 5, 6, 7, 0, 1, 2, 3}},
		{"arm64-biglittle", 8, PolicyScatter, []int{4, 0, 5, 1, 6, 2, 7, 3}},
		{"container-1cpu", 1, PolicyScatter, []int{3}},
		{"holes", 4, PolicyCompact, []int{0, 1, 4, 5}},
		{"this-vm", 2, PolicyCompact, []int{0, 1}},
		{"this-vm", 2, PolicyScatter, []int{0, 1}},
	}
	for _, c := range cases {
		t.Run(c.fixture+"/"+c.policy.String(), func(t *testing.T) {
			pl := place(t, load(t, c.fixture), c.workers, c.policy)
			want(t, "cpus", pl.CPUs, c.want)
			want(t, "oversubscribed", pl.Oversubscribed, false)
			want(t, "notes", pl.Notes, []string(nil))
		})
	}
}

// Only allowed CPUs are used, and a core with one allowed thread counts as a
// core of one.
func TestPlaceRespectsAffinity(t *testing.T) {
	topo := DetectFrom(os.DirFS("testdata/intel-2s"), MustParseCPUList("2-5,10"))
	want(t, "compact", place(t, topo, 5, PolicyCompact).CPUs, []int{2, 10, 3, 4, 5})
	want(t, "scatter", place(t, topo, 5, PolicyScatter).CPUs, []int{2, 4, 3, 5, 10})
}

func TestPlaceOversubscribed(t *testing.T) {
	topo := load(t, "intel-2s")
	pl := place(t, topo, 20, PolicyCompact)
	want(t, "cpus", pl.CPUs, []int{0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15, 0, 8, 1, 9})
	want(t, "oversubscribed", pl.Oversubscribed, true)
	if len(pl.Notes) != 1 || !strings.Contains(pl.Notes[0], "20 workers on 16 CPUs") || !strings.Contains(pl.Notes[0], "up to 2 workers per CPU") {
		t.Errorf("notes = %q", pl.Notes)
	}
	pl = place(t, load(t, "container-1cpu"), 3, PolicyScatter)
	want(t, "container cpus", pl.CPUs, []int{3, 3, 3})
	want(t, "container oversubscribed", pl.Oversubscribed, true)
	// Exactly as many workers as CPUs is not oversubscribed.
	want(t, "16 on 16", place(t, topo, 16, PolicyScatter).Oversubscribed, false)
}

func TestPlaceNone(t *testing.T) {
	pl := place(t, load(t, "intel-2s"), 40, PolicyNone)
	for i, c := range pl.CPUs {
		if c != -1 {
			t.Fatalf("worker %d pinned to %d under PolicyNone", i, c)
		}
	}
	want(t, "oversubscribed (meaningless unpinned)", pl.Oversubscribed, false)
	if len(pl.Notes) != 1 || !strings.Contains(pl.Notes[0], "not pinned") {
		t.Errorf("notes = %q", pl.Notes)
	}
}

func TestPlaceOn(t *testing.T) {
	topo := load(t, "intel-2s")
	pl, err := topo.PlaceOn(MustParseCPUList("4-5,12-13"), 4)
	if err != nil {
		t.Fatal(err)
	}
	want(t, "explicit in compact order", pl.CPUs, []int{4, 12, 5, 13})
	pl, err = topo.PlaceOn(MustParseCPUList("0-15"), 2)
	if err != nil {
		t.Fatal(err)
	}
	want(t, "fewer workers than CPUs: one core first", pl.CPUs, []int{0, 8})
	pl, err = topo.PlaceOn(MustParseCPUList("7"), 2)
	if err != nil {
		t.Fatal(err)
	}
	want(t, "oversubscribed explicit", pl.CPUs, []int{7, 7})
	want(t, "oversubscribed flag", pl.Oversubscribed, true)

	container := load(t, "container-1cpu")
	_, err = container.PlaceOn(MustParseCPUList("2-3"), 1)
	if !errors.Is(err, ErrNotAllowed) || !strings.Contains(err.Error(), "2 (allowed: 3)") {
		t.Errorf("PlaceOn outside the affinity: %v", err)
	}
	if _, err = topo.PlaceOn(CPUSet{}, 1); !errors.Is(err, ErrNoCPUs) {
		t.Errorf("PlaceOn(empty): %v", err)
	}
	if _, err = topo.PlaceOn(NewCPUSet(0), 0); !errors.Is(err, ErrWorkers) {
		t.Errorf("PlaceOn(0 workers): %v", err)
	}
}

func TestPlaceErrors(t *testing.T) {
	topo := load(t, "this-vm")
	for _, n := range []int{0, -1} {
		if _, err := topo.Place(n, PolicyCompact); !errors.Is(err, ErrWorkers) {
			t.Errorf("Place(%d): %v", n, err)
		}
	}
	if _, err := topo.Place(1, Policy(9)); !errors.Is(err, ErrPolicy) {
		t.Errorf("Place(policy 9): %v", err)
	}
	if _, err := (&Topology{}).Place(1, PolicyCompact); !errors.Is(err, ErrNoCPUs) {
		t.Errorf("Place on an empty topology: %v", err)
	}
}

func TestPolicyStrings(t *testing.T) {
	for _, p := range []Policy{PolicyNone, PolicyCompact, PolicyScatter} {
		got, err := ParsePolicy(strings.ToUpper(p.String()))
		if err != nil || got != p {
			t.Errorf("ParsePolicy(%q) = %v, %v", p, got, err)
		}
	}
	if _, err := ParsePolicy("spread"); !errors.Is(err, ErrPolicy) {
		t.Errorf("ParsePolicy(spread): %v", err)
	}
	want(t, "unknown policy string", Policy(9).String(), "Policy(9)")
}

// Flat topologies (non-Linux) place in CPU order.
func TestPlaceFlat(t *testing.T) {
	topo := Flat(4, "test")
	want(t, "compact", place(t, topo, 4, PolicyCompact).CPUs, []int{0, 1, 2, 3})
	want(t, "scatter", place(t, topo, 4, PolicyScatter).CPUs, []int{0, 1, 2, 3})
	want(t, "degraded", topo.Degraded, []string{"test"})
	checkInvariants(t, topo, true)
	want(t, "Flat(0) has one CPU", Flat(0, "").Online.String(), "0")
}
