package blitz

import (
	"fmt"
	"testing"
)

// BenchmarkJoinThreadCPU is fib(n) with a join at every level on a pool of
// one worker, like BenchmarkFib/form=args/workers=1, but it also reports the
// CPU time of the worker's own thread per join ("cpu-ns/join", from
// getrusage(RUSAGE_THREAD); the worker is locked to its thread by the futex
// backend). On a shared machine the wall-clock figure includes the time the
// thread spent preempted by other processes; the thread's CPU time does not,
// so this one is the figure to compare across runs when the machine is busy.
// Linux only: elsewhere only ns/join is reported.
func BenchmarkJoinThreadCPU(b *testing.B) {
	const n = 27
	b.Run(fmt.Sprintf("n=%d/form=args/workers=1", n), func(b *testing.B) {
		p, err := New(WithWorkers(1), WithParking(ParkingFutex))
		if err != nil {
			b.Skip(err) // no futex backend: the worker is not locked to a thread
		}
		defer p.Close()
		b.ReportAllocs()
		var cpu int64
		ok := true
		Do(p, func(w *Worker) int {
			fibArgs(w, n) // warm up: frames, deques, stacks
			t0, ok0 := threadCPU()
			for b.Loop() {
				sink = fibArgs(w, n)
			}
			t1, ok1 := threadCPU()
			cpu, ok = t1-t0, ok0 && ok1
			return 0
		})
		joins := float64(b.N) * float64(fibJoins(n))
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/joins, "ns/join")
		if ok {
			b.ReportMetric(float64(cpu)/joins, "cpu-ns/join")
		}
	})
}

// BenchmarkFibGeneralPath is BenchmarkFib/form=args/workers=1 with the pool's
// one-worker shortcuts turned off: the worker takes the path of a worker
// that may have thieves (the halves it pushes, in the first levels of the
// tree, are told to the sleep protocol and popped back with the Chase-Lev
// pop and its fence; the deeper ones are lazy, offer.go) although it has
// none. It is the 1-worker baseline of the general path, for the 1->2
// worker speedup of that path; BenchmarkFib's workers=1 row is the
// one-worker pool as users get it.
func BenchmarkFibGeneralPath(b *testing.B) {
	const n = 32
	b.Run(fmt.Sprintf("n=%d/form=args/workers=1", n), func(b *testing.B) {
		p, err := New(WithWorkers(1))
		if err != nil {
			b.Fatal(err)
		}
		defer p.Close()
		// Before the first job: the worker reads alone only inside jobs,
		// which it receives through the injector (happens-after this).
		p.workerList()[0].alone = false
		b.ReportAllocs()
		Do(p, func(w *Worker) int {
			fibArgs(w, n)
			for b.Loop() {
				sink = fibArgs(w, n)
			}
			return 0
		})
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(fibJoins(n)), "ns/join")
	})
}

// funcSink keeps a closure reachable from the heap, as a join's frame keeps
// its second half.
var funcSink func() int

//go:noinline
func keepFunc(f func() int) { funcSink = f }

// seqFibEscaping is sequential fib that makes, at every call with n >= 2,
// the closure fibClosure hands Join as its second half, and lets it escape
// as Join's frame does: the allocation every closure-form join pays before
// Join is even called.
func seqFibEscaping(n int) int {
	if n < 2 {
		return n
	}
	f := func() int { return seqFibEscaping(n - 2) }
	keepFunc(f)
	return seqFibEscaping(n-1) + f()
}

// BenchmarkClosureFloor is the cost of the closure form's allocation alone,
// with no pool: sequential fib(n) creating one escaping closure per call
// (seqFibEscaping) against plain sequential fib. Its ns/join (per call with
// n >= 2, the joins of fib(n)) bounds BenchmarkFib/form=closure from below,
// on one worker: whatever a join costs, the closure form pays this on top.
func BenchmarkClosureFloor(b *testing.B) {
	const n = 30
	for _, form := range []struct {
		name string
		fib  func(int) int
	}{{"plain", seqFib}, {"escaping-closure", seqFibEscaping}} {
		b.Run(fmt.Sprintf("n=%d/form=%s", n, form.name), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sink = form.fib(n)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(fibJoins(n)), "ns/join")
		})
	}
}
