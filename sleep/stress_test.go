package sleep_test

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/blitz-go/blitz/sleep"
)

// progressWatchdog fails a wait that makes no progress for this long.
const progressWatchdog = 30 * time.Second

func failWithDump(t testing.TB, format string, args ...any) {
	t.Helper()
	buf := make([]byte, 4<<20)
	n := runtime.Stack(buf, true)
	t.Fatalf("%s; goroutines:\n%s", fmt.Sprintf(format, args...), buf[:n])
}

// waitProgress waits for done while progress() keeps changing, failing with
// a goroutine dump when it stalls for progressWatchdog.
func waitProgress(t testing.TB, done <-chan struct{}, what string, progress func() int64) {
	t.Helper()
	last := progress()
	tick := time.NewTicker(progressWatchdog)
	defer tick.Stop()
	for {
		select {
		case <-done:
			return
		case <-tick.C:
			now := progress()
			if now == last {
				failWithDump(t, "%s: no progress for %v (at %d)", what, progressWatchdog, now)
			}
			last = now
		}
	}
}

// countingParker counts parks and the unparks that end them.
type countingParker struct {
	sleep.Parker
	parks, unparks *atomic.Int64
	inPark         atomic.Int32
}

func (p *countingParker) Park() {
	p.parks.Add(1)
	p.inPark.Add(1)
	p.Parker.Park()
	p.inPark.Add(-1)
}

func (p *countingParker) Unpark() {
	p.unparks.Add(1)
	p.Parker.Unpark()
}

// queue is a mutex-guarded job queue: the owner pops LIFO, thieves and the
// injector's consumers take FIFO.
type queue struct {
	mu   sync.Mutex
	jobs []int
	head int
	_    [64]byte
}

func (q *queue) push(ids ...int) (wasEmpty bool) {
	q.mu.Lock()
	wasEmpty = q.head == len(q.jobs)
	q.jobs = append(q.jobs, ids...)
	q.mu.Unlock()
	return wasEmpty
}

func (q *queue) pop() (int, bool) { // LIFO
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.head == len(q.jobs) {
		return 0, false
	}
	id := q.jobs[len(q.jobs)-1]
	q.jobs = q.jobs[:len(q.jobs)-1]
	q.compact()
	return id, true
}

func (q *queue) take() (int, bool) { // FIFO
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.head == len(q.jobs) {
		return 0, false
	}
	id := q.jobs[q.head]
	q.head++
	q.compact()
	return id, true
}

func (q *queue) compact() {
	if q.head == len(q.jobs) {
		q.jobs, q.head = q.jobs[:0], 0
	}
}

func (q *queue) nonEmpty() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.head != len(q.jobs)
}

// harness runs real goroutines as pool workers around one sleep.Sleep: per
// worker an internal queue (jobs spawned by jobs), and one injector FIFO for
// jobs posted from outside.
type harness struct {
	t        testing.TB
	s        *sleep.Sleep
	parkers  []*countingParker
	latches  []sleep.CoreLatch
	local    []queue
	injector queue

	nextID   atomic.Int64
	posted   atomic.Int64 // jobs pushed, injected or internal
	executed atomic.Int64
	ran      []atomic.Int32 // per job id: how many times it ran

	parks, unparks   atomic.Int64 // sleeps entered, wakes delivered by wakers
	finalCheckHits   atomic.Int64 // the final injector check found a job
	spawnEvery       int          // every spawnEvery-th injected job spawns children
	spawnChildren    int
	workersDone      sync.WaitGroup
	injectedJobsSeen func() bool
}

type harnessConfig struct {
	workers int
	kind    parkerKind
	rounds  int    // sleep.Config.RoundsUntilSleepy
	jec     uint64 // starting JEC (0: the default)
	maxJobs int
}

func newHarness(t testing.TB, cfg harnessConfig) *harness {
	h := &harness{
		t: t, latches: make([]sleep.CoreLatch, cfg.workers), local: make([]queue, cfg.workers),
		ran: make([]atomic.Int32, cfg.maxJobs), spawnEvery: 5, spawnChildren: 3,
	}
	ps := make([]sleep.Parker, cfg.workers)
	for i := range ps {
		cp := &countingParker{Parker: newParker(cfg.kind), parks: &h.parks, unparks: &h.unparks}
		h.parkers = append(h.parkers, cp)
		ps[i] = cp
	}
	var err error
	h.s, err = sleep.NewWithJEC(sleep.Config{Parkers: ps, RoundsUntilSleepy: cfg.rounds}, cfg.jec)
	if err != nil {
		t.Fatal(err)
	}
	h.injectedJobsSeen = func() bool {
		if h.injector.nonEmpty() {
			h.finalCheckHits.Add(1)
			return true
		}
		return false
	}
	return h
}

