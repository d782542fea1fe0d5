package workload

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/alitto/pond/v2"
	"github.com/blitz-go/blitz"
	"github.com/panjf2000/ants/v2"
	"github.com/sourcegraph/conc/pool"
	"golang.org/x/sync/errgroup"
)

// The blocking workloads (issue 32) are tasks that block, as servers submit
// them: a sleep standing in for I/O, tasks waiting on a channel that a later
// task closes, a chain of tasks each waiting for the next. A pool of
// GOMAXPROCS workers that runs such tasks one per worker serves them
// GOMAXPROCS at a time, and tasks waiting on tasks queued behind them never
// finish; Go users run them on goroutines, which the runtime parks. The
// server workload (server.go) is the same problem under open-loop load.
//
// One op runs one batch: n tasks, submitted in index order from one
// goroutine, then waited for. Every implementation runs the same task
// function; the peers are unbounded, as Go users run blocking work (a
// goroutine per task, errgroup without a limit, ants and pond pools without
// a size limit, conc's pool without a maximum), the pool's rows run on a
// pool of the default size (blitz.New() with no option but the parking:
// GOMAXPROCS workers, the configuration of blitz.Default(); a pool per row,
// so that a row that hangs cannot harm the rows after it, which a shared
// Default() could). Every row runs at the largest worker count of the run,
// the peers under GOMAXPROCS = that count.
//
// Every op runs under a guard (guarded): a deadline after which it is
// abandoned and the row reported as timed out, instead of hanging the
// report. Every wait of the tasks (sleep included) also ends when the guard
// closes its abort channel, so that a pool whose workers all wait is freed
// and can be closed: the row then stops, reported as timed out, and its
// figures are those of no op.

// SleepBatch is one size of the blocking-sleep workload.
type SleepBatch struct {
	Tasks int
	Sleep time.Duration
}

// batcher is one way to run a batch of tasks: run calls task(i) once for
// every i in [0, n), submitting them in index order from the calling
// goroutine, and returns when all returned. open builds what a row shares
// (a pool) and closeFn releases it.
type batcher struct {
	impl string
	kind Kind
	open func(parking string) (run func(n int, task func(i int)) error, closeFn func() error, err error)
}

// batchers are the implementations of the batch workloads, peers first.
func batchers() []batcher {
	return []batcher{
		{"go-wg", KindPeer, openBatchGo},
		{"errgroup", KindPeer, openBatchErrgroup},
		{"ants", KindPeer, openBatchAnts},
		{"pond", KindPeer, openBatchPond},
		{"conc", KindPeer, openBatchConc},
		{"blitz-group", KindBlitz, openBatchBlitzGroup},
		{"blitz-go", KindBlitz, openBatchBlitzGo},
	}
}

func noClose() error { return nil }

// openBatchGo starts a goroutine per task and waits on a WaitGroup.
func openBatchGo(string) (func(int, func(int)) error, func() error, error) {
	return func(n int, task func(int)) error {
		var wg sync.WaitGroup
		wg.Add(n)
		for i := range n {
			go func() {
				defer wg.Done()
				task(i)
			}()
		}
		wg.Wait()
		return nil
	}, noClose, nil
}

// openBatchErrgroup uses errgroup without a limit: a goroutine per task.
func openBatchErrgroup(string) (func(int, func(int)) error, func() error, error) {
	return func(n int, task func(int)) error {
		var g errgroup.Group
		for i := range n {
			g.Go(func() error { task(i); return nil })
		}
		return g.Wait()
	}, noClose, nil
}

// openBatchAnts uses an ants pool without a size limit (NewPool(0), as
// ants's default pool, whose size is MaxInt32).
func openBatchAnts(string) (func(int, func(int)) error, func() error, error) {
	p, err := ants.NewPool(0)
	if err != nil {
		return nil, nil, err
	}
	return func(n int, task func(int)) error {
		var wg sync.WaitGroup
		wg.Add(n)
		for i := range n {
			if err := p.Submit(func() { defer wg.Done(); task(i) }); err != nil {
				wg.Add(i - n) // the tasks not submitted
				wg.Wait()
				return err
			}
		}
		wg.Wait()
		return nil
	}, func() error { return p.ReleaseTimeout(time.Minute) }, nil
}

// openBatchPond uses a pond v2 pool without a concurrency limit
// (NewPool(0)) and a task group per op.
func openBatchPond(string) (func(int, func(int)) error, func() error, error) {
	p := pond.NewPool(0)
	return func(n int, task func(int)) error {
		g := p.NewGroup()
		for i := range n {
			g.Submit(func() { task(i) })
		}
		return g.Wait()
	}, func() error { p.StopAndWait(); return nil }, nil
}

// openBatchConc uses conc's pool without a maximum, one per op (it cannot
// be reused after Wait).
func openBatchConc(string) (func(int, func(int)) error, func() error, error) {
	return func(n int, task func(int)) error {
		p := pool.New()
		for i := range n {
			p.Go(func() { task(i) })
		}
		p.Wait()
		return nil
	}, noClose, nil
}

