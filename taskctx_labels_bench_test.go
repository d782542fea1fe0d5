package blitz

import (
	"context"
	"fmt"
	"runtime/pprof"
	"sync"
	"sync/atomic"
	"testing"
)

// BenchmarkSubmitLabels measures what carrying the submitter's profiler
// labels into its tasks costs (taskctx.go): BenchmarkSubmitWorkers' fresh
// pool row at 2 workers (api=go: 10,000 Go calls, then a wait for all;
// ns/task) and BenchmarkDo's round trip (api=do), each from a goroutine
// without labels (labels=none) and from one under pprof labels
// (labels=set), whose every task then runs under them.
func BenchmarkSubmitLabels(b *testing.B) {
	const tasks = 10000
	for _, api := range []string{"go", "do"} {
		for _, labels := range []string{"none", "set"} {
			b.Run(fmt.Sprintf("api=%s/labels=%s", api, labels), func(b *testing.B) {
				p, err := New(WithWorkers(2))
				if err != nil {
					b.Fatal(err)
				}
				defer p.Close()
				var ran atomic.Int64
				var wg sync.WaitGroup
				submit := goSubmitter(b, p, func() { ran.Add(1); wg.Done() })
				bench := func(context.Context) {
					b.ReportAllocs()
					cpu0, cpuOK := processCPU()
					for b.Loop() {
						if api == "do" {
							Do(p, func(*Worker) int { return 1 })
							continue
						}
						wg.Add(tasks)
						submit(tasks)
						wg.Wait()
					}
					if api == "go" {
						reportPerTask(b, tasks, cpu0, cpuOK)
					}
				}
				if labels == "set" {
					pprof.Do(context.Background(), pprof.Labels("handler", "bench"), bench)
				} else {
					bench(context.Background())
				}
			})
		}
	}
}
