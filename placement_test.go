package blitz

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/blitz-go/blitz/topology"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// withDetect makes New place on topo instead of the running machine.
func withDetect(topo *topology.Topology) Option {
	return func(c *config) { c.place.detect = func() *topology.Topology { return topo } }
}

// withPin replaces topology.Pin for the pool's workers.
func withPin(pin func(cpu int) (func(), error)) Option {
	return func(c *config) { c.place.pin = pin }
}

// fixture loads one of topology's sysfs fixtures, every online CPU allowed.
func fixture(t *testing.T, name string) *topology.Topology {
	t.Helper()
	topo := topology.DetectFrom(os.DirFS("topology/testdata/"+name), topology.CPUSet{})
	if len(topo.CPUs) == 0 {
		t.Fatalf("fixture %s: no CPUs", name)
	}
	return topo
}

// onEachWorker runs f once on every worker of p, concurrently, and returns
// what each worker returned, by worker index. Each task holds its worker at
// a barrier until all n have arrived, so n tasks land on n distinct workers.
func onEachWorker[T any](t *testing.T, p *Pool, f func(w *Worker) T) []T {
	t.Helper()
	n := p.Workers()
	out := make([]T, n)
	ran := make([]atomic.Int32, n)
	var arrived, done sync.WaitGroup
	arrived.Add(n)
	done.Add(n)
	release := make(chan struct{})
	for i := 0; i < n; i++ {
		err := p.Go(func(w *Worker) {
			defer done.Done()
			out[w.Index()] = f(w)
			ran[w.Index()].Add(1)
			arrived.Done()
			<-release
		})
		if err != nil {
			t.Fatalf("Go: %v", err)
		}
	}
	within(t, "every worker reaching the barrier", arrived.Wait)
	close(release)
	within(t, "every barrier task finishing", done.Wait)
	for i := 0; i < n; i++ {
		if got := ran[i].Load(); got != 1 {
			t.Fatalf("worker %d ran %d barrier tasks, want 1", i, got)
		}
	}
	return out
}

// affinity is what a task reads back on its worker's thread.
type affinity struct {
	set topology.CPUSet
	err error
}

func threadAffinity(*Worker) affinity {
	s, err := topology.ThreadAffinity()
	return affinity{s, err}
}

// checkWorkload runs a parallel sum and fib on p and checks the results.
func checkWorkload(t *testing.T, p *Pool) {
	t.Helper()
	const n = 50_000 // the sum fits a 32-bit int
	sum := doW(t, p, func(w *Worker) int {
		return mapReduceRange(w, 0, n, 64, 0,
			func(_ *Worker, lo, hi int) int {
				s := 0
				for i := lo; i < hi; i++ {
					s += i
				}
				return s
			},
			func(a, b int) int { return a + b })
	})
	if want := n * (n - 1) / 2; sum != want {
		t.Errorf("parallel sum = %d, want %d", sum, want)
	}
	if got, want := doW(t, p, func(w *Worker) int { return fibArgs(w, 20) }), seqFib(20); got != want {
		t.Errorf("fib(20) = %d, want %d", got, want)
	}
}

func placementParkings() []Parking {
	ks := []Parking{ParkingPortable}
	if runtime.GOOS == "linux" {
		ks = append(ks, ParkingFutex) // locks the thread before Pin does: the locks nest
	}
	return ks
}

// TestPlacementCompactPins: with PolicyCompact every worker's thread is bound
// to the CPU topology.Place chose for it, as read back from a task running
// on that worker, and parallel work still computes the right results.
func TestPlacementCompactPins(t *testing.T) {
	if !topology.PinSupported {
		t.Skip("no pinning on this system")
	}
	topo := topology.Detect()
	allowed := topo.Allowed.Len()
	for _, k := range placementParkings() {
		for _, n := range []int{1, allowed} {
			t.Run(fmt.Sprintf("parking=%v/workers=%d", k, n), func(t *testing.T) {
				want, err := topo.Place(n, topology.PolicyCompact)
				if err != nil {
					t.Fatal(err)
				}
				withPool(t, []Option{WithParking(k), WithWorkers(n), WithPlacement(topology.PolicyCompact)}, func(p *Pool) {
					st := p.Stats()
					if len(st.Placement) != n {
						t.Fatalf("Stats.Placement has %d entries, want %d", len(st.Placement), n)
					}
					for i, wp := range st.Placement {
						if wp.Worker != i || wp.CPU != want.CPUs[i] || !wp.Pinned || wp.PinError != "" {
							t.Errorf("Stats.Placement[%d] = %+v, want worker %d pinned to cpu %d", i, wp, i, want.CPUs[i])
						}
					}
					t.Logf("placement: %v", st.Placement)
					for i, a := range onEachWorker(t, p, threadAffinity) {
						if a.err != nil {
							t.Errorf("worker %d: ThreadAffinity: %v", i, a.err)
						} else if !a.set.Equal(topology.NewCPUSet(want.CPUs[i])) {
							t.Errorf("worker %d runs on CPUs %v, want {%d}", i, a.set, want.CPUs[i])
						}
					}
					checkWorkload(t, p)
				})
			})
		}
	}
}