// openBlockingPool is the pool of the blitz rows: blitz.New with no option
// but the parking, so GOMAXPROCS workers as blitz.Default().
func openBlockingPool(parking string) (*blitz.Pool, error) {
	kind, ok := parkings[parking]
	if !ok {
		return nil, fmt.Errorf("unknown parking backend %q", parking)
	}
	return blitz.New(blitz.WithParking(kind))
}

// openBatchBlitzGroup runs every op in a blitz.Group on the pool, as
// errgroup users switch to it: NewGroup(ctx, pool), Go, Wait.
func openBatchBlitzGroup(parking string) (func(int, func(int)) error, func() error, error) {
	p, err := openBlockingPool(parking)
	if err != nil {
		return nil, nil, err
	}
	return func(n int, task func(int)) error {
		g, _ := blitz.NewGroup(context.Background(), p)
		for i := range n {
			g.Go(func(*blitz.Worker) error { task(i); return nil })
		}
		return g.Wait()
	}, p.Close, nil
}

// openBatchBlitzGo submits every task with Pool.Go and waits on a
// WaitGroup.
func openBatchBlitzGo(parking string) (func(int, func(int)) error, func() error, error) {
	p, err := openBlockingPool(parking)
	if err != nil {
		return nil, nil, err
	}
	return func(n int, task func(int)) error {
		var wg sync.WaitGroup
		wg.Add(n)
		for i := range n {
			if err := p.Go(func(*blitz.Worker) { defer wg.Done(); task(i) }); err != nil {
				wg.Add(i - n)
				wg.Wait()
				return err
			}
		}
		wg.Wait()
		return nil
	}, p.Close, nil
}

// errNotRecovered says that an op the guard abandoned did not return even
// after its tasks were told to stop.
var errNotRecovered = errors.New("did not return after its tasks were told to stop")

// guardGrace is how long guarded waits for an abandoned op to return (a
// variable for the tests).
var guardGrace = 10 * time.Second

// guarded runs op on its own goroutine and waits at most deadline for it.
// op receives abort, which guarded closes at the deadline, after calling
// atDeadline if not nil: every wait of op's tasks must end when it is
// closed. It returns timedOut = true when the deadline passed, and op's
// error; errNotRecovered if op did not return within guardGrace after abort
// was closed (op's goroutine is then left behind).
func guarded(deadline time.Duration, op func(abort <-chan struct{}) error, atDeadline func()) (timedOut bool, err error) {
	abort := make(chan struct{})
	done := make(chan error, 1)
	go func() { done <- op(abort) }()
	t := time.NewTimer(deadline)
	defer t.Stop()
	select {
	case err := <-done:
		return false, err
	case <-t.C:
	}
	if atDeadline != nil {
		atDeadline()
	}
	close(abort)
	t.Reset(guardGrace)
	select {
	case err := <-done:
		return true, err
	case <-t.C:
		return true, errNotRecovered
	}
}

// sleepOrAbort waits d, or until abort is closed: the blocking call of the
// sleep tasks (a timer wait parks the goroutine as time.Sleep does).
func sleepOrAbort(d time.Duration, abort <-chan struct{}) {
	t := time.NewTimer(d)
	select {
	case <-t.C:
	case <-abort:
		t.Stop()
	}
}

// waitOrAbort waits until ch or abort is closed.
func waitOrAbort(ch, abort <-chan struct{}) {
	select {
	case <-ch:
	case <-abort:
	}
}

// A batchShape is the tasks of one op of a batch workload: task(i) for i in
// [0, n), built afresh per op (its channels), whose waits end when abort is
// closed.
type batchShape func(n int, abort <-chan struct{}) (task func(i int))

// sleepShape: every task sleeps d.
func sleepShape(d time.Duration) batchShape {
	return func(_ int, abort <-chan struct{}) func(int) {
		return func(int) { sleepOrAbort(d, abort) }
	}
}

// fanInShape: tasks 0..n-2 wait on a channel that the last task (submitted
// last) closes.
func fanInShape(n int, abort <-chan struct{}) func(int) {
	gate := make(chan struct{})
	return func(i int) {
		if i == n-1 {
			close(gate)
			return
		}
		waitOrAbort(gate, abort)
	}
}

// chainShape: task i waits for task i+1 to finish (the last one waits for
// nobody), so the tasks finish in the reverse of their submission order.
func chainShape(n int, abort <-chan struct{}) func(int) {
	done := make([]chan struct{}, n)
	for i := range done {
		done[i] = make(chan struct{})
	}
	return func(i int) {
		if i+1 < n {
			waitOrAbort(done[i+1], abort)
		}
		close(done[i])
	}
}

