package blitz

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkSubmitPhases splits the cost of a submitted task into its two
// sides, so that a change to the injector can be judged on each:
//
//   - side=produce: Go into a pool whose one worker is held by a task, so
//     nothing is consumed while the clock runs (the queue grows by
//     tasks per op, then drains untimed);
//   - side=consume: the queue is filled untimed while the worker is held,
//     then the clock runs while the worker drains it alone;
//   - side=pipeline: one goroutine submits while the workers run, as in a
//     server (the bench module's submit workload).
//
// Each has a buffered-channel twin (impl=chan) with one receiving goroutine
// doing the same task, the hand-written worker pool Go users reach for.
// ns/task is ns/op over tasks. Both wait by submitting a sentinel task and
// blocking until it ran (one consumer, FIFO), so no waiter polls the
// tasks' counter.
func BenchmarkSubmitPhases(b *testing.B) {
	const tasks = 10000
	for _, side := range []string{"produce", "consume", "pipeline"} {
		for _, impl := range []string{"blitz", "chan"} {
			b.Run(fmt.Sprintf("side=%s/impl=%s", side, impl), func(b *testing.B) {
				var ran atomic.Int64
				var phase submitPhaser
				if impl == "blitz" {
					phase = newBlitzPhaser(b, &ran)
				} else {
					phase = newChanPhaser(&ran)
				}
				defer phase.close()
				b.ReportAllocs()
				for b.Loop() {
					switch side {
					case "produce":
						b.StopTimer()
						phase.hold()
						b.StartTimer()
						phase.submit(tasks)
						b.StopTimer()
						phase.release()
						phase.wait(tasks)
						b.StartTimer()
					case "consume":
						b.StopTimer()
						phase.hold()
						phase.submit(tasks)
						b.StartTimer()
						phase.release()
						phase.wait(tasks)
					case "pipeline":
						phase.submit(tasks)
						phase.wait(tasks)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/tasks, "ns/task")
			})
		}
	}
}

// submitPhaser is one implementation of the phases.
type submitPhaser interface {
	hold()        // occupy the consumer until release
	release()     // let it go
	submit(n int) // submit n tasks
	wait(n int)   // wait until n more tasks ran (counted from the last wait)
	close()
}

type blitzPhaser struct {
	p    *Pool
	ran  *atomic.Int64
	gate chan struct{}
	held sync.WaitGroup
	want int64
}

func newBlitzPhaser(b *testing.B, ran *atomic.Int64) *blitzPhaser {
	p, err := New(WithWorkers(1))
	if err != nil {
		b.Fatal(err)
	}
	return &blitzPhaser{p: p, ran: ran}
}

func (s *blitzPhaser) hold() {
	s.gate = make(chan struct{})
	s.held.Add(1)
	gate := s.gate
	s.p.Go(func(*Worker) { s.held.Done(); <-gate })
	s.held.Wait()
}

func (s *blitzPhaser) release() { close(s.gate) }

func (s *blitzPhaser) submit(n int) {
	ran := s.ran
	task := func(*Worker) { ran.Add(1) }
	for i := 0; i < n; i++ {
		s.p.Go(task)
	}
}

// wait submits a sentinel and blocks until it ran: with one worker and a
// FIFO queue, everything before it ran too. The waiter sleeps meanwhile,
// off the counter's cache line.
func (s *blitzPhaser) wait(n int) {
	s.want += int64(n)
	done := make(chan struct{})
	s.p.Go(func(*Worker) { close(done) })
	<-done
	if got := s.ran.Load(); got != s.want {
		panic(fmt.Sprintf("ran %d tasks, want %d", got, s.want))
	}
}

func (s *blitzPhaser) close() { s.p.Close() }

type chanPhaser struct {
	ch   chan func()
	ran  *atomic.Int64
	gate chan struct{}
	done chan struct{}
	want int64
}

func newChanPhaser(ran *atomic.Int64) *chanPhaser {
	s := &chanPhaser{ch: make(chan func(), 1<<14), ran: ran, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		for f := range s.ch {
			f()
		}
	}()
	return s
}

func (s *chanPhaser) hold() {
	s.gate = make(chan struct{})
	held := make(chan struct{})
	gate := s.gate
	s.ch <- func() { close(held); <-gate }
	<-held
}

func (s *chanPhaser) release() { close(s.gate) }

func (s *chanPhaser) submit(n int) {
	ran := s.ran
	task := func() { ran.Add(1) }
	for i := 0; i < n; i++ {
		s.ch <- task
	}
}

func (s *chanPhaser) wait(n int) {
	s.want += int64(n)
	done := make(chan struct{})
	s.ch <- func() { close(done) }
	<-done
	if got := s.ran.Load(); got != s.want {
		panic(fmt.Sprintf("ran %d tasks, want %d", got, s.want))
	}
}

func (s *chanPhaser) close() { close(s.ch); <-s.done }

// BenchmarkSubmitWorkers is the server's submission at a given number of
// workers: one goroutine submits tasks fire-and-forget, then waits until
// all ran (the bench module's submit workload, in this package so that a
// change to the injector is measured without rebuilding the peers). Every
// task bumps a counter and marks a WaitGroup done. ns/task is the whole
// cost of a task, the submitter's and the workers' time overlapped;
// cpu-ns/task is the CPU time the process spent per task (Linux), which a
// machine busy with other work inflates less than the wall time.
//
//   - impl=chan-workers: workers goroutines receiving from a buffered
//     channel, the hand-written pool.
//   - impl=blitz/pool=fresh: a pool that ran nothing else.
//   - impl=blitz/pool=aged: a pool that first ran other work (ageServer):
//     fork-join, scopes, round trips, a long stream of tasks, as a server's
//     pool has.
func BenchmarkSubmitWorkers(b *testing.B) {
	const tasks = 10000
	for _, workers := range []int{1, 2} {
		for _, impl := range []string{"chan-workers", "blitz/pool=fresh", "blitz/pool=aged"} {
			b.Run(fmt.Sprintf("impl=%s/workers=%d", impl, workers), func(b *testing.B) {
				var ran atomic.Int64
				var wg sync.WaitGroup
				task := func() { ran.Add(1); wg.Done() }
				var submit func(n int)
				if impl == "chan-workers" {
					submit = chanWorkers(b, workers, task)
				} else {
					p, err := New(WithWorkers(workers))
					if err != nil {
						b.Fatal(err)
					}
					defer p.Close()
					if impl == "blitz/pool=aged" {
						ageServer(b, p)
					}
					submit = goSubmitter(b, p, task)
				}
				b.ReportAllocs()
				cpu0, cpuOK := processCPU()
				for b.Loop() {
					ran.Store(0)
					wg.Add(tasks)
					submit(tasks)
					wg.Wait()
					if got := ran.Load(); got != tasks {
						b.Fatalf("%d tasks ran, want %d", got, tasks)
					}
				}
				reportPerTask(b, tasks, cpu0, cpuOK)
			})
		}
	}
}

// reportPerTask reports b's wall time per task (ns/task) and, where the
// platform measures it (cpuOK), the process's CPU time per task since cpu0,
// a processCPU reading taken before the loop (cpu-ns/task).
func reportPerTask(b *testing.B, tasks int, cpu0 int64, cpuOK bool) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(tasks), "ns/task")
	if cpu1, ok := processCPU(); ok && cpuOK {
		b.ReportMetric(float64(cpu1-cpu0)/float64(b.N)/float64(tasks), "cpu-ns/task")
	}
}