// TestPlacementRepinAfterGoexit: a worker replaced after a task's Goexit
// pins its new goroutine to the same CPU.
func TestPlacementRepinAfterGoexit(t *testing.T) {
	if !topology.PinSupported {
		t.Skip("no pinning on this system")
	}
	topo := topology.Detect()
	n := topo.Allowed.Len()
	want, err := topo.Place(n, topology.PolicyScatter)
	if err != nil {
		t.Fatal(err)
	}
	withPool(t, []Option{WithWorkers(n), WithPlacement(topology.PolicyScatter)}, func(p *Pool) {
		done := make(chan struct{})
		if err := p.Go(func(*Worker) { close(done); runtime.Goexit() }); err != nil {
			t.Fatal(err)
		}
		within(t, "the Goexit task", func() { <-done })
		// onEachWorker needs every worker, the replacement included.
		for i, a := range onEachWorker(t, p, threadAffinity) {
			if a.err != nil || !a.set.Equal(topology.NewCPUSet(want.CPUs[i])) {
				t.Errorf("after a respawn, worker %d runs on %v (err %v), want {%d}", i, a.set, a.err, want.CPUs[i])
			}
		}
		if r := p.Stats().Respawns; r != 1 {
			t.Errorf("Respawns = %d, want 1", r)
		}
		for i, wp := range p.Stats().Placement {
			if !wp.Pinned {
				t.Errorf("after a respawn, worker %d: %v", i, wp)
			}
		}
		checkWorkload(t, p)
	})
}

// TestPlacementPinFailure: a pin that fails leaves the worker unpinned, the
// reason in Stats, and the pool working.
func TestPlacementPinFailure(t *testing.T) {
	for _, k := range placementParkings() {
		t.Run(fmt.Sprintf("parking=%v", k), func(t *testing.T) {
			var calls atomic.Int32
			failing := func(cpu int) (func(), error) {
				calls.Add(1)
				// As topology.Pin does on failure: lock, fail, unlock.
				runtime.LockOSThread()
				runtime.UnlockOSThread()
				return nil, fmt.Errorf("pin to cpu %d: %w", cpu, errors.ErrUnsupported)
			}
			withPool(t, []Option{WithParking(k), WithWorkers(2), WithPlacement(topology.PolicyCompact), withPin(failing)}, func(p *Pool) {
				if got := calls.Load(); got != 2 {
					t.Errorf("pin called %d times before New returned, want 2", got)
				}
				st := p.Stats()
				if len(st.Placement) != 2 {
					t.Fatalf("Stats.Placement = %v, want 2 entries", st.Placement)
				}
				for i, wp := range st.Placement {
					if wp.Pinned || !strings.Contains(wp.PinError, "unsupported") || wp.CPU < 0 {
						t.Errorf("Stats.Placement[%d] = %+v, want unpinned with the pin error", i, wp)
					}
					if s := wp.String(); !strings.Contains(s, "unpinned (") {
						t.Errorf("WorkerPlacement.String() = %q, want the reason", s)
					}
				}
				checkWorkload(t, p)
			})
		})
	}
}

