package blitz

import (
	"context"
	"sync"
	"testing"
)

// BenchmarkSubmitWait is the cost of a result handle: a function submitted
// from outside the pool and its result waited for, against what a caller
// writes without one, Pool.Go with a WaitGroup and a variable for the
// result (api=go-waitgroup), on a pool of 2 workers.
//
//   - shape=one: one submission, then its wait (a round trip; api=do is
//     Do, the synchronous call, for reference).
//   - shape=batch: 64 submissions, then the wait for all 64 (ns/op is per
//     batch; api=resultgroup is a ResultGroup's Go and Wait, api=group a
//     Group's, which it is built on, with a slice for the results).
func BenchmarkSubmitWait(b *testing.B) {
	fn := func(*Worker) (int, error) { return 1, nil }
	const batch = 64
	for _, c := range []struct{ shape, api string }{
		{"one", "submit"}, {"one", "go-waitgroup"}, {"one", "do"},
		{"batch", "submit"}, {"batch", "go-waitgroup"}, {"batch", "resultgroup"}, {"batch", "group"},
	} {
		b.Run("shape="+c.shape+"/api="+c.api, func(b *testing.B) {
			p, err := New(WithWorkers(2))
			if err != nil {
				b.Fatal(err)
			}
			defer p.Close()
			n := 1
			if c.shape == "batch" {
				n = batch
			}
			fs := make([]*Future[int], n)
			res := make([]int, n)
			var wg sync.WaitGroup
			b.ReportAllocs()
			for b.Loop() {
				switch c.api {
				case "submit":
					for i := range fs {
						fs[i] = Submit(p, fn)
					}
					for i, f := range fs {
						res[i], _ = f.Wait()
					}
				case "go-waitgroup":
					wg.Add(n)
					for i := range res {
						if err := p.Go(func(w *Worker) { res[i], _ = fn(w); wg.Done() }); err != nil {
							b.Fatal(err)
						}
					}
					wg.Wait()
				case "do":
					res[0] = Do(p, func(w *Worker) int { v, _ := fn(w); return v })
				case "resultgroup":
					g, _ := NewResultGroup[int](context.Background(), p)
					for range n {
						g.Go(fn)
					}
					res, _ = g.Wait()
				case "group":
					g, _ := NewGroup(context.Background(), p)
					for i := range res {
						g.Go(func(w *Worker) (err error) { res[i], err = fn(w); return err })
					}
					_ = g.Wait()
				}
			}
			if res[n-1] != 1 {
				b.Fatal("no result")
			}
		})
	}
}