func (h *harness) newIDs(n int) []int {
	first := int(h.nextID.Add(int64(n))) - n
	if first+n > len(h.ran) {
		h.t.Errorf("harness: more than %d jobs", len(h.ran))
		return nil
	}
	ids := make([]int, n)
	for i := range ids {
		ids[i] = first + i
	}
	return ids
}

// inject posts n jobs from outside the pool.
func (h *harness) inject(n int) {
	ids := h.newIDs(n)
	h.posted.Add(int64(len(ids)))
	wasEmpty := h.injector.push(ids...)
	h.s.NewInjectedJobs(len(ids), wasEmpty)
}

// run executes job id on worker w: some jobs spawn internal children.
func (h *harness) run(w, id int) {
	if n := h.ran[id].Add(1); n != 1 {
		h.t.Errorf("job %d ran %d times", id, n)
	}
	if id%h.spawnEvery == 0 && id < len(h.ran)/2 {
		ids := h.newIDs(h.spawnChildren)
		h.posted.Add(int64(len(ids)))
		wasEmpty := h.local[w].push(ids...)
		h.s.NewInternalJobs(len(ids), wasEmpty)
	}
	h.executed.Add(1)
}

func (h *harness) findWork(w int, rng *rand.Rand) (int, bool) {
	if id, ok := h.local[w].pop(); ok {
		return id, true
	}
	n := len(h.local)
	start := rng.IntN(n)
	for k := 0; k < n; k++ {
		if v := (start + k) % n; v != w {
			if id, ok := h.local[v].take(); ok {
				return id, true
			}
		}
	}
	return h.injector.take()
}

// worker is the idle loop that sleep/sleep.go documents (steps S1-S6).
func (h *harness) worker(w int) {
	defer h.workersDone.Done()
	// The workers are plain goroutines for every backend, with the default
	// Gosched yield: this harness tests the protocol over each Parker, not
	// locked threads. (Locked threads must not yield with Gosched: at
	// GOMAXPROCS=1 under -race that starved the GC's mark termination for
	// minutes here; the futex backend yields with sched_yield.)
	rng := rand.New(rand.NewPCG(uint64(w), 42))
	latch := &h.latches[w]
	idle := h.s.StartLooking(w)
	for !latch.Probe() {
		if id, ok := h.findWork(w, rng); ok {
			h.s.WorkFound()
			h.run(w, id)
			idle = h.s.StartLooking(w)
			continue
		}
		h.s.NoWorkFound(&idle, latch, h.injectedJobsSeen)
	}
	h.s.WorkFound()
}

func (h *harness) start() {
	h.workersDone.Add(len(h.latches))
	for w := range h.latches {
		go h.worker(w)
	}
}

// stop sets every worker's latch, waking the sleepers, and waits for all
// workers to leave.
func (h *harness) stop() {
	for w := range h.latches {
		if h.latches[w].Set() {
			h.s.NotifyWorkerLatchIsSet(w)
		}
	}
	done := make(chan struct{})
	go func() { h.workersDone.Wait(); close(done) }()
	waitProgress(h.t, done, "stopping workers", func() int64 { return 0 })
}

// waitAllRun waits until every posted job ran.
func (h *harness) waitAllRun(what string) {
	done := make(chan struct{})
	go func() {
		for h.executed.Load() != h.posted.Load() {
			runtime.Gosched()
		}
		close(done)
	}()
	waitProgress(h.t, done, what, h.executed.Load)
}

// checkEnd checks the global invariants once the workers left.
func (h *harness) checkEnd() {
	t := h.t
	t.Helper()
	if h.injector.nonEmpty() {
		t.Error("jobs left in the injector")
	}
	for w := range h.local {
		if h.local[w].nonEmpty() {
			t.Errorf("jobs left in worker %d's queue", w)
		}
	}
	n := int(h.nextID.Load())
	if int64(n) != h.posted.Load() || h.executed.Load() != h.posted.Load() {
		t.Errorf("ids %d, posted %d, executed %d", n, h.posted.Load(), h.executed.Load())
	}
	for id := 0; id < n; id++ {
		if c := h.ran[id].Load(); c != 1 {
			t.Fatalf("job %d ran %d times", id, c)
		}
	}
	if sl, in, _ := h.s.CounterValues(); sl != 0 || in != 0 {
		t.Errorf("after stop: sleeping %d, inactive %d; want 0, 0", sl, in)
	}
	for w, p := range h.parkers {
		if p.inPark.Load() != 0 {
			t.Errorf("worker %d still parked", w)
		}
	}
}

