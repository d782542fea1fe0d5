package blitz

import (
	"errors"
	"fmt"
	"runtime"
	"time"

	"github.com/blitz-go/blitz/sleep"
)

// An Option configures a Pool at construction. Options are applied in order;
// New validates the result and returns an error for an invalid one.
type Option func(*config)

// config collects the options before New validates them.
type config struct {
	workers       int // 0: GOMAXPROCS at construction
	parking       Parking
	spinRounds    int
	panicHandler  func(v any, stack []byte)
	name          string
	stealTiers    [][][]int
	place         placementConfig // WithPlacement, WithCPUs (placement.go)
	capacity      int             // WithCapacity; 0: unbounded
	sampleEvery   int             // WithLatencySampling; 0: the default
	yield         func()          // tests only: replaces the backend's idle-round yield
	follow        bool            // no WithWorkers: the pool follows GOMAXPROCS (follow.go)
	followHook    func(size int)  // tests only: the follower's tick hook
	followPeriod  time.Duration   // tests only: the follower's period; 0: followPeriod
	workerStart   func(id int)    // WithWorkerStart
	workerExit    func(id int)    // WithWorkerExit
	noCallerRuns  bool            // WithCallerRuns(false)
	maxWorkers    int             // WithMaxWorkers; 0: DefaultMaxWorkers
	retireAfter   time.Duration   // tests only: the monitor's retireAfter; 0: the default
	monitorHook   func()          // tests only: the monitor's tick hook
	noSchedCounts bool            // tests only: the monitor reads no scheduler counts, as before Go 1.26
	noMonitor     bool            // tests only: the monitor never ticks
	blindMonitor  bool            // tests only: the monitor sees no worker blocked
	errs          []error
}

func (c *config) fail(format string, args ...any) {
	c.errs = append(c.errs, fmt.Errorf("blitz: "+format, args...))
}

// WithWorkers sets the number of workers, which the pool keeps until
// Pool.Resize changes it. The default is runtime.GOMAXPROCS(0), which the
// pool then follows when it changes (see "Size" in the package
// documentation). n must be between 1 and sleep.MaxWorkers.
//
// A worker that parks on a futex (ParkingFutex) or is
// pinned by a placement (WithPlacement, WithCPUs) keeps its goroutine locked
// to an OS thread, and the runtime ends the program when it runs out of
// threads (debug.SetMaxThreads). So the workers of all open pools that lock
// threads may hold at most half that limit together (5000 with the default
// limit); above it New returns an error wrapping ErrThreadLimit. Portable
// parking without a placement has no such limit: its workers are plain
// goroutines.
func WithWorkers(n int) Option {
	return func(c *config) {
		if n < 1 || n > sleep.MaxWorkers {
			c.fail("WithWorkers(%d): the worker count must be between 1 and %d", n, sleep.MaxWorkers)
			return
		}
		c.workers = n
	}
}

// WithParking selects how idle workers block (see Parking). The default,
// ParkingAuto, is the portable backend on every system; ParkingFutex locks
// each worker to its OS thread and parks it on a futex word (Linux only).
func WithParking(kind Parking) Option {
	return func(c *config) { c.parking = kind }
}

// WithSpinRounds sets how many idle rounds (each a steal sweep and a yield) a
// worker makes before it announces itself sleepy and then parks. 0 keeps the
// measured default of the sleep package (sleep.DefaultRoundsUntilSleepy);
// n must be between 0 and MaxSpinRounds. Larger values trade idle CPU for
// wake-up latency. A worker that has just handed a result to a caller
// waiting in Run, Do, DoContext or TryDo, and forked nothing for it, makes
// one round instead (except with ParkingFutex): the caller's next call
// wakes it on the caller's own P.
func WithSpinRounds(n int) Option {
	return func(c *config) {
		if n < 0 || n > MaxSpinRounds {
			c.fail("WithSpinRounds(%d): the round count must be between 0 and MaxSpinRounds (%d)", n, MaxSpinRounds)
			return
		}
		c.spinRounds = n
	}
}

// MaxSpinRounds is the largest count WithSpinRounds accepts. The bound keeps
// the promise that an idle pool stops using CPU: every worker that finds no
// work parks after at most this many rounds, instead of spinning for as long
// as a huge count lasts. It is far above the default, past the point where
// spinning costs more CPU than the wake it saves (sleep.DefaultRoundsUntilSleepy
// explains that trade).
const MaxSpinRounds = 1 << 16

