package blitz

import (
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/blitz-go/blitz/atomics"
	"github.com/blitz-go/blitz/sleep"
)

// Benchmarks of the parking backends and the sleep protocol over them: wake
// latency, idle CPU, the portable backend's choice, the yield of the idle
// rounds, and the number of idle rounds. Run them with
//
//	for i in $(seq 10); do
//	  flock /tmp/bench.lock go test -run '^$' -bench 'Wake|IdleCPU|PortableParker|Yield' -count=1 .
//	  flock /tmp/bench.lock go test -run '^$' -bench 'Rounds' -benchtime=2000x -count=1 .
//	done
//
// (bench/results/sleep-amd64.txt has the figures).

var benchBase = time.Now()

// benchNow is a monotonic clock in ns, never 0.
func benchNow() int64 { return int64(time.Since(benchBase)) + 1 }

// flagParker records whether its owner is inside Park.
type flagParker struct {
	sleep.Parker
	inPark atomic.Int32
}

func (p *flagParker) Park() {
	p.inPark.Store(1)
	p.Parker.Park()
	p.inPark.Store(0)
}

// benchPool is a minimal pool around one sleep.Sleep: n workers run the idle
// loop of the pool contract on the backend's terms (locked threads, yield)
// and take "jobs" from one slot holding the job's post time.
type benchPool struct {
	s       *sleep.Sleep
	be      backend
	latches []sleep.CoreLatch
	parkers []*flagParker
	slot    atomic.Int64 // post time of the pending job, 0 if none
	ran     atomic.Int64 // jobs run
	lastLat atomic.Int64 // post-to-run latency of the last job, ns
	workCPU atomic.Int64 // CPU time of the workers' threads at exit, ns
	done    sync.WaitGroup
}

func newBenchPool(tb testing.TB, kind Parking, workers, rounds int) *benchPool {
	be, err := resolveBackend(kind)
	if err != nil {
		tb.Skip(err)
	}
	p := &benchPool{be: be, latches: make([]sleep.CoreLatch, workers)}
	ps := make([]sleep.Parker, workers)
	for i := range ps {
		fp := &flagParker{Parker: be.newParker()}
		p.parkers = append(p.parkers, fp)
		ps[i] = fp
	}
	p.s, err = sleep.New(sleep.Config{Parkers: ps, Yield: be.yield, RoundsUntilSleepy: rounds})
	if err != nil {
		tb.Fatal(err)
	}
	p.done.Add(workers)
	for i := 0; i < workers; i++ {
		go p.worker(i)
	}
	return p
}

func (p *benchPool) worker(i int) {
	defer p.done.Done()
	if p.be.lockThread {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
	}
	cpu0, _ := threadCPU()
	latch := &p.latches[i]
	hasInjected := func() bool { return p.slot.Load() != 0 }
	idle := p.s.StartLooking(i)
	for !latch.Probe() {
		if t := p.slot.Swap(0); t != 0 {
			p.lastLat.Store(benchNow() - t)
			p.s.WorkFound()
			p.ran.Add(1)
			idle = p.s.StartLooking(i)
			continue
		}
		p.s.NoWorkFound(&idle, latch, hasInjected)
	}
	p.s.WorkFound()
	if cpu1, ok := threadCPU(); ok && p.be.lockThread {
		p.workCPU.Add(cpu1 - cpu0)
	}
}

// post hands one job to the pool, as an injection.
func (p *benchPool) post() {
	p.slot.Store(benchNow())
	p.s.NewInjectedJobsLazy(1, func() bool { return true })
}

// waitRan spins until n jobs ran: the waker keeps its CPU, as a busy poster
// does.
func (p *benchPool) waitRan(n int64) {
	for p.ran.Load() < n {
		atomics.SpinHint()
	}
}

func (p *benchPool) stop() {
	for i := range p.latches {
		if p.latches[i].Set() {
			p.s.NotifyWorkerLatchIsSet(i)
		}
	}
	p.done.Wait()
}

// spinFor busy-waits d (timers are too coarse for microseconds).
func spinFor(d time.Duration) {
	for t := time.Now(); time.Since(t) < d; {
		atomics.SpinHint()
	}
}

// reportQuantiles reports the median and 99th percentile of samples (ns) in
// µs.
func reportQuantiles(b *testing.B, samples []int64, prefix string) {
	if len(samples) == 0 {
		return
	}
	slices.Sort(samples)
	q := func(f float64) float64 { return float64(samples[int(f*float64(len(samples)-1))]) / 1e3 }
	b.ReportMetric(q(0.50), prefix+"p50-µs")
	b.ReportMetric(q(0.99), prefix+"p99-µs")
}

func benchKinds() []Parking { return []Parking{ParkingFutex, ParkingPortable, ParkingSpin} }