// TestPlacementOversubscribed: more workers than allowed CPUs reuse the CPUs
// round-robin, every worker pinned, with a note, and the pool works.
func TestPlacementOversubscribed(t *testing.T) {
	if !topology.PinSupported {
		t.Skip("no pinning on this system")
	}
	topo := topology.Detect()
	allowed := topo.Allowed.Len()
	n := 2*allowed + 1
	want, err := topo.Place(n, topology.PolicyCompact)
	if err != nil {
		t.Fatal(err)
	}
	withPool(t, []Option{WithWorkers(n), WithPlacement(topology.PolicyCompact)}, func(p *Pool) {
		st := p.Stats()
		for i, wp := range st.Placement {
			if wp.CPU != want.CPUs[i] || wp.CPU != want.CPUs[i%allowed] || !wp.Pinned {
				t.Errorf("Stats.Placement[%d] = %v, want pinned to cpu %d", i, wp, want.CPUs[i%allowed])
			}
		}
		if len(p.PlacementNotes()) == 0 {
			t.Errorf("an oversubscribed placement has no note")
		}
		t.Logf("notes: %q", p.PlacementNotes())
		// Workers on one CPU are each other's first steal tier, one list
		// shared by all of them, the thief included (steal skips it).
		if len(p.workerList()[0].tiers) == 0 || !reflect.DeepEqual(p.workerList()[0].tiers[0], []int{0, allowed, 2 * allowed}) {
			t.Errorf("worker 0's first tier = %v, want the workers sharing its CPU [0 %d %d]", p.workerList()[0].tiers, allowed, 2*allowed)
		}
		if len(p.workerList()[allowed].tiers) == 0 || &p.workerList()[allowed].tiers[0][0] != &p.workerList()[0].tiers[0][0] {
			t.Errorf("workers 0 and %d on one CPU do not share their tiers", allowed)
		}
		checkWorkload(t, p)
	})
}

// TestPlanOnIntel2S: the tiers the pool uses come from the topology. On the
// 2-socket fixture with compact placement, worker 0's first tier is its SMT
// sibling and its last the other socket.
func TestPlanOnIntel2S(t *testing.T) {
	topo := fixture(t, "intel-2s")
	pc := placementConfig{policy: topology.PolicyCompact, policySet: true}
	pl, err := planOn(topo, 16, &pc, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15}; !reflect.DeepEqual(pl.cpus, want) {
		t.Errorf("cpus = %v, want %v", pl.cpus, want)
	}
	if !reflect.DeepEqual(ownTiers(pl.tiers), topo.StealTiers(pl.cpus)) {
		t.Errorf("tiers are not topology.StealTiers of the placement")
	}
	w0 := pl.tiers[0]
	want := [][]int{{1}, {2, 3, 4, 5, 6, 7}, {8, 9, 10, 11, 12, 13, 14, 15}}
	if !reflect.DeepEqual(w0, want) {
		t.Errorf("worker 0's tiers = %v, want %v (smt | l3 | remote)", w0, want)
	}
	// The last tier holds exactly the workers on the other package.
	cpu0, _ := topo.CPU(pl.cpus[0])
	for _, v := range w0[len(w0)-1] {
		if c, _ := topo.CPU(pl.cpus[v]); c.Package == cpu0.Package {
			t.Errorf("last tier holds worker %d on cpu %d of worker 0's package", v, c.ID)
		}
	}
	if err := validateTiers(pl.tiers, 16); err != nil {
		t.Errorf("tiers fail the pool's validation: %v", err)
	}

	// Explicit tiers win over the topology's.
	flat := flatTiers(16)
	pl, err = planOn(topo, 16, &pc, flat)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(pl.tiers, flat) {
		t.Errorf("WithStealTiers did not win over the topology's tiers")
	}
}

// TestPlanOnFixtures: on every fixture, each policy gives a valid tier
// list, and an explicit CPU list places on those CPUs only.
func TestPlanOnFixtures(t *testing.T) {
	for _, name := range []string{"intel-2s", "epyc-nps2", "arm64-biglittle", "container-1cpu", "holes", "this-vm"} {
		topo := fixture(t, name)
		for _, pol := range []topology.Policy{topology.PolicyCompact, topology.PolicyScatter} {
			for _, n := range []int{1, 2, 3, topo.Allowed.Len() + 1} {
				pc := placementConfig{policy: pol, policySet: true}
				pl, err := planOn(topo, n, &pc, nil)
				if err != nil {
					t.Errorf("%s/%v/%d: %v", name, pol, n, err)
					continue
				}
				for i, c := range pl.cpus {
					if !topo.Allowed.Contains(c) {
						t.Errorf("%s/%v/%d: worker %d on cpu %d, not allowed", name, pol, n, i, c)
					}
				}
				own := ownTiers(pl.tiers)
				if err := validateTiers(own, n); err != nil {
					t.Errorf("%s/%v/%d: %v", name, pol, n, err)
				}
				if !reflect.DeepEqual(own, topo.StealTiers(pl.cpus)) {
					t.Errorf("%s/%v/%d: tiers are not topology.StealTiers of the placement", name, pol, n)
				}
			}
		}
		first := topo.Allowed.Min()
		pc := placementConfig{cpus: []int{first}, cpusSet: true}
		pl, err := planOn(topo, 3, &pc, nil)
		if err != nil || !reflect.DeepEqual(pl.cpus, []int{first, first, first}) {
			t.Errorf("%s: WithCPUs(%d) for 3 workers = %v, %v", name, first, pl.cpus, err)
		}
	}
}

