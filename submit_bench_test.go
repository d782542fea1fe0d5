package blitz

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
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
