package blitz

import (
	"errors"
	"fmt"
	"slices"

	"github.com/blitz-go/blitz/topology"
)

// Placement: where the workers run and whom a thief robs first.
//
// By default (topology.PolicyNone) the pool pins nothing and every worker
// steals from one flat tier of all the others. Pinning is opt-in because it
// removes the Go scheduler's freedom: a pinned worker's goroutine is locked to
// an OS thread that may run only on its CPU, so when GOMAXPROCS is smaller
// than the worker count, or the process shares the machine with other work
// (a CI runner, a VM whose vCPUs the host moves at will, another pinned
// process), a worker whose CPU is busy waits for that CPU instead of running
// on an idle one. On a dedicated multi-core machine, compact placement keeps
// fork-join neighbours on cores that share a cache, and the tiered steal
// order makes a thief take work from the nearest cache first.
//
// When a placement is requested (WithPlacement with a policy other than
// PolicyNone, or WithCPUs), New detects the topology once, places the workers
// (topology.Place or PlaceOn), and, unless WithStealTiers was given (explicit
// tiers always win), orders each worker's victims with topology.StealTiers.
// Each worker then pins itself when its goroutine starts (topology.Pin:
// LockOSThread, then sched_setaffinity) and stays pinned for its whole life.
// It never unpins: when the goroutine exits still locked, the runtime ends
// its thread, so a one-CPU mask never reaches another goroutine (see the
// top of topology/pin.go). With the futex backend the goroutine is already
// locked; LockOSThread nests, and since neither lock is ever released the
// counts need no matching. A worker replaced after runtime.Goexit pins its
// new goroutine again. New returns after every worker has tried to pin, so
// Stats shows the outcome at once.
//
// A failed pin (EPERM under seccomp, EINVAL when the CPU left the cpuset
// between detection and start) is not fatal: the worker runs unpinned and
// Stats.Placement carries the reason. A CPU list naming CPUs the process may
// not use is an error from New, wrapping topology.ErrNotAllowed.
//
// More workers than allowed CPUs is allowed: the placement reuses the CPUs in
// the policy's order (worker i on the (i mod n)-th CPU), so some CPUs carry
// two workers that time-slice, and each is the other's first steal tier.
// It runs slower than one worker per CPU, never wrong; a program that would
// rather float its extra workers uses PolicyNone.

// placementConfig is what the placement options collected.
type placementConfig struct {
	policy    topology.Policy
	policySet bool  // WithPlacement was given
	cpus      []int // WithCPUs, in the caller's order; nil when not given
	cpusSet   bool

	// detect and pin are topology.Detect and topology.Pin; tests replace
	// them to place on a fixture or to make pinning fail. planOn is
	// planOn. All three are set by the placement options alone
	// (linkPlacement).
	detect func() *topology.Topology
	pin    func(cpu int) (unpin func(), err error)
	planOn func(topo *topology.Topology, n int, pc *placementConfig, explicitTiers [][][]int) (plan, error)
}

// linkPlacement sets what places and pins workers, where a placement
// option asks for it. Nothing else refers to them, so a program that never
// places its workers does not link the topology's detection, placement and
// pinning (sysfs parsing, affinity calls): about 0.4 MB of its binary.
func (pc *placementConfig) linkPlacement() {
	if pc.detect == nil {
		pc.detect = topology.Detect
	}
	if pc.pin == nil {
		pc.pin = topology.Pin
	}
	pc.planOn = planOn
}

// requested reports whether the pool is to pin its workers.
func (pc *placementConfig) requested() bool {
	return pc.cpusSet || (pc.policySet && pc.policy != topology.PolicyNone)
}

// WithPlacement sets how workers are placed on CPUs: topology.PolicyNone
// (the default: no pinning, the OS scheduler places the workers, and
// stealing is uniformly random), PolicyCompact (neighbouring workers on the
// threads of one core, then of one L2/L3 group, NUMA node and package) or
// PolicyScatter (spread across packages and caches before SMT siblings).
// With a policy other than PolicyNone, each worker pins its goroutine's OS
// thread to its CPU for its whole life and steals from the nearest workers
// first (topology.StealTiers), unless WithStealTiers says otherwise.
//
// Pinning is opt-in because it fights the Go scheduler when GOMAXPROCS is
// below the worker count or the machine is shared (a pinned worker waits for
// its own CPU even when another is idle). Use it on a dedicated machine.
// The worker count is still WithWorkers, or GOMAXPROCS read by New; only the
// CPUs this process may use (its affinity mask, which reflects cgroup
// cpusets) are chosen. More workers than those CPUs reuse them round-robin
// (documented on topology.Topology.Place); a failed pin leaves the worker
// unpinned with the reason in Stats.Placement.
//
// An unknown policy is an error from New. WithPlacement and WithCPUs
// together are an error, unless the policy is PolicyNone.
func WithPlacement(p topology.Policy) Option {
	return func(c *config) {
		switch p {
		case topology.PolicyNone, topology.PolicyCompact, topology.PolicyScatter:
		default:
			c.errs = append(c.errs, fmt.Errorf("blitz: WithPlacement(%d): %w", int(p), topology.ErrPolicy))
			return
		}
		c.place.policy = p
		c.place.policySet = true
		c.place.linkPlacement()
	}
}