// TestPlacementPoolUsesFixtureTiers: a pool built on the fixture topology
// steals in the fixture's order (pinning is faked: the fixture's CPUs are
// not this machine's).
func TestPlacementPoolUsesFixtureTiers(t *testing.T) {
	topo := fixture(t, "intel-2s")
	var pins [16]atomic.Int32
	fake := func(cpu int) (func(), error) { pins[cpu].Add(1); return func() {}, nil }
	withPool(t, []Option{WithWorkers(16), WithPlacement(topology.PolicyCompact), withDetect(topo), withPin(fake)}, func(p *Pool) {
		want, _ := topo.Place(16, topology.PolicyCompact)
		wantTiers := topo.StealTiers(want.CPUs)
		require.False(t, p.flatSteal, "a placed pool steals by its tiers")
		for i, w := range p.workerList() {
			if !reflect.DeepEqual(w.tiers, wantTiers[i]) {
				t.Errorf("worker %d tiers = %v, want %v", i, w.tiers, wantTiers[i])
			}
		}
		for cpu := range pins {
			if got := pins[cpu].Load(); got != 1 {
				t.Errorf("cpu %d pinned %d times, want 1", cpu, got)
			}
		}
		checkWorkload(t, p)
	})
}

// TestPlacementNone: the default and PolicyNone pin nothing and use one flat
// tier; Stats carries no placement.
func TestPlacementNone(t *testing.T) {
	for _, opts := range [][]Option{{WithWorkers(3)}, {WithWorkers(3), WithPlacement(topology.PolicyNone)}} {
		withPool(t, opts, func(p *Pool) {
			if st := p.Stats(); st.Placement != nil {
				t.Errorf("Stats.Placement = %v, want nil", st.Placement)
			}
			if p.PlacementNotes() != nil {
				t.Errorf("PlacementNotes = %v, want nil", p.PlacementNotes())
			}
			require.True(t, p.flatSteal, "the flat default tier")
			for i, w := range p.workerList() {
				if w.cpu != -1 || w.tiers != nil {
					t.Errorf("worker %d: cpu %d tiers %v, want -1 and the flat default (no list)", i, w.cpu, w.tiers)
				}
			}
			checkWorkload(t, p)
		})
	}
}

// TestPlacementOptionErrors: bad placement options are errors from New,
// which then starts nothing.
func TestPlacementOptionErrors(t *testing.T) {
	defer verifyNone(t)
	cases := []struct {
		name string
		opts []Option
		is   error  // errors.Is target, or nil
		msg  string // substring of the message
	}{
		{"unknown policy", []Option{WithPlacement(topology.Policy(42))}, topology.ErrPolicy, "WithPlacement(42)"},
		{"empty list", []Option{WithCPUs()}, nil, "must not be empty"},
		{"negative", []Option{WithCPUs(0, -1)}, nil, "CPU -1 out of range"},
		{"too big", []Option{WithCPUs(topology.MaxCPUs)}, nil, "out of range"},
		{"duplicate", []Option{WithCPUs(0, 0)}, nil, "listed twice"},
		{"not allowed", []Option{WithCPUs(topology.MaxCPUs - 1)}, topology.ErrNotAllowed, "WithCPUs"},
		{"both", []Option{WithPlacement(topology.PolicyScatter), WithCPUs(0)}, nil, "together"},
	}
	for _, c := range cases {
		p, err := New(c.opts...)
		if err == nil {
			p.Close()
			t.Errorf("%s: New succeeded", c.name)
			continue
		}
		if c.is != nil && !errors.Is(err, c.is) {
			t.Errorf("%s: error %q does not wrap %v", c.name, err, c.is)
		}
		if !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: error %q does not say %q", c.name, err, c.msg)
		}
	}
}

