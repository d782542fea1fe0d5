package server

import (
	"context"
	"testing"

	"github.com/blitz-go/blitz"
)

// BenchmarkSubmitAndWait measures what a handler pays to run an empty task
// on the pool and wait for it, with the current pool API: Pool.Go with a
// per-request channel (what blitzExecutor does, admission counter
// included) against blitz.Do, with each parking backend. Handlers submit
// concurrently (RunParallel, GOMAXPROCS goroutines).
func BenchmarkSubmitAndWait(b *testing.B) {
	for _, parking := range []blitz.Parking{blitz.ParkingFutex, blitz.ParkingPortable} {
		b.Run("api=go-chan/parking="+parking.String(), func(b *testing.B) {
			e, err := newBlitzExecutor(0, 1<<30, parking)
			if err != nil {
				b.Skip(err) // no futex off Linux
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
}
