package blitz

import (
	"fmt"
	"runtime"
	"testing"
	"time"
)

// BenchmarkLargePool times the life of a pool of thousands of workers, as a
// server whose tasks block runs: New, one Do, going idle (every worker
// asleep in the sleep protocol's counters, after its idle rounds and
// searches) and Close, per backend and size, one pool per iteration. The
// phases are reported as new-ms, idle-ms and close-ms, the process's CPU
// time over the whole life as cpu-ms, and the idle search's CPU per worker
// as idle-cpu-us/worker. The futex backend locks a thread per worker: past
// Go's thread limit (10,000 by default) New fails, so it stops at 4,096.
//
//	go test -run '^$' -bench LargePool -benchtime 3x
func BenchmarkLargePool(b *testing.B) {
	for _, k := range testParkings() {
		for _, n := range []int{1024, 4096, 16384} {
			if k == ParkingFutex && n > 4096 {
				continue
			}
			b.Run(fmt.Sprintf("parking=%v/workers=%d", k, n), func(b *testing.B) {
				var newT, idleT, closeT time.Duration
				var cpu, idleCPU int64
				for range b.N {
					c0, _ := processCPU()
					t0 := time.Now()
					p, err := New(WithWorkers(n), WithParking(k))
					if err != nil {
						b.Fatal(err)
					}
					t1 := time.Now()
					Do(p, func(*Worker) int { return 0 })
					t2 := time.Now()
					ci, _ := processCPU()
					for p.sleep.Sleeping() < n {
						time.Sleep(100 * time.Microsecond)
					}
					t3 := time.Now()
					ce, _ := processCPU()
					if err := p.Close(); err != nil {
						b.Fatal(err)
					}
					t4 := time.Now()
					c1, _ := processCPU()
					newT += t1.Sub(t0)
					idleT += t3.Sub(t2)
					closeT += t4.Sub(t3)
					cpu += c1 - c0
					idleCPU += ce - ci
					runtime.GC()
				}
				ms := func(d time.Duration) float64 { return float64(d) / float64(b.N) / 1e6 }
				b.ReportMetric(ms(newT), "new-ms")
				b.ReportMetric(ms(idleT), "idle-ms")
				b.ReportMetric(ms(closeT), "close-ms")
				b.ReportMetric(float64(cpu)/float64(b.N)/1e6, "cpu-ms")
				b.ReportMetric(float64(idleCPU)/float64(b.N)/1e3/float64(n), "idle-cpu-us/worker")
				b.ReportMetric(0, "ns/op")
			})
		}
	}
}
