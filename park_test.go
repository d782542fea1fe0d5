package blitz

import (
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/blitz-go/blitz/sleep"
)

// testBackends lists every backend this system has.
func testBackends(t testing.TB) []backend {
	var bs []backend
	for _, k := range []Parking{ParkingFutex, ParkingPortable, ParkingCond, ParkingSpin} {
		b, err := resolveBackend(k)
		if err != nil {
			if k == ParkingFutex && runtime.GOOS != "linux" {
				continue
			}
			t.Fatalf("resolveBackend(%v): %v", k, err)
		}
		bs = append(bs, b)
	}
	return bs
}

// hasToken peeks at a parker's token without consuming it.
func hasToken(t testing.TB, p any) bool {
	switch p := p.(type) {
	case *chanParker:
		return len(p.c) == 1
	case *spinParker:
		return p.token.Load() == 1
	case *condParker:
		tok, _ := p.state()
		return tok
	}
	if ok, known := hasFutexToken(p); known {
		return ok
	}
	t.Fatalf("hasToken: unknown parker %T", p)
	return false
}

func TestParkingString(t *testing.T) {
	for k, want := range map[Parking]string{
		ParkingAuto: "auto", ParkingFutex: "futex", ParkingPortable: "portable",
		ParkingSpin: "spin", Parking(42): "Parking(42)",
	} {
		if got := k.String(); got != want {
			t.Errorf("Parking(%d).String() = %q, want %q", int(k), got, want)
		}
	}
}

func TestResolveBackend(t *testing.T) {
	auto, err := resolveBackend(ParkingAuto)
	if err != nil {
		t.Fatal(err)
	}
	// The default on every system: plain goroutines that park through the
	// Go scheduler, so goroutines outside the pool never wait for a P that
	// a locked worker holds.
	if auto.kind != ParkingPortable || auto.lockThread {
		t.Errorf("ParkingAuto resolved to %v (lockThread %v), want portable on plain goroutines", auto.kind, auto.lockThread)
	}
	for _, k := range []Parking{ParkingPortable, ParkingSpin} {
		b, err := resolveBackend(k)
		if err != nil || b.kind != k || b.lockThread || b.newParker == nil || b.yield == nil {
			t.Errorf("resolveBackend(%v) = %+v, %v", k, b, err)
		}
	}
	for _, k := range []Parking{Parking(-1), Parking(99)} {
		if _, err := resolveBackend(k); err == nil || !strings.Contains(err.Error(), "unknown parking") {
			t.Errorf("resolveBackend(%v) error = %v, want unknown parking kind", k, err)
		}
	}
	if runtime.GOOS != "linux" {
		if _, err := resolveBackend(ParkingFutex); err == nil || !strings.Contains(err.Error(), "needs Linux") {
			t.Errorf("resolveBackend(ParkingFutex) off Linux: error = %v", err)
		}
	}
}

// TestParkerToken: Unpark before Park leaves a token that Park consumes at
// once; two Unparks leave one token, not two.
func TestParkerToken(t *testing.T) {
	for _, b := range testBackends(t) {
		t.Run("backend="+b.kind.String(), func(t *testing.T) {
			p := b.newParker()
			if hasToken(t, p) {
				t.Fatal("a new parker has a token")
			}
			p.Unpark()
			if !hasToken(t, p) {
				t.Fatal("no token after Unpark")
			}
			done := make(chan struct{})
			go func() { p.Park(); close(done) }()
			waitOrDump(t, done, "Park after Unpark")
			if hasToken(t, p) {
				t.Fatal("Park did not consume the token")
			}

			p.Unpark()
			p.Unpark()
			done = make(chan struct{})
			go func() { p.Park(); close(done) }()
			waitOrDump(t, done, "Park after two Unparks")
			if hasToken(t, p) {
				t.Fatal("two Unparks left two tokens")
			}
		})
	}
}

// TestParkerPingPong passes the turn between two goroutines through two
// parkers: each round trip needs both wake paths (token present, and a
// parked owner woken).
func TestParkerPingPong(t *testing.T) {
	rounds := 20000
	if testing.Short() {
		rounds = 2000
	}
	for _, b := range testBackends(t) {
		t.Run("backend="+b.kind.String(), func(t *testing.T) {
			ping, pong := b.newParker(), b.newParker()
			var turn atomic.Int64 // even: ping's holder runs; odd: pong's
			var wg sync.WaitGroup
			wg.Add(2)
			go func() {
				defer wg.Done()
				for i := 0; i < rounds; i++ {
					for turn.Load()%2 != 0 {
						ping.Park()
					}
					turn.Add(1)
					pong.Unpark()
				}
			}()
			go func() {
				defer wg.Done()
				for i := 0; i < rounds; i++ {
					for turn.Load()%2 != 1 {
						pong.Park()
					}
					turn.Add(1)
					ping.Unpark()
				}
			}()
			done := make(chan struct{})
			go func() { wg.Wait(); close(done) }()
			waitOrDump(t, done, "ping-pong")
			if got := turn.Load(); got != int64(2*rounds) {
				t.Fatalf("turn = %d, want %d", got, 2*rounds)
			}
		})
	}
}

