package blitz

import (
	"fmt"
	"runtime"
	"testing"
	"time"
)

// BenchmarkResize measures a grow and a shrink of a running, idle pool:
// op=resize is Resize(8) then Resize(2) (Resize returns without waiting for
// the workers); op=resize-broadcast adds a Broadcast after the grow, so it
// includes waking or starting the workers and each running a call;
// op=broadcast is that Broadcast alone on a pool of 8, its baseline.
func BenchmarkResize(b *testing.B) {
	for _, kind := range []Parking{ParkingPortable, ParkingFutex} {
		for _, op := range []string{"resize", "resize-broadcast", "broadcast"} {
			b.Run(fmt.Sprintf("backend=%v/op=%s", kind, op), func(b *testing.B) {
				p, err := New(WithParking(kind), WithWorkers(2))
				if err != nil {
					b.Fatal(err)
				}
				defer p.Close()
				if op == "broadcast" {
					if err := p.Resize(8); err != nil {
						b.Fatal(err)
					}
					for b.Loop() {
						Broadcast(p, func(w *Worker) int { return w.Index() })
					}
					return
				}
				for b.Loop() {
					if err := p.Resize(8); err != nil {
						b.Fatal(err)
					}
					if op == "resize-broadcast" {
						Broadcast(p, func(w *Worker) int { return w.Index() })
					}
					if err := p.Resize(2); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkIdleFollow measures the CPU time of the whole process while a
// pool sits idle for one second after a burst of work, in cpu-ms per idle
// second: follow=true is a pool made without WithWorkers (it follows
// GOMAXPROCS: at most one follower tick after the burst), follow=false the
// same size made WithWorkers. Compare with BenchmarkIdleCPU's floor.
func BenchmarkIdleFollow(b *testing.B) {
	for _, follow := range []bool{false, true} {
		b.Run(fmt.Sprintf("follow=%v", follow), func(b *testing.B) {
			if _, ok := processCPU(); !ok {
				b.Skip("no getrusage here")
			}
			opts := []Option{WithParking(ParkingPortable)}
			if !follow {
				opts = append(opts, WithWorkers(runtime.GOMAXPROCS(0)))
			}
			p, err := New(opts...)
			if err != nil {
				b.Fatal(err)
			}
			defer p.Close()
			var total time.Duration
			var cpu int64
			for b.Loop() {
				for i := 0; i < 100; i++ { // a burst, then idle
					Do(p, func(w *Worker) int { return w.Index() })
				}
				c0, _ := processCPU()
				t0 := time.Now()
				time.Sleep(time.Second)
				c1, _ := processCPU()
				total += time.Since(t0)
				cpu += c1 - c0
			}
			b.ReportMetric(float64(cpu)/1e6/total.Seconds(), "cpu-ms/idle-s")
		})
	}
}