// WithPanicHandler sets the function that receives panics from fire-and-forget
// tasks (Pool.Go), with the value and the stack of the panicking goroutine.
// The worker survives and goes on with other work. Without a handler (or with
// a nil one) such a panic crashes the program, as a panic in a plain goroutine
// does, with the task's own stack in the crash report. Panics in Join, Scope,
// Run and Do are never sent here: they go back to the caller.
//
// h is called on the worker that ran the task, concurrently with other
// calls of it. If h itself panics, the pool recovers that panic too and goes
// on, as net/http does with a handler's: it counts it in
// Stats.HandlerPanics and writes it to the standard logger (package log),
// with h's stack and the value and stack of the task's panic h was given, so
// that neither is lost. A runtime.Goexit in h ends h only, as one in a task
// does: the worker goes on, on a new goroutine (Stats.Respawns).
func WithPanicHandler(h func(v any, stack []byte)) Option {
	return func(c *config) { c.panicHandler = h }
}

// WithName names the pool, in its panics' and errors' messages. The
// default is "blitz".
func WithName(name string) Option {
	return func(c *config) {
		if name == "" {
			c.fail("WithName: the name must not be empty")
			return
		}
		c.name = name
	}
}

// WithCapacity bounds the pool's queue of submitted tasks (Go, TryGo,
// GoContext, Run, Do, DoContext, TryDo) that have not started yet: at most n
// wait. With a full queue TryGo and TryDo refuse with ErrQueueFull, GoContext
// and DoContext wait for room until their context ends, and Go, Run and Do
// wait for room. A waiting submission made from a task of the pool itself
// does not wait (it could be waiting for itself): it is let in over the
// bound. TryGo refuses whoever calls it, a task of the pool too: a task
// that must not lose its follow-up work submits it with Go. Run, Do,
// DoContext and TryDo called from a task of the pool queue nothing (fn
// runs on the task's own worker: see "Calls from inside a task" in the
// package documentation), so the bound neither refuses nor delays them.
// n = 0, the default, means unbounded; n < 0 is an error.
func WithCapacity(n int) Option {
	return func(c *config) {
		if n < 0 {
			c.fail("WithCapacity(%d): the capacity must not be negative", n)
			return
		}
		c.capacity = n
	}
}

// WithLatencySampling sets how often a submitted task's queue wait and run
// time are measured for the Stats histograms: one task in every n, with n
// rounded up to a power of two (the test is a mask of the task's queue
// position). A timed task reads the clock three times, so the default
// (DefaultLatencySampling) keeps the clock off most tasks' path. n = 1 times
// every task; n must not be negative; 0 keeps the default.
func WithLatencySampling(n int) Option {
	return func(c *config) {
		if n < 0 {
			c.fail("WithLatencySampling(%d): the sampling interval must not be negative", n)
			return
		}
		c.sampleEvery = n
	}
}

// DefaultLatencySampling is the sampling interval of WithLatencySampling.
const DefaultLatencySampling = 16

// WithCallerRuns says whether Run and Do, called from a goroutine outside
// the pool, may run fn on the calling goroutine instead of handing it to a
// worker; the default is true. They do only when a worker is asleep and no
// submitted task waits in the queue: the caller then borrows the sleeping
// worker, runs fn as that worker (fn's Worker is the sleeping one, whose
// goroutine stays parked meanwhile, so the pool never runs more functions
// at once than it has workers) and gives it back. That saves the wake and
// the two hand-offs between goroutines, most of a round trip's cost.
// Nothing else changes for fn: it forks and joins with the other workers,
// its panic comes back as a *PanicError, and a runtime.Goexit in it ends the
// caller, as Run and Do document. What differs is the goroutine: fn runs
// with the caller's profiler labels, not the worker's. Such calls are
// counted in Stats.CallerRuns, not in the server counters.
//
// A pool never runs a call on the caller when its workers are locked to
// threads (the futex backend, WithPlacement, WithCPUs) or have hooks
// (WithWorkerStart, WithWorkerExit), where fn may rely on the worker's
// thread, nor when its idle workers spin (ParkingSpin), where the borrowed
// worker's goroutine would go on spinning. DoContext and TryDo never do
// (their caller must survive a Goexit in fn), nor do Go tasks, which have
// no caller waiting, nor the calls given a Sub (they keep the Sub's limit).
func WithCallerRuns(on bool) Option {
	return func(c *config) { c.noCallerRuns = !on }
}

// WithWorkerStart sets a function that each worker calls with its index
// (Worker.Index) on its own goroutine before it runs any work: when New
// starts it, when a Resize adds it or brings it back after a shrink retired
// it, and on the goroutine that replaces a worker goroutine ended by a
// runtime.Goexit in a task (after the ended one's exit hook). It runs each
// time even if Close stops the worker before it ran anything, so every
// worker New started has called it once, then its exit hook once, when
// Close returns. With a
// placement (WithPlacement, WithCPUs) it runs after the worker's goroutine
// was locked to its OS thread and pinned, so per-thread setup there (a NUMA
// memory policy, a thread name) applies to every job the worker runs on
// its own goroutine; so it does with the futex backend, whose workers lock
// their threads too. Such a thread ends with its worker, never serving
// another goroutine. Hooks of different workers run concurrently.
//
// The profiler labels the hook leaves on its goroutine are the worker's own:
// tasks whose submitter had no labels run under them, and the worker gets
// them back after each task that ran under its submitter's (see "Profiles"
// in the package documentation). So a program labels each pool's work in
// its CPU profiles:
//
//	blitz.WithWorkerStart(func(id int) {
//		pprof.SetGoroutineLabels(pprof.WithLabels(context.Background(), pprof.Labels("pool", "images")))
//	})
//
// A panic in the hook goes where a panic in a Go task goes (the panic
// handler, WithPanicHandler, or a crash of the program without one), and the
// worker goes on. A runtime.Goexit in a hook crashes the program with a
// message saying so. A nil h sets no hook.
func WithWorkerStart(h func(id int)) Option {
	return func(c *config) { c.workerStart = h }
}