// TestParkerUnparkRace: many goroutines Unpark while the owner parks; every
// Park returns (no wake is lost) and at most one token is left over.
func TestParkerUnparkRace(t *testing.T) {
	rounds, unparkers := 2000, 4
	if testing.Short() {
		rounds = 200
	}
	for _, b := range testBackends(t) {
		t.Run("backend="+b.kind.String(), func(t *testing.T) {
			p := b.newParker()
			var leftover int
			done := make(chan struct{})
			go func() {
				defer close(done)
				for r := 0; r < rounds; r++ {
					var start, wg sync.WaitGroup
					start.Add(1)
					wg.Add(unparkers)
					for u := 0; u < unparkers; u++ {
						go func() {
							defer wg.Done()
							start.Wait()
							p.Unpark()
						}()
					}
					start.Done()
					p.Park() // at least one Unpark is coming
					wg.Wait()
					if hasToken(t, p) {
						leftover++
						p.Park() // consumes it at once
					}
					if hasToken(t, p) {
						t.Errorf("round %d: a second token survived one Park", r)
						return
					}
				}
			}()
			waitOrDump(t, done, "unpark race")
			t.Logf("%d of %d rounds left a token behind the first Park", leftover, rounds)
		})
	}
}

// TestParkerManySleepers parks more goroutines than GOMAXPROCS and then wakes
// them: parking must release the P (futex waits go through Syscall6, not
// RawSyscall, which would keep the P and stop the waker from running).
func TestParkerManySleepers(t *testing.T) {
	for _, b := range testBackends(t) {
		if b.kind == ParkingSpin {
			continue // spinning is not sleeping
		}
		t.Run("backend="+b.kind.String(), func(t *testing.T) {
			n := runtime.GOMAXPROCS(0) + 2
			parkers := make([]sleep.Parker, n)
			var parked, woken sync.WaitGroup
			parked.Add(n)
			woken.Add(n)
			for i := range parkers {
				parkers[i] = b.newParker()
				go func(i int) {
					if b.lockThread {
						runtime.LockOSThread()
						defer runtime.UnlockOSThread()
					}
					parked.Done()
					parkers[i].Park()
					woken.Done()
				}(i)
			}
			allParked := make(chan struct{})
			go func() { parked.Wait(); close(allParked) }()
			waitOrDump(t, allParked, "sleepers starting")
			for _, p := range parkers {
				p.Unpark()
			}
			allWoken := make(chan struct{})
			go func() { woken.Wait(); close(allWoken) }()
			waitOrDump(t, allWoken, "waking sleepers")
		})
	}
}

// TestBackendsRunSleepProtocol runs the sleep protocol over each backend the
// way the pool does (locked threads and sched_yield for futex): jobs posted
// to running, yielding and parked workers all run, and a stop wakes the
// sleepers.
func TestBackendsRunSleepProtocol(t *testing.T) {
	jobs := 300
	if testing.Short() {
		jobs = 60
	}
	for _, b := range testBackends(t) {
		t.Run("backend="+b.kind.String(), func(t *testing.T) {
			p := newBenchPool(t, b.kind, 2, 4)
			parkedPosts := 0
			for i := 1; i <= jobs; i++ {
				if i%10 == 0 && b.kind != ParkingSpin {
					parked := make(chan struct{})
					go func() {
						for p.parkers[0].inPark.Load() == 0 || p.parkers[1].inPark.Load() == 0 {
							runtime.Gosched()
						}
						close(parked)
					}()
					waitOrDump(t, parked, "workers parking")
					parkedPosts++
				}
				p.post()
				ran := make(chan struct{})
				go func() {
					for p.ran.Load() < int64(i) {
						runtime.Gosched()
					}
					close(ran)
				}()
				waitOrDump(t, ran, "job run")
			}
			stopped := make(chan struct{})
			go func() { p.stop(); close(stopped) }()
			waitOrDump(t, stopped, "stop")
			if got := p.ran.Load(); got != int64(jobs) {
				t.Fatalf("ran %d jobs, want %d", got, jobs)
			}
			t.Logf("%d jobs, %d posted to parked workers", jobs, parkedPosts)
		})
	}
}
