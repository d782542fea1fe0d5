package server

import (
	"context"
	"testing"

	"github.com/blitz-go/blitz"
)

// BenchmarkSubmitAndWait compares the two ways the current pool API offers
// a handler to run work on the pool and wait: Pool.Go with a per-request
// channel (what blitzExecutor uses, with its admission counter) and
// blitz.Do. The task is empty, so this is the whole overhead per request.
// Run with -cpu 1,2 and several goroutines submitting at once (RunParallel),
// as handlers do.
func BenchmarkSubmitAndWait(b *testing.B) {
	b.Run("api=go-chan", func(b *testing.B) {
		e, err := newBlitzExecutor(0, 1<<30)
		if err != nil {
			b.Fatal(err)
		}
		defer e.Close()
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if err := e.Execute(context.Background(), func() {}); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
	b.Run("api=do", func(b *testing.B) {
		p, err := blitz.New()
		if err != nil {
			b.Fatal(err)
		}
		defer p.Close()
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				blitz.Do(p, func(*blitz.Worker) struct{} { return struct{}{} })
			}
		})
	})
}
