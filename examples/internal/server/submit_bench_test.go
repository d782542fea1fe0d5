package server

import (
	"context"
	"runtime"
	"sync"
	"testing"

	"github.com/blitz-go/blitz"
)

// BenchmarkSubmitAndWait measures what a handler pays to run an empty task
// on the pool and wait for it: blitz.TryDo through the blitz executor (what
// the server does: bounded queue, context, panic mapping) against plain
// blitz.Do, with the futex and portable (the default) parking backends, and
// against the bare goroutine-and-channel hand-off (api=go-chan) and the
// smallest pool of long-lived goroutines (api=chan-worker: GOMAXPROCS
// goroutines receive each task and its reply channel from one channel,
// run it and reply: the floor of any pool whose workers outlive a task,
// since each round trip wakes a parked worker and parks it again). Handlers
// submit concurrently (RunParallel, GOMAXPROCS goroutines). The capacity is
// large enough that nothing is refused.
func BenchmarkSubmitAndWait(b *testing.B) {
	for _, parking := range []blitz.Parking{blitz.ParkingFutex, blitz.ParkingPortable} {
		b.Run("api=trydo/parking="+parking.String(), func(b *testing.B) {
			e, err := newBlitzExecutor(0, 1<<20, 0, parking)
			if err != nil {
				b.Skip(err) // no futex off Linux
			}
			defer e.Shutdown(context.Background())
			ctx := context.Background()
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if err := e.Execute(ctx, func() {}); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
		b.Run("api=do/parking="+parking.String(), func(b *testing.B) {
			p, err := blitz.New(blitz.WithParking(parking))
			if err != nil {
				b.Skip(err)
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
	// The bare hand-off a handler could write instead of a pool: a new
	// goroutine runs the work and the handler waits on a channel.
	b.Run("api=go-chan/parking=none", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			done := make(chan struct{})
			for pb.Next() {
				go func() { done <- struct{}{} }()
				<-done
			}
		})
	})
	b.Run("api=chan-worker/parking=none", func(b *testing.B) {
		type request struct {
			fn   func()
			done chan struct{}
		}
		requests := make(chan request, 1<<10)
		var wg sync.WaitGroup
		for range runtime.GOMAXPROCS(0) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for r := range requests {
					r.fn()
					r.done <- struct{}{}
				}
			}()
		}
		defer func() {
			close(requests)
			wg.Wait()
		}()
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			done := make(chan struct{})
			for pb.Next() {
				requests <- request{func() {}, done}
				<-done
			}
		})
	})
}