// WithCPUs pins the workers to the given CPUs (the kernel's CPU numbers),
// for people who know their machine better than the policies do. Workers
// take the CPUs in compact order (topology.Topology.PlaceOn), so
// neighbouring workers share the most cache; more workers than CPUs reuse
// them round-robin. Steal tiers follow the topology as with WithPlacement.
//
// An empty list, a negative or duplicate CPU, or a CPU this process may not
// run on (outside its affinity mask or cpuset, offline, non-existent) is an
// error from New; the last wraps topology.ErrNotAllowed.
func WithCPUs(cpus ...int) Option {
	return func(c *config) {
		if len(cpus) == 0 {
			c.fail("WithCPUs: the CPU list must not be empty")
			return
		}
		seen := make(map[int]bool, len(cpus))
		for _, cpu := range cpus {
			switch {
			case cpu < 0 || cpu >= topology.MaxCPUs:
				c.fail("WithCPUs: CPU %d out of range [0,%d)", cpu, topology.MaxCPUs)
				return
			case seen[cpu]:
				c.fail("WithCPUs: CPU %d listed twice", cpu)
				return
			}
			seen[cpu] = true
		}
		c.place.cpus = append([]int(nil), cpus...)
		c.place.cpusSet = true
		c.place.linkPlacement()
	}
}

// plan is the outcome of placement for one pool.
type plan struct {
	cpus []int // cpus[i] is worker i's CPU, -1 when unpinned; nil without placement
	// tiers[i] is worker i's steal tiers; nil for the flat default (one
	// tier of every other worker, which steal.go enumerates by arithmetic
	// instead of holding a list per worker). A tier may hold worker i
	// itself (sharedTiers); steal skips it.
	tiers [][][]int
	notes []string // topology.Placement.Notes
}

// plan places n workers and chooses their steal tiers: the flat default
// without a placement, otherwise from the detected topology. explicitTiers
// (WithStealTiers, already validated) win over both.
func (pc *placementConfig) plan(n int, explicitTiers [][][]int) (plan, error) {
	if !pc.requested() {
		return plan{tiers: explicitTiers}, nil
	}
	return pc.planOn(pc.detect(), n, pc, explicitTiers)
}

// planOn is the pure part of plan: topology, worker count and options in,
// CPUs and tiers out. It pins nothing, so tests run it on fixtures.
func planOn(topo *topology.Topology, n int, pc *placementConfig, explicitTiers [][][]int) (plan, error) {
	if pc.cpusSet && pc.policySet && pc.policy != topology.PolicyNone {
		return plan{}, fmt.Errorf("blitz: WithPlacement(%v) and WithCPUs together: choose one", pc.policy)
	}
	var (
		pl  topology.Placement
		err error
	)
	if pc.cpusSet {
		pl, err = topo.PlaceOn(topology.NewCPUSet(pc.cpus...), n)
		if err != nil {
			return plan{}, fmt.Errorf("blitz: WithCPUs: %w", err)
		}
	} else {
		pl, err = topo.Place(n, pc.policy)
		if err != nil {
			return plan{}, fmt.Errorf("blitz: WithPlacement(%v): %w", pc.policy, err)
		}
	}
	if len(pl.CPUs) != n {
		return plan{}, fmt.Errorf("blitz: placement gave %d CPUs for %d workers", len(pl.CPUs), n)
	}
	tiers := explicitTiers
	if tiers == nil {
		tiers = sharedTiers(topo, pl.CPUs)
	}
	return plan{cpus: pl.CPUs, tiers: tiers, notes: pl.Notes}, nil
}

