package sleep_test

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/blitz-go/blitz/sleep"
)

// exampleParker is the simplest Parker: a channel of capacity one holds the
// token. Unpark is a non-blocking send, so a second token is dropped.
type exampleParker struct{ token chan struct{} }

func (p *exampleParker) Park() { <-p.token }

func (p *exampleParker) Unpark() {
	select {
	case p.token <- struct{}{}:
	default:
	}
}

// Example runs the idle loop of a pool's workers over package sleep: two
// workers take jobs from an injector, sleep when there are none, and are
// woken by NewInjectedJobsLazy and, to stop, by their latches.
func Example() {
	const workers = 2
	parkers := make([]sleep.Parker, workers)
	for i := range parkers {
		parkers[i] = &exampleParker{token: make(chan struct{}, 1)}
	}
	s, err := sleep.New(sleep.Config{Parkers: parkers})
	if err != nil {
		panic(err)
	}

	var (
		mu       sync.Mutex
		injector []func()
		latches  [workers]sleep.CoreLatch
		wg       sync.WaitGroup
	)
	take := func() func() {
		mu.Lock()
		defer mu.Unlock()
		if len(injector) == 0 {
			return nil
		}
		job := injector[0]
		injector = injector[1:]
		return job
	}
	hasInjectedJobs := func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(injector) > 0
	}
	for i := 0; i < workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			latch := &latches[i]
			idle := s.StartLooking(i)
			for !latch.Probe() {
				if job := take(); job != nil {
					s.WorkFound()
					job()
					idle = s.StartLooking(i)
					continue
				}
				s.NoWorkFound(&idle, latch, hasInjectedJobs)
			}
			s.WorkFound()
		}()
	}

	var ran atomic.Int32
	var jobs sync.WaitGroup
	for j := 0; j < 5; j++ {
		jobs.Add(1)
		mu.Lock()
		wasEmpty := len(injector) == 0
		injector = append(injector, func() { ran.Add(1); jobs.Done() })
		mu.Unlock()
		s.NewInjectedJobsLazy(1, func() bool { return wasEmpty })
	}
	jobs.Wait()

	for i := range latches { // stop: Set each latch, wake the sleepers
		if latches[i].Set() {
			s.NotifyWorkerLatchIsSet(i)
		}
	}
	wg.Wait()
	fmt.Println("jobs run:", ran.Load())
	// Output: jobs run: 5
}