// batchOp is one guarded op: the shape's n tasks run by run, each counted
// in ran. It returns whether the guard's deadline passed, how many tasks
// had finished then (n if it did not pass), and run's error.
func batchOp(run func(int, func(int)) error, shape batchShape, n int, deadline time.Duration, ran *atomic.Int64) (timedOut bool, finished int64, err error) {
	finished = int64(n)
	timedOut, err = guarded(deadline, func(abort <-chan struct{}) error {
		task := shape(n, abort)
		return run(n, func(i int) {
			task(i)
			ran.Add(1)
		})
	}, func() { finished = ran.Load() })
	return timedOut, finished, err
}

// batchRow binds a batcher to a row of n tasks of the given shape.
func batchRow(c Case, bt batcher, shape batchShape, n int, deadline time.Duration) Case {
	return bind(c, func(b *testing.B, c *Case) {
		run, closeFn, err := bt.open(c.Parking)
		if err != nil {
			Fail(b, c, "open: %v", err)
		}
		stuck := false
		defer func() {
			if stuck {
				return // its workers may still hold the tasks: closing would wait for them
			}
			if err := closeFn(); err != nil {
				Fail(b, c, "close: %v", err)
			}
		}()
		var ran atomic.Int64
		measure(b, c, nil, func() {
			ran.Store(0)
			timedOut, finished, err := batchOp(run, shape, n, deadline, &ran)
			switch {
			case errors.Is(err, errNotRecovered):
				stuck = true
				TimedOut(b, c, "hung: an op passed its deadline of %v (%d of %d tasks done) and %v", deadline, finished, n, err)
			case timedOut:
				TimedOut(b, c, "an op passed its deadline of %v (%d of %d tasks done then; stopped)", deadline, finished, n)
			case err != nil:
				Fail(b, c, "run: %v", err)
			}
			if got := ran.Load(); got != int64(n) {
				Fail(b, c, "%d tasks ran, want %d", got, n)
			}
		})
	})
}

// blockingCase is a row of a batch workload.
func blockingCase(wl, params, impl string, workers, tasks int, kind Kind) Case {
	return Case{Workload: wl, Params: params, Impl: impl, Workers: workers, Unit: "ns/task", PerOp: float64(tasks), Kind: kind}
}

// The blocking workloads' names, which name their Benchmark functions
// (BenchmarkBlockingSleep, ...): -only Blocking selects them all.
const (
	BlockingSleep  = "blocking-sleep"
	BlockingWait   = "blocking-wait"
	BlockingServer = "blocking-server"
)

// IsBlocking says whether a workload is one of the blocking section's.
func IsBlocking(wl string) bool {
	return wl == BlockingSleep || wl == BlockingWait || wl == BlockingServer
}

// BlockingBaseline is the impl the batch rows are compared with:
// goroutines and a WaitGroup.
const BlockingBaseline = "go-wg"

// batchRows returns the rows of one batch workload size: every batcher at
// the largest worker count, the pool's per backend.
func batchRows(cfg Config, wl, params string, shape batchShape, n int) []Case {
	w := slices.Max(cfg.Workers)
	var out []Case
	for _, bt := range batchers() {
		parks := []string{""}
		if bt.kind == KindBlitz {
			parks = cfg.Parkings
		}
		for _, parking := range parks {
			c := blockingCase(wl, params, bt.impl, w, n, bt.kind)
			c.Parking = parking
			out = append(out, procsRow(batchRow(c, bt, shape, n, cfg.Sizes.BlockDeadline), w))
		}
	}
	return out
}

// blockingSleepCases are the rows of the sleep batches.
func blockingSleepCases(cfg Config) []Case {
	var out []Case
	for _, sb := range cfg.Sizes.BlockSleep {
		params := fmt.Sprintf("tasks=%d/sleep=%v", sb.Tasks, sb.Sleep)
		out = append(out, batchRows(cfg, BlockingSleep, params, sleepShape(sb.Sleep), sb.Tasks)...)
	}
	return out
}

// blockingWaitCases are the rows of the tasks that wait on later tasks:
// fan-in (WaitFanIn tasks wait on the last one) and the chain.
func blockingWaitCases(cfg Config) []Case {
	var out []Case
	if n := cfg.Sizes.WaitFanIn; n > 0 {
		out = append(out, batchRows(cfg, BlockingWait, fmt.Sprintf("shape=fan-in/tasks=%d", n+1), fanInShape, n+1)...)
	}
	if n := cfg.Sizes.WaitChain; n > 0 {
		out = append(out, batchRows(cfg, BlockingWait, fmt.Sprintf("shape=chain/tasks=%d", n), chainShape, n)...)
	}
	return out
}

// blockingNote is what the batch rows share, for Note.
func blockingNote(s Sizes) string {
	return fmt.Sprintf("peers unbounded (a goroutine per task; ants, pond, conc without a size limit); blitz on blitz.New() with no option "+
		"but the parking (GOMAXPROCS workers, as blitz.Default()), blitz-group = NewGroup(ctx, pool), blitz-go = Pool.Go + WaitGroup; "+
		"an op past %v is stopped and its row reported as timed out", s.BlockDeadline)
}