// BenchmarkWake measures the latency from posting a job to the woken worker
// running it, for a worker fully parked and for one in its yield phase.
func BenchmarkWake(b *testing.B) {
	for _, kind := range benchKinds() {
		for _, state := range []string{"parked", "yielding"} {
			b.Run(fmt.Sprintf("backend=%v/state=%s", kind, state), func(b *testing.B) {
				rounds := 0 // the default: parks soon
				if state == "yielding" {
					rounds = 1 << 30 // never gets sleepy
				}
				p := newBenchPool(b, kind, 1, rounds)
				defer p.stop()
				var samples []int64
				b.ReportAllocs()
				for b.Loop() {
					if state == "parked" {
						for p.parkers[0].inPark.Load() == 0 {
							runtime.Gosched()
						}
						spinFor(200 * time.Microsecond) // let it reach the kernel
					} else {
						spinFor(20 * time.Microsecond)
					}
					n := p.ran.Load() + 1
					p.post()
					p.waitRan(n)
					samples = append(samples, p.lastLat.Load())
				}
				reportQuantiles(b, samples, "")
			})
		}
	}
}

// BenchmarkIdleCPU measures the CPU time the whole process spends while N
// workers sit idle for one second after their last job, in cpu-ms per idle
// second. workers=0 is the process's own floor (GC, sysmon).
func BenchmarkIdleCPU(b *testing.B) {
	for _, kind := range benchKinds() {
		for _, workers := range []int{0, 2} {
			if workers == 0 && kind != ParkingFutex {
				continue
			}
			name := fmt.Sprintf("backend=%v/workers=%d", kind, workers)
			if workers == 0 {
				name = "backend=none/workers=0"
			}
			b.Run(name, func(b *testing.B) {
				if _, ok := processCPU(); !ok {
					b.Skip("no getrusage here")
				}
				var p *benchPool
				if workers > 0 {
					p = newBenchPool(b, kind, workers, 0)
					defer p.stop()
				}
				var total time.Duration
				var cpu int64
				for b.Loop() {
					if p != nil {
						for i := 0; i < 100; i++ { // a burst, then idle
							n := p.ran.Load() + 1
							p.post()
							p.waitRan(n)
						}
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
}

// BenchmarkRounds measures what the yield phase buys: jobs arrive one at a
// time with a gap between them; with enough idle rounds the worker is still
// yielding when the next job comes and needs no wake. Reported: post-to-run
// latency, and the worker thread's CPU time per job (futex backend: locked
// threads, so RUSAGE_THREAD is the worker's alone).
func BenchmarkRounds(b *testing.B) {
	for _, gap := range []time.Duration{10 * time.Microsecond, 50 * time.Microsecond} {
		for _, rounds := range []int{-1, 8, 32, 64, 256} {
			r := rounds
			if r < 0 {
				r = 0
			}
			b.Run(fmt.Sprintf("gap=%v/rounds=%d", gap, r), func(b *testing.B) {
				if _, ok := threadCPU(); !ok {
					b.Skip("no RUSAGE_THREAD here")
				}
				p := newBenchPool(b, ParkingFutex, 1, rounds)
				var samples []int64
				jobs := 0
				for b.Loop() {
					spinFor(gap)
					n := p.ran.Load() + 1
					p.post()
					p.waitRan(n)
					samples = append(samples, p.lastLat.Load())
					jobs++
				}
				p.stop()
				reportQuantiles(b, samples, "")
				b.ReportMetric(float64(p.workCPU.Load())/1e3/float64(jobs), "worker-cpu-µs/job")
			})
		}
	}
}

// BenchmarkPortableParker compares the two portable token designs: a
// ping-pong round trip between two goroutines, and Unpark with nobody parked
// (the token already there).
func BenchmarkPortableParker(b *testing.B) {
	impls := []struct {
		name string
		make func() sleep.Parker
	}{
		{"chan", func() sleep.Parker { return newChanParker() }},
		{"cond", func() sleep.Parker { return newCondParker() }},
	}
	for _, im := range impls {
		b.Run("impl="+im.name+"/op=pingpong", func(b *testing.B) {
			ping, pong := im.make(), im.make()
			stop := make(chan struct{})
			go func() {
				for {
					pong.Park()
					select {
					case <-stop:
						return
					default:
					}
					ping.Unpark()
				}
			}()
			b.ReportAllocs()
			for b.Loop() {
				pong.Unpark()
				ping.Park()
			}
			close(stop)
			pong.Unpark()
		})
		b.Run("impl="+im.name+"/op=unpark-token-present", func(b *testing.B) {
			p := im.make()
			p.Unpark()
			b.ReportAllocs()
			for b.Loop() {
				p.Unpark()
			}
		})
	}
}

// BenchmarkYield compares the idle round's yield on a goroutine locked to
// its OS thread: runtime.Gosched (the P is handed to another thread and back)
// against sched_yield (one syscall), and Gosched on a plain goroutine.
func BenchmarkYield(b *testing.B) {
	fb, err := resolveBackend(ParkingFutex)
	cases := []struct {
		name   string
		locked bool
		yield  func()
	}{
		{"kind=gosched/locked=false", false, runtime.Gosched},
		{"kind=gosched/locked=true", true, runtime.Gosched},
	}
	if err == nil {
		cases = append(cases, struct {
			name   string
			locked bool
			yield  func()
		}{"kind=sched_yield/locked=true", true, fb.yield})
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			if c.locked {
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
			}
			b.ReportAllocs()
			for b.Loop() {
				c.yield()
			}
		})
	}
}
