package atomics

import (
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"
)

// Benchmarks of each primitive against its sync/atomic equivalent. Run them
// with -count 10 and compare with benchstat; bench/results/atomics-*.txt has
// the committed figures, atomics_asm.go (and cacheline.go for the padding)
// the conclusions.

var sink64 uint64

// Pure-Go full-fence candidates for SeqCstFence: each is a locked
// read-modify-write of a stack local, inlined into the caller.
func fenceGoXadd() {
	var x uint32
	atomic.AddUint32(&x, 0) // LOCK XADDL
}

func fenceGoXchg() {
	var x uint32
	atomic.SwapUint32(&x, 0) // XCHGL (implicitly locked)
}

func fenceGoOr() {
	var x uint32
	atomic.OrUint32(&x, 0) // LOCK ORL when the result is unused
}

// BenchmarkFence measures a fence alone, with an empty store buffer.
// Each case calls the fence directly so the Go candidates inline.
func BenchmarkFence(b *testing.B) {
	b.Run("impl=go-xadd", func(b *testing.B) {
		for b.Loop() {
			fenceGoXadd()
		}
	})
	b.Run("impl=go-xchg", func(b *testing.B) {
		for b.Loop() {
			fenceGoXchg()
		}
	})
	b.Run("impl=go-or", func(b *testing.B) {
		for b.Loop() {
			fenceGoOr()
		}
	})
	b.Run("impl=seqcst", func(b *testing.B) {
		for b.Loop() {
			SeqCstFence()
		}
	})
}

// BenchmarkStoreFenceLoad measures the pattern the fences exist for (the
// deque's pop, the sleep protocol's announce-then-check): store a word, full
// fence, load another word. "sync-atomic" is atomic.Store (XCHG: the store
// is its own fence) followed by atomic.Load.
func BenchmarkStoreFenceLoad(b *testing.B) {
	var w struct {
		a uint64
		_ Pad
		c uint64
	}
	b.Run("impl=sync-atomic", func(b *testing.B) {
		for i := uint64(0); b.Loop(); i++ {
			atomic.StoreUint64(&w.a, i)
			sink64 += atomic.LoadUint64(&w.c)
		}
	})
	b.Run("impl=asm-release+go-xadd", func(b *testing.B) {
		for i := uint64(0); b.Loop(); i++ {
			StoreRelease64(&w.a, i)
			fenceGoXadd()
			sink64 += atomic.LoadUint64(&w.c)
		}
	})
	b.Run("impl=asm-release+seqcst", func(b *testing.B) {
		for i := uint64(0); b.Loop(); i++ {
			StoreRelease64(&w.a, i)
			SeqCstFence()
			sink64 += atomic.LoadUint64(&w.c)
		}
	})
}

// batch is how many accesses one benchmark op makes in BenchmarkLoad and
// BenchmarkStore. A single 1-2 ns access per b.Loop iteration would measure
// the loop's own bookkeeping: the compiler keeps values inside a b.Loop body
// alive in stack slots, which turns an accumulator into a store-forwarding
// chain. So each op calls a non-inlined kernel that makes batch accesses with
// its accumulator in a register, as a real caller would. The ns/load and
// ns/store metrics are per access.
const batch = 100

func reportPer(b *testing.B, unit string) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*batch), unit)
}

//go:noinline
func storesAsm64(p *uint64) {
	for i := uint64(0); i < batch; i++ {
		StoreRelease64(p, i)
	}
}

//go:noinline
func storesSync64(p *uint64) {
	for i := uint64(0); i < batch; i++ {
		atomic.StoreUint64(p, i)
	}
}

//go:noinline
func storesAsm32(p *uint32) {
	for i := uint32(0); i < batch; i++ {
		StoreRelease32(p, i)
	}
}

//go:noinline
func storesSync32(p *uint32) {
	for i := uint32(0); i < batch; i++ {
		atomic.StoreUint32(p, i)
	}
}

//go:noinline
func loadsAsm64(p *uint64) (s uint64) {
	for range batch {
		s += LoadAcquire64(p)
	}
	return s
}

//go:noinline
func loadsSync64(p *uint64) (s uint64) {
	for range batch {
		s += atomic.LoadUint64(p)
	}
	return s
}

func BenchmarkStore(b *testing.B) {
	var x uint64
	var y uint32
	cases := []struct {
		name string
		f    func()
	}{
		{"width=64/impl=asm-release", func() { storesAsm64(&x) }},
		{"width=64/impl=sync-atomic", func() { storesSync64(&x) }},
		{"width=32/impl=asm-release", func() { storesAsm32(&y) }},
		{"width=32/impl=sync-atomic", func() { storesSync32(&y) }},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				c.f()
			}
			reportPer(b, "ns/store")
		})
	}
}

func BenchmarkLoad(b *testing.B) {
	x := uint64(1)
	cases := []struct {
		name string
		f    func() uint64
	}{
		{"width=64/impl=asm-acquire", func() uint64 { return loadsAsm64(&x) }},
		{"width=64/impl=sync-atomic", func() uint64 { return loadsSync64(&x) }},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				sink64 += c.f()
			}
			reportPer(b, "ns/load")
		})
	}
}

// BenchmarkSpinHint compares the hint with an empty spin iteration and with
// the Go runtime's own spin (runtime.procyield is not exported; a
// sync.Mutex's spinning is not separable), so the baseline is "nothing".
func BenchmarkSpinHint(b *testing.B) {
	b.Run("impl=asm", func(b *testing.B) {
		for b.Loop() {
			SpinHint()
		}
	})
	b.Run("impl=none", func(b *testing.B) {
		for b.Loop() {
		}
	})
}

// BenchmarkFalseSharing runs two goroutines that each increment their own
// counter, the counters dist bytes apart inside one 256-byte-aligned block:
// dist=8 is the same 64-byte line, dist=64 the other line of the same
// 128-byte-aligned pair (only the adjacent-line prefetcher couples the two),
// dist=128 and dist=256 unrelated lines. op=add increments with LOCK XADD
// (atomic.AddUint64); op=store with a load and a plain MOV store
// (StoreRelease64), which needs the line in exclusive state but no lock.
// ns/op is wall time per pair of increments made in parallel; without
// coupling it is the cost of one increment.
func BenchmarkFalseSharing(b *testing.B) {
	ops := []struct {
		name string
		inc  func(*uint64)
	}{
		{"add", func(p *uint64) { atomic.AddUint64(p, 1) }},
		{"store", func(p *uint64) { StoreRelease64(p, atomic.LoadUint64(p)+1) }},
	}
	for _, op := range ops {
		for _, dist := range []int{8, 64, 128, 256} {
			b.Run("op="+op.name+"/dist="+itoa(dist), func(b *testing.B) {
				buf := make([]uint64, 128)
				base := 0
				for uintptr(unsafe.Pointer(&buf[base]))%256 != 0 {
					base++
				}
				n := b.N
				inc := op.inc
				var start, done sync.WaitGroup
				start.Add(1)
				done.Add(2)
				for _, c := range []*uint64{&buf[base], &buf[base+dist/8]} {
					go func() {
						defer done.Done()
						start.Wait()
						for i := 0; i < n; i++ {
							inc(c)
						}
					}()
				}
				b.ResetTimer()
				start.Done()
				done.Wait()
				if got := buf[base] + buf[base+dist/8]; got != 2*uint64(n) {
					b.Fatalf("counters sum to %d, want %d", got, 2*n)
				}
			})
		}
	}
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}
