package workload

import (
	"fmt"
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

// The submit workload is the server's view of a pool: one goroutine submits
// many trivial tasks, fire-and-forget, then waits for all of them. One op
// submits Sizes.Tasks tasks; ns/task is ns/op divided by that number, so it
// is the whole cost of handing a task over, running it and accounting for
// it, with the submitter's and the workers' time overlapped as they are in a
// server.
//
// Every implementation runs the same task value (built once per row, so no
// implementation pays for a closure per task the others do not): it bumps a
// counter and marks a shared WaitGroup done. The op waits on that WaitGroup,
// then on the implementation's own completion where it has one (errgroup,
// conc), and checks the counter. Pools are created once per row, outside the
// timed loop, and closed after it, except conc's pool, which cannot be
// reused after Wait and is created per op as its users do.

// A submitter is one way to run fire-and-forget tasks.
type submitter struct {
	impl string
	// open starts a pool of the given size that will run task. op submits
	// n tasks and returns once the submitter's part is done (it may wait
	// for the pool's own completion); closeFn releases the pool and waits
	// for its goroutines to exit.
	open func(workers int, task func()) (op func(n int) error, closeFn func() error, err error)
}

// submitters are the peers: what Go users use today to run tasks on a
// bounded set of workers (go-wg is unbounded: a goroutine per task).
var submitters = []submitter{
	{impl: "chan-workers", open: openChanWorkers},
	{impl: "pond", open: openPond},
	{impl: "ants", open: openAnts},
	{impl: "errgroup-limit", open: openErrgroup},
	{impl: "go-wg", open: openGoWG},
	{impl: "conc", open: openConc},
}

// openChanWorkers starts workers goroutines reading a buffered channel of
// tasks: the hand-written worker pool.
func openChanWorkers(workers int, task func()) (func(int) error, func() error, error) {
	ch := make(chan func(), 1024)
	var exited sync.WaitGroup
	exited.Add(workers)
	for i := 0; i < workers; i++ {
		go func() {
			defer exited.Done()
			for f := range ch {
				f()
			}
		}()
	}
	op := func(n int) error {
		for i := 0; i < n; i++ {
			ch <- task
		}
		return nil
	}
	return op, func() error { close(ch); exited.Wait(); return nil }, nil
}

// openPond uses pond v2's pool with a concurrency limit of workers and its
// default unbounded queue.
func openPond(workers int, task func()) (func(int) error, func() error, error) {
	p := pond.NewPool(workers)
	op := func(n int) error {
		for i := 0; i < n; i++ {
			if err := p.Go(task); err != nil {
				return err
			}
		}
		return nil
	}
	return op, func() error { p.StopAndWait(); return nil }, nil
}

// openAnts uses an ants pool of workers goroutines with its default blocking
// Submit (the submitter waits when every worker is busy).
func openAnts(workers int, task func()) (func(int) error, func() error, error) {
	p, err := ants.NewPool(workers)
	if err != nil {
		return nil, nil, err
	}
	op := func(n int) error {
		for i := 0; i < n; i++ {
			if err := p.Submit(task); err != nil {
				return err
			}
		}
		return nil
	}
	// Release alone does not wait for the workers (ants #17); ReleaseTimeout does.
	return op, func() error { return p.ReleaseTimeout(time.Minute) }, nil
}

// openErrgroup uses errgroup with SetLimit(workers): a goroutine per task,
// at most workers at once.
func openErrgroup(workers int, task func()) (func(int) error, func() error, error) {
	var g errgroup.Group
	g.SetLimit(workers)
	taskErr := func() error { task(); return nil }
	op := func(n int) error {
		for i := 0; i < n; i++ {
			g.Go(taskErr)
		}
		return g.Wait()
	}
	return op, func() error { return nil }, nil
}

// openGoWG starts a goroutine per task.
func openGoWG(_ int, task func()) (func(int) error, func() error, error) {
	op := func(n int) error {
		for i := 0; i < n; i++ {
			go task()
		}
		return nil
	}
	return op, func() error { return nil }, nil
}

// openConc uses conc's pool with WithMaxGoroutines(workers). A conc pool
// cannot be reused after Wait, so each op builds one, as its users do.
func openConc(workers int, task func()) (func(int) error, func() error, error) {
	op := func(n int) error {
		p := pool.New().WithMaxGoroutines(workers)
		for i := 0; i < n; i++ {
			p.Go(task)
		}
		p.Wait()
		return nil
	}
	return op, func() error { return nil }, nil
}

// submitCase returns a submit row; the metric is ns per task.
func submitCase(tasks int, impl string, workers int, kind Kind) Case {
	return Case{
		Workload: "submit",
		Params:   fmt.Sprintf("tasks=%d", tasks),
		Impl:     impl,
		Workers:  workers,
		Unit:     "ns/task",
		PerOp:    float64(tasks),
		Kind:     kind,
	}
}

// submitRow binds a submitter to a row. open receives the task every
// implementation runs; see the comment at the top of this file.
func submitRow(c Case, tasks, workers int, open func(workers int, task func()) (func(int) error, func() error, error)) Case {
	return bind(c, func(b *testing.B, c *Case) {
		var ran atomic.Int64
		var wg sync.WaitGroup
		task := func() {
			ran.Add(1)
			wg.Done()
		}
		op, closeFn, err := open(workers, task)
		if err != nil {
			Fail(b, c, "open: %v", err)
		}
		defer func() {
			if err := closeFn(); err != nil {
				Fail(b, c, "close: %v", err)
			}
		}()
		one := func() {
			ran.Store(0)
			wg.Add(tasks)
			if err := op(tasks); err != nil {
				Fail(b, c, "submit: %v", err)
			}
			wg.Wait()
			if got := ran.Load(); got != int64(tasks) {
				Fail(b, c, "%d tasks ran, want %d", got, tasks)
			}
		}
		one()
		measure(b, c, nil, one)
	})
}

// openBlitz returns the opener of a pool with the given backend: Go from
// one goroutine, the same task as the peers.
func openBlitz(parking string) func(workers int, task func()) (func(int) error, func() error, error) {
	return func(workers int, task func()) (func(int) error, func() error, error) {
		p, err := OpenPool(workers, parking)
		if err != nil {
			return nil, nil, err
		}
		wtask := func(*blitz.Worker) { task() }
		op := func(n int) error {
			for i := 0; i < n; i++ {
				if err := p.Go(wtask); err != nil {
					return err
				}
			}
			return nil
		}
		return op, p.Close, nil
	}
}

// submitCases are the submit rows: every peer, then the pool per backend.
func submitCases(cfg Config) []Case {
	tasks := cfg.Sizes.Tasks
	var out []Case
	for _, w := range cfg.Workers {
		for _, s := range submitters {
			out = append(out, procsRow(submitRow(submitCase(tasks, s.impl, w, KindPeer), tasks, w, s.open), w))
		}
	}
	for _, parking := range cfg.Parkings {
		for _, w := range cfg.Workers {
			c := submitCase(tasks, "blitz", w, KindBlitz)
			c.Parking = parking
			out = append(out, submitRow(c, tasks, w, openBlitz(parking)))
		}
	}
	return out
}