// TestPlacementWithCPUs: an explicit allowed CPU pins every worker to it.
func TestPlacementWithCPUs(t *testing.T) {
	if !topology.PinSupported {
		t.Skip("no pinning on this system")
	}
	cpu := topology.Detect().Allowed.Max()
	withPool(t, []Option{WithWorkers(2), WithCPUs(cpu)}, func(p *Pool) {
		for i, a := range onEachWorker(t, p, threadAffinity) {
			if a.err != nil || !a.set.Equal(topology.NewCPUSet(cpu)) {
				t.Errorf("worker %d runs on %v (err %v), want {%d}", i, a.set, a.err, cpu)
			}
		}
		checkWorkload(t, p)
	})
}

func TestWorkerPlacementString(t *testing.T) {
	for _, c := range []struct {
		wp   WorkerPlacement
		want string
	}{
		{WorkerPlacement{Worker: 0, CPU: -1}, "worker 0: unpinned"},
		{WorkerPlacement{Worker: 1, CPU: 3, Pinned: true}, "worker 1: cpu 3 pinned"},
		{WorkerPlacement{Worker: 2, CPU: 5, PinError: "EPERM"}, "worker 2: cpu 5 unpinned (EPERM)"},
	} {
		if got := c.wp.String(); got != c.want {
			t.Errorf("%+v.String() = %q, want %q", c.wp, got, c.want)
		}
	}
}

// liveHeap is the heap still reachable after a full collection.
func liveHeap() uint64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.GC() // the second cycle frees what the first one's finalizers released
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// TestPlacementChurnNoLeak creates and closes many pinned pools and checks
// that nothing stays behind per started worker: no goroutine (goleak), and a
// live heap that does not grow with the number of pinned workers. Before the
// measured churn a warm-up churn lets the runtime's caches and free lists
// reach their working size, so what remains is a leak: the bound per worker
// is far below what one map entry per pinned thread costs, yet the total it
// allows is far above the heap's noise.
func TestPlacementChurnNoLeak(t *testing.T) {
	if !topology.PinSupported {
		t.Skip("no pinning on this system")
	}
	defer verifyNone(t)
	topo := topology.Detect() // once: the churn measures pinning, not sysfs
	const workers = 4         // oversubscribed on small machines: placement reuses CPUs
	pools := 1000
	if testing.Short() {
		pools = 500
	}
	churn := func(n int) {
		for i := 0; i < n; i++ {
			p, err := New(WithWorkers(workers), WithPlacement(topology.PolicyCompact), withDetect(topo))
			require.NoError(t, err)
			for _, wp := range p.Stats().Placement {
				require.True(t, wp.Pinned, "%v", wp)
			}
			require.NoError(t, p.Close())
		}
	}
	churn(pools / 4)
	before := liveHeap()
	churn(pools)
	after := liveHeap()
	started := uint64(pools * workers)
	grown := int64(after) - int64(before)
	t.Logf("live heap %d -> %d bytes over %d pinned workers: %+d bytes (%.1f per worker)",
		before, after, started, grown, float64(grown)/float64(started))
	const perWorker = 64 // bytes; one remembered thread costs several times more
	assert.Less(t, grown, int64(perWorker*started), "the live heap grew with the pinned workers")
}

// flatTiers gives every worker one tier with all the others, as an explicit
// WithStealTiers list (the pool's default is the same order, unlisted).
func flatTiers(n int) [][][]int {
	tiers := make([][][]int, n)
	for i := range tiers {
		others := make([]int, 0, n-1)
		for j := 0; j < n; j++ {
			if j != i {
				others = append(others, j)
			}
		}
		tiers[i] = [][]int{others}
	}
	return tiers
}

// ownTiers returns each worker's tiers without the worker itself (a tier
// shared by the workers of one CPU holds the thief too; steal skips it),
// dropping tiers left empty: the per-worker form topology.StealTiers gives.
func ownTiers(tiers [][][]int) [][][]int {
	out := make([][][]int, len(tiers))
	for i, ts := range tiers {
		out[i] = [][]int{}
		for _, tier := range ts {
			var own []int
			for _, v := range tier {
				if v != i {
					own = append(own, v)
				}
			}
			if len(own) > 0 {
				out[i] = append(out[i], own)
			}
		}
	}
	return out
}