// WithWorkerExit sets a function that each worker calls with its index on
// its own goroutine after the last work it runs there: when Close stops the
// workers (before Close returns), when a shrink (Resize) retires it, and on
// a goroutine that a runtime.Goexit in a task ends, before the replacement
// runs the start hook (WithWorkerStart). It runs once after each time the
// start hook ran on that goroutine, also when no start hook is set. Panics
// and Goexit are treated as in WithWorkerStart. A nil h sets no hook.
func WithWorkerExit(h func(id int)) Option {
	return func(c *config) { c.workerExit = h }
}

// WithStealTiers sets the order in which each worker looks for victims when
// it steals. tiers[i] lists worker i's victims in tiers, nearest first: a
// thief tries the victims of a tier, starting at a random one, before moving
// to the next tier; every victim of a tier of up to 64, and 64 consecutive
// ones (from that random start) of a larger tier, so that one search costs
// a bounded number of probes in any pool. Each worker index must be in range, appear at most once
// per worker, and never be the worker itself; len(tiers) must equal the
// worker count. Victims left out are never stolen from by that worker, so
// callers usually put the remaining workers in a last tier.
//
// The default is one tier holding every other worker (uniform random
// stealing). The topology package builds tiers from cache and NUMA distances.
func WithStealTiers(tiers [][][]int) Option {
	return func(c *config) { c.stealTiers = tiers }
}

// DefaultMaxWorkers is the default cap on a pool's workers, those added for
// blocked workers included (WithMaxWorkers): the Go runtime's default thread
// limit (debug.SetMaxThreads), a server's worth of blocked calls in flight.
const DefaultMaxWorkers = 10000

// WithMaxWorkers caps the workers the pool runs at once, those it adds
// while its workers are blocked included (see "Blocking" in the package
// documentation). The default is DefaultMaxWorkers (10,000, the Go
// runtime's default thread limit). A cap at or below the pool's size turns
// the additions off: the pool then runs at most Workers tasks at once, as
// a fixed set of goroutines would. n must be between 1 and
// sleep.MaxWorkers. A pool whose workers lock OS threads (ParkingFutex, a
// placement) also stays within the thread budget WithWorkers describes,
// and one with a placement or WithStealTiers never grows. A cap above
// DefaultMaxWorkers also raises the limit of Pool.Resize, which is
// DefaultMaxWorkers otherwise (or New's count, if larger).
func WithMaxWorkers(n int) Option {
	return func(c *config) {
		if n < 1 || n > sleep.MaxWorkers {
			c.fail("WithMaxWorkers(%d): the cap must be between 1 and %d", n, sleep.MaxWorkers)
			return
		}
		c.maxWorkers = n
	}
}

func (c *config) resolve() error {
	if c.workers == 0 {
		c.follow = true
		c.workers = runtime.GOMAXPROCS(0)
		if c.workers > sleep.MaxWorkers {
			c.workers = sleep.MaxWorkers
		}
	}
	if c.name == "" {
		c.name = "blitz"
	}
	if c.maxWorkers == 0 {
		c.maxWorkers = DefaultMaxWorkers
	}
	if c.sampleEvery == 0 {
		c.sampleEvery = DefaultLatencySampling
	}
	if c.stealTiers != nil {
		if err := validateTiers(c.stealTiers, c.workers); err != nil {
			c.errs = append(c.errs, err)
		}
	}
	return errors.Join(c.errs...)
}

func validateTiers(tiers [][][]int, n int) error {
	if len(tiers) != n {
		return fmt.Errorf("blitz: WithStealTiers: %d tier lists for %d workers", len(tiers), n)
	}
	for i, ts := range tiers {
		seen := make(map[int]bool)
		for _, tier := range ts {
			for _, v := range tier {
				switch {
				case v < 0 || v >= n:
					return fmt.Errorf("blitz: WithStealTiers: worker %d lists victim %d, out of range [0,%d)", i, v, n)
				case v == i:
					return fmt.Errorf("blitz: WithStealTiers: worker %d lists itself as a victim", i)
				case seen[v]:
					return fmt.Errorf("blitz: WithStealTiers: worker %d lists victim %d twice", i, v)
				}
				seen[v] = true
			}
		}
	}
	return nil
}