// chanWorkers starts workers goroutines that run the tasks they receive
// from a channel of 1024, the hand-written pool, and returns the function
// that sends n tasks; the workers exit in b's cleanup (b.Cleanup).
func chanWorkers(b *testing.B, workers int, task func()) (submit func(n int)) {
	ch := make(chan func(), 1024)
	var exited sync.WaitGroup
	exited.Add(workers)
	for range workers {
		go func() {
			defer exited.Done()
			for f := range ch {
				f()
			}
		}()
	}
	b.Cleanup(func() { close(ch); exited.Wait() })
	return func(n int) {
		for range n {
			ch <- task
		}
	}
}

// goSubmitter returns the function that submits n tasks to p with Go.
func goSubmitter(b *testing.B, p *Pool, task func()) (submit func(n int)) {
	wtask := func(*Worker) { task() }
	return func(n int) {
		for range n {
			if err := p.Go(wtask); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkSubmitWork is BenchmarkSubmitWorkers with tasks that do some
// work of their own (spin: a dependent chain of xorshift steps, about 1 ns
// each on the machines measured), the fire-and-forget submission of a
// server whose tasks are not empty. 1,000 tasks an op at 2 workers; ns/task
// as there.
func BenchmarkSubmitWork(b *testing.B) {
	const tasks = 1000
	for _, spin := range []int{0, 100, 1000} {
		for _, impl := range []string{"chan-workers", "blitz"} {
			b.Run(fmt.Sprintf("spin=%d/impl=%s", spin, impl), func(b *testing.B) {
				var wg sync.WaitGroup
				var sink atomic.Uint64
				task := func() {
					x := uint64(spin) | 1
					for range spin {
						x ^= x << 13
						x ^= x >> 7
						x ^= x << 17
					}
					if x == 0 {
						sink.Add(1)
					}
					wg.Done()
				}
				var submit func(n int)
				if impl == "chan-workers" {
					submit = chanWorkers(b, 2, task)
				} else {
					p, err := New(WithWorkers(2))
					if err != nil {
						b.Fatal(err)
					}
					defer p.Close()
					ageServer(b, p)
					submit = goSubmitter(b, p, task)
				}
				cpu0, cpuOK := processCPU()
				for b.Loop() {
					wg.Add(tasks)
					submit(tasks)
					wg.Wait()
				}
				reportPerTask(b, tasks, cpu0, cpuOK)
			})
		}
	}
}

// BenchmarkRoundTrip is the submit-and-wait round trip of a handler: each of
// GOMAXPROCS goroutines (b.RunParallel; run it with -cpu 1,2) calls Do on a
// pool of GOMAXPROCS workers and waits for the result, against the bare
// hand-off a handler could write instead, a new goroutine that answers on
// a channel (api=go-chan). pool=aged is a pool that ran other work first
// (ageServer); pool=fixed is made WithWorkers(GOMAXPROCS), so it does not
// follow GOMAXPROCS and arms no timer while it works. Each call finds a
// worker asleep and runs on its caller (WithCallerRuns); pool=handoff is
// pool=fixed made WithCallerRuns(false), the round trip through a worker
// goroutine that every call takes when no worker sleeps. A pending timer makes
// every scheduling round on its P read the clock (the runtime checks its
// timers), so api=go-chan/timer=pending measures the bare hand-off with one
// pending timer in the process, as a working following pool has.
func BenchmarkRoundTrip(b *testing.B) {
	for _, pool := range []string{"fresh", "aged", "fixed", "handoff"} {
		b.Run("api=do/pool="+pool, func(b *testing.B) {
			var opts []Option
			switch pool {
			case "fixed":
				opts = append(opts, WithWorkers(runtime.GOMAXPROCS(0)))
			case "handoff":
				opts = append(opts, WithWorkers(runtime.GOMAXPROCS(0)), WithCallerRuns(false))
			}
			p, err := New(opts...)
			if err != nil {
				b.Fatal(err)
			}
			defer p.Close()
			if pool == "aged" {
				ageServer(b, p)
				b.ResetTimer()
			}
			fn := func(*Worker) int { return 1 }
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					Do(p, fn)
				}
			})
		})
	}
	b.Run("api=docontext-fresh", func(b *testing.B) {
		// A handler on a fresh goroutine, as the blocking report's
		// server starts one per request: DoContext under a context
		// that can end, through a worker, on a fresh 2 KB stack. A
		// call that waits too deep in its frames grows that stack.
		p, err := New(WithWorkers(runtime.GOMAXPROCS(0)))
		if err != nil {
			b.Fatal(err)
		}
		defer p.Close()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		fn := func(*Worker) int { return 1 }
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			done := make(chan int)
			for pb.Next() {
				go func() {
					v, _ := DoContext(ctx, p, fn)
					done <- v
				}()
				<-done
			}
		})
	})
	for _, timer := range []string{"none", "pending"} {
		b.Run("api=go-chan/timer="+timer, func(b *testing.B) {
			if timer == "pending" {
				t := time.AfterFunc(time.Hour, func() {})
				defer t.Stop()
			}
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				done := make(chan int)
				for pb.Next() {
					go func() { done <- 1 }()
					<-done
				}
			})
		})
	}
}

