package blitz

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

// BenchmarkParkingChoice measures what the default parking backend decides:
// each row runs on pools built with WithParking(futex) and
// WithParking(portable) and GOMAXPROCS workers.
//
//   - op=do: one Do round trip from one goroutine (inject, wake, run an
//     empty function, wake the caller);
//   - op=do-1000: 1,000 goroutines each calling Do once, per call;
//   - op=bursts/gap=G: a burst of fork-join work (fib(22) with a join at
//     every level, about 0.1-0.3 ms on one CPU) entered with Run after the
//     pool sat idle for G. burst-p50-µs and burst-p99-µs are the bursts'
//     wall times including the wake; idle-cpu-ms/s is the process's CPU
//     time per second of the gaps (what idle workers burn between bursts);
//   - op=fib30/pool=fresh|warm: fib(30) with a join at every level inside
//     one Run, on a new pool and on a long-lived one (after warmFib's
//     fork-join work of several sizes).
func BenchmarkParkingChoice(b *testing.B) {
	for _, kind := range []Parking{ParkingFutex, ParkingPortable} {
		if _, err := resolveBackend(kind); err != nil {
			continue
		}
		runOn := func(name string, warm bool, f func(b *testing.B, p *Pool)) {
			b.Run(fmt.Sprintf("op=%s/parking=%v", name, kind), func(b *testing.B) {
				p, err := New(WithParking(kind))
				if err != nil {
					b.Fatal(err)
				}
				defer p.Close()
				if warm {
					warmFib(p, warmUpRuns())
					b.ResetTimer()
				}
				b.ReportAllocs()
				f(b, p)
			})
		}
		run := func(name string, f func(b *testing.B, p *Pool)) { runOn(name, false, f) }
		run("do", func(b *testing.B, p *Pool) {
			for b.Loop() {
				Do(p, func(*Worker) int { return 1 })
			}
		})
		run("do-1000", func(b *testing.B, p *Pool) {
			const callers = 1000
			for b.Loop() {
				var wg sync.WaitGroup
				wg.Add(callers)
				for range callers {
					go func() {
						defer wg.Done()
						Do(p, func(*Worker) int { return 1 })
					}()
				}
				wg.Wait()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*callers), "ns/call")
		})
		for _, gap := range []time.Duration{time.Millisecond, 5 * time.Millisecond, 20 * time.Millisecond} {
			run(fmt.Sprintf("bursts/gap=%v", gap), func(b *testing.B, p *Pool) {
				var bursts []int64 // ns
				var idleCPU int64
				var idle time.Duration
				_, haveCPU := processCPU()
				for b.Loop() {
					c0, _ := processCPU()
					t0 := time.Now()
					time.Sleep(gap)
					t1 := time.Now()
					c1, _ := processCPU()
					p.Run(func(w *Worker) { sink = fibArgs(w, 22) })
					bursts = append(bursts, time.Since(t1).Nanoseconds())
					idle += t1.Sub(t0)
					idleCPU += c1 - c0
				}
				reportQuantiles(b, bursts, "burst-")
				if haveCPU {
					b.ReportMetric(float64(idleCPU)/1e6/idle.Seconds(), "idle-cpu-ms/s")
				}
			})
		}
		for _, warm := range []bool{false, true} {
			name := "fib30/pool=fresh"
			if warm {
				name = "fib30/pool=warm"
			}
			runOn(name, warm, func(b *testing.B, p *Pool) {
				for b.Loop() {
					p.Run(func(w *Worker) { sink = fibArgs(w, 30) })
				}
			})
		}
	}
}
