package main

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/blitz-go/blitz"
	"github.com/blitz-go/blitz/par"
)

// BenchmarkSortWorkSplit measures how evenly a parallel sort spreads its
// work, independently of how many CPUs the machine lends meanwhile: it
// sorts 256K random ints with par.SortFunc and a comparison that counts
// its calls per OS thread (workers on the futex backend are locked to
// their threads), and reports busiest-% (the share of the comparisons made
// by the busiest worker: 50 is an even split over 2 workers; it bounds the
// speedup at 100/busiest-%) and steals/op. ns/op is dominated by a gettid
// system call per comparison and is not a sort speed.
//
//	go test -run '^$' -bench SortWorkSplit -count 5
func BenchmarkSortWorkSplit(b *testing.B) {
	const n = 1 << 18
	r := rand.New(rand.NewPCG(3, 4))
	src := make([]int, n)
	for i := range src {
		src[i] = r.Int()
	}
	for _, workers := range []int{2, 8} {
		b.Run(fmt.Sprintf("n=256K/workers=%d", workers), func(b *testing.B) {
			p, err := blitz.New(blitz.WithWorkers(workers), blitz.WithParking(blitz.ParkingFutex))
			if err != nil {
				b.Skip(err)
			}
			defer p.Close()
			// One counter per thread id bucket, each on its own 128 bytes.
			counts := make([]atomic.Int64, 4096*16)
			c := func(x, y int) int {
				counts[syscall.Gettid()%4096*16].Add(1)
				return cmp.Compare(x, y)
			}
			buf := make([]int, n)
			busiest, steals := 0.0, uint64(0)
			for b.Loop() {
				b.StopTimer()
				copy(buf, src)
				for i := range counts {
					counts[i].Store(0)
				}
				st := p.Stats()
				b.StartTimer()
				par.SortFunc(p, buf, c)
				b.StopTimer()
				steals += p.Stats().JoinsStolen - st.JoinsStolen
				total, most := int64(0), int64(0)
				for i := range counts {
					v := counts[i].Load()
					total += v
					most = max(most, v)
				}
				busiest += 100 * float64(most) / float64(total)
				b.StartTimer()
			}
			if !slices.IsSorted(buf) {
				b.Fatal("not sorted")
			}
			b.ReportMetric(busiest/float64(b.N), "busiest-%")
			b.ReportMetric(float64(steals)/float64(b.N), "steals/op")
		})
	}
}