// ageServer runs on p what a server's pool has run before a measurement:
// fork-join trees, scopes, round trips from several goroutines and a long
// stream of submitted tasks, then waits until all of it finished.
func ageServer(b *testing.B, p *Pool) {
	b.Helper()
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 2000 {
				Do(p, func(w *Worker) int {
					if i%100 == 0 {
						return benchFibJoin(w, 15+g)
					}
					var n atomic.Int64
					w.Scope(func(s *Scope) {
						for range 4 {
							s.Spawn(func(*Worker, *Scope) { n.Add(1) })
						}
					})
					return int(n.Load())
				})
			}
		}()
	}
	const stream = 200000
	wg.Add(stream)
	for range stream {
		if err := p.Go(func(*Worker) { wg.Done() }); err != nil {
			b.Fatal(err)
		}
	}
	wg.Wait()
}

// benchFibJoin is fib by binary joins.
func benchFibJoin(w *Worker, n int) int {
	if n < 2 {
		return n
	}
	a, c := Join(w, func(w *Worker) int { return benchFibJoin(w, n-1) }, func(w *Worker) int { return benchFibJoin(w, n-2) })
	return a + c
}

// BenchmarkSubmitDrain isolates the consumers' side of submission at 2
// workers: the queue is filled while every worker is held (untimed), then
// the clock runs while the workers drain it, as they do after a burst. Here
// the workers contend for the queue's head alone, with no producer. The
// twin impl=chan-workers drains a buffered channel with 2 goroutines.
func BenchmarkSubmitDrain(b *testing.B) {
	const tasks, workers = 10000, 2
	for _, impl := range []string{"chan-workers", "blitz"} {
		b.Run(fmt.Sprintf("impl=%s/workers=%d", impl, workers), func(b *testing.B) {
			var wg sync.WaitGroup
			task := func() { wg.Done() }
			var hold func(gate chan struct{})
			var submit func()
			if impl == "chan-workers" {
				ch := make(chan func(), tasks+workers)
				for range workers {
					go func() {
						for f := range ch {
							f()
						}
					}()
				}
				defer close(ch)
				hold = func(gate chan struct{}) {
					var held sync.WaitGroup
					held.Add(workers)
					for range workers {
						ch <- func() { held.Done(); <-gate }
					}
					held.Wait()
				}
				submit = func() {
					for range tasks {
						ch <- task
					}
				}
			} else {
				p, err := New(WithWorkers(workers))
				if err != nil {
					b.Fatal(err)
				}
				defer p.Close()
				hold = func(gate chan struct{}) {
					var held sync.WaitGroup
					held.Add(workers)
					for range workers {
						if err := p.Go(func(*Worker) { held.Done(); <-gate }); err != nil {
							b.Fatal(err)
						}
					}
					held.Wait()
				}
				wtask := func(*Worker) { task() }
				submit = func() {
					for range tasks {
						if err := p.Go(wtask); err != nil {
							b.Fatal(err)
						}
					}
				}
			}
			b.ReportAllocs()
			var cpu int64
			for b.Loop() {
				b.StopTimer()
				gate := make(chan struct{})
				hold(gate)
				wg.Add(tasks)
				submit()
				c0, _ := processCPU()
				b.StartTimer()
				close(gate)
				wg.Wait()
				b.StopTimer()
				c1, _ := processCPU()
				cpu += c1 - c0
				b.StartTimer()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/tasks, "ns/task")
			b.ReportMetric(float64(cpu)/float64(b.N)/tasks, "cpu-ns/task")
		})
	}
}