// runBursts is the stress body: posters inject bursts that race workers
// falling asleep; sometimes they wait for the pool to drain so that every
// worker goes to sleep before the next burst.
func runBursts(t *testing.T, kind parkerKind, workers, posters, cycles int, jec uint64) *harness {
	h := newHarness(t, harnessConfig{
		workers: workers, kind: kind, rounds: 2, jec: jec, maxJobs: cycles * 8 * 2,
	})
	h.start()
	var start sync.WaitGroup
	start.Add(1)
	var postersDone sync.WaitGroup
	for p := 0; p < posters; p++ {
		postersDone.Add(1)
		go func(p int) {
			defer postersDone.Done()
			rng := rand.New(rand.NewPCG(uint64(p), 7))
			start.Wait()
			for c := 0; c < cycles/posters; c++ {
				h.inject(1 + rng.IntN(4))
				switch rng.IntN(4) {
				case 0: // let the pool drain: the workers fall asleep
					for h.executed.Load() != h.posted.Load() {
						runtime.Gosched()
					}
				case 1: // race the workers on their way to sleep
					for k := rng.IntN(50); k > 0; k-- {
						runtime.Gosched()
					}
				}
			}
		}(p)
	}
	start.Done()
	done := make(chan struct{})
	go func() { postersDone.Wait(); close(done) }()
	waitProgress(t, done, "posting", h.executed.Load)
	h.waitAllRun("running every job")
	h.stop()
	h.checkEnd()
	return h
}

// TestStressBursts: every job runs exactly once, no wake is lost (a lost
// wake stalls the progress watchdog), and the counters return to zero.
func TestStressBursts(t *testing.T) {
	cycles := 100_000
	if testing.Short() {
		cycles = 4_000
	}
	for _, kind := range parkerKinds() {
		t.Run("backend="+kind.String(), func(t *testing.T) {
			h := runBursts(t, kind, 3, 2, cycles, 0)
			t.Logf("jobs %d, parks %d, wakes %d, final-check hits %d",
				h.posted.Load(), h.parks.Load(), h.unparks.Load(), h.finalCheckHits.Load())
			if !testing.Short() && (h.parks.Load() == 0 || h.unparks.Load() == 0) {
				t.Errorf("workers never slept (%d) or were never woken (%d)", h.parks.Load(), h.unparks.Load())
			}
		})
	}
}

// TestStressJECWrap starts the jobs event counter just below its maximum so
// that the bursts drive it past the wrap-around many times over.
func TestStressJECWrap(t *testing.T) {
	cycles := 20_000
	if testing.Short() {
		cycles = 2_000
	}
	kind := parkerKinds()[0]
	const below = 16
	h := runBursts(t, kind, 3, 2, cycles, sleep.JECMax-below)
	_, _, jec := h.s.CounterValues()
	t.Logf("jobs %d, parks %d, wakes %d, JEC now %d", h.posted.Load(), h.parks.Load(), h.unparks.Load(), jec)
	if jec >= sleep.JECMax-below {
		t.Errorf("the JEC did not wrap: %d", jec)
	}
}

// TestStopWhileSleeping: workers all asleep are all woken by a stop (set each
// latch, notify), and leave with the counters back at zero.
func TestStopWhileSleeping(t *testing.T) {
	for _, kind := range parkerKinds() {
		if kind == parkSpin {
			continue
		}
		t.Run("backend="+kind.String(), func(t *testing.T) {
			h := newHarness(t, harnessConfig{workers: 4, kind: kind, rounds: 1, maxJobs: 16})
			h.start()
			h.inject(4)
			h.waitAllRun("running jobs")
			asleep := make(chan struct{})
			go func() {
				for {
					sl, _, _ := h.s.CounterValues()
					if sl == 4 {
						all := true
						for _, p := range h.parkers {
							all = all && p.inPark.Load() == 1
						}
						if all {
							break
						}
					}
					runtime.Gosched()
				}
				close(asleep)
			}()
			waitProgress(t, asleep, "workers falling asleep", func() int64 { return 0 })
			h.stop()
			h.checkEnd()
			if got := h.unparks.Load(); got < 4 {
				t.Errorf("stop woke %d sleepers, want 4", got)
			}
		})
	}
}

// TestStopRacingSleep stops the pool at arbitrary points of the workers'
// way to sleep: a latch Set between getSleepy and fallAsleep, or while the
// worker registers as sleeping, must never leave a worker parked.
func TestStopRacingSleep(t *testing.T) {
	iters := 2000
	if testing.Short() {
		iters = 200
	}
	for _, kind := range parkerKinds() {
		t.Run("backend="+kind.String(), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 2))
			var parks int64
			for i := 0; i < iters; i++ {
				h := newHarness(t, harnessConfig{workers: 3, kind: kind, rounds: -1, maxJobs: 8})
				h.start()
				h.inject(1 + rng.IntN(3))
				for k := rng.IntN(20); k > 0; k-- {
					runtime.Gosched()
				}
				h.waitAllRun("running jobs")
				h.stop()
				h.checkEnd()
				parks += h.parks.Load()
				if t.Failed() {
					return
				}
			}
			t.Logf("%d stops, %d parks", iters, parks)
		})
	}
}