// sharedTiers is topo.StealTiers(cpus) with one set of tiers per CPU,
// shared by every worker placed on it, so that memory and time grow with
// CPUs × workers, not workers²: an oversubscribed placement of thousands of
// workers on a few CPUs stays linear in the worker count. The tiers are
// computed among the distinct CPUs (one worker standing for each) and each
// CPU in a tier is replaced by the workers on it, ascending. The workers
// sharing a CPU form its first tier, the thief itself included (steal skips
// it); with the thief removed, worker i's tiers are exactly
// topo.StealTiers(cpus)[i]. Unpinned workers (CPU -1) share one flat tier
// of every worker, as StealTiers gives an unpinned thief.
func sharedTiers(topo *topology.Topology, cpus []int) [][][]int {
	slot := make(map[int]int) // CPU -> index in distinct
	var distinct []int
	var on [][]int // on[d]: the workers placed on distinct[d], ascending
	for i, c := range cpus {
		d, ok := slot[c]
		if !ok {
			d = len(distinct)
			slot[c] = d
			distinct = append(distinct, c)
			on = append(on, nil)
		}
		on[d] = append(on[d], i)
	}
	byRep := topo.StealTiers(distinct) // tiers of distinct indexes
	per := make([][][]int, len(distinct))
	for d, c := range distinct {
		if c < 0 {
			all := make([]int, len(cpus))
			for i := range all {
				all[i] = i
			}
			per[d] = [][]int{all}
			continue
		}
		ts := make([][]int, 0, len(byRep[d])+1)
		if len(on[d]) > 1 {
			ts = append(ts, on[d])
		}
		for _, tier := range byRep[d] {
			var ws []int
			for _, e := range tier {
				ws = append(ws, on[e]...)
			}
			slices.Sort(ws)
			ts = append(ts, ws)
		}
		per[d] = ts
	}
	tiers := make([][][]int, len(cpus))
	for i, c := range cpus {
		tiers[i] = per[slot[c]]
	}
	return tiers
}

// newPoolPlacement returns the pool's placement state for pl, or nil when
// nothing is pinned.
func newPoolPlacement(pl plan, pc *placementConfig) *poolPlacement {
	if pl.cpus == nil {
		return nil
	}
	pp := &poolPlacement{notes: pl.notes, pin: pc.pin}
	pp.started.Add(len(pl.cpus))
	return pp
}

// errNoCPU is recorded for a worker that the placement left without a CPU.
var errNoCPU = errors.New("blitz: the placement gave this worker no CPU")

// pinSelf pins the calling worker goroutine to w.cpu for the rest of its
// life, and records the outcome. It is called first thing by every worker
// goroutine, the replacement after a Goexit included. The unpin function is
// dropped on purpose: the goroutine exits locked and its thread dies with it.
func (w *Worker) pinSelf() {
	pp := w.pool.place
	if pp == nil {
		return
	}
	first := w.pin.Load() == nil
	var r pinResult
	if w.cpu < 0 {
		r.err = errNoCPU.Error()
	} else if _, err := pp.pin(w.cpu); err != nil {
		r.err = err.Error()
	} else {
		r.pinned = true
	}
	w.pin.Store(&r)
	if first {
		pp.started.Done()
	}
}

// WorkerPlacement says where one worker runs.
type WorkerPlacement struct {
	Worker int // the worker's index
	// CPU is the CPU the placement chose for the worker, -1 when the pool
	// pins nothing.
	CPU int
	// Pinned is true when the worker's thread is bound to CPU.
	Pinned bool
	// PinError says why a worker with a CPU runs unpinned (the error of
	// topology.Pin); empty when pinned.
	PinError string
}

// String formats the placement for a person: "worker 0: cpu 2 pinned",
// "worker 1: cpu 3 unpinned (topology: pin to cpu 3: operation not
// permitted)", "worker 0: unpinned".
func (wp WorkerPlacement) String() string {
	switch {
	case wp.CPU < 0:
		return fmt.Sprintf("worker %d: unpinned", wp.Worker)
	case wp.Pinned:
		return fmt.Sprintf("worker %d: cpu %d pinned", wp.Worker, wp.CPU)
	default:
		return fmt.Sprintf("worker %d: cpu %d unpinned (%s)", wp.Worker, wp.CPU, wp.PinError)
	}
}

// placementStats returns Stats.Placement: nil for a pool without placement
// (no allocation on the common path), one entry per worker otherwise.
func (p *Pool) placementStats() []WorkerPlacement {
	if p.place == nil {
		return nil
	}
	out := make([]WorkerPlacement, len(p.workerList()))
	for i, w := range p.workerList() {
		out[i] = WorkerPlacement{Worker: i, CPU: w.cpu}
		if r := w.pin.Load(); r != nil {
			out[i].Pinned, out[i].PinError = r.pinned, r.err
		}
	}
	return out
}

// PlacementNotes returns what the topology package said about the pool's
// placement, in words (for example that it is oversubscribed); nil for a
// pool without placement.
func (p *Pool) PlacementNotes() []string {
	if p == nil {
		panic("blitz: Pool.PlacementNotes: nil *Pool")
	}
	if p.place == nil {
		return nil
	}
	return append([]string(nil), p.place.notes...)
}
