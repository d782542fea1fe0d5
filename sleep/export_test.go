package sleep

// Test-only access for package sleep_test.

// NewWithJEC is New with the jobs event counter starting at jec, to drive it
// past its wrap-around in a short test.
func NewWithJEC(cfg Config, jec uint64) (*Sleep, error) {
	s, err := New(cfg)
	if err != nil {
		return nil, err
	}
	s.counters.word.Store(uint64(packCounters(0, 0, jec)))
	return s, nil
}

// NewInjectedJobs is NewInjectedJobsLazy for a poster that knows up front
// whether the injector was empty: the stress harness's queue tells it under
// its lock.
func (s *Sleep) NewInjectedJobs(n int, queueWasEmpty bool) {
	s.NewInjectedJobsLazy(n, func() bool { return queueWasEmpty })
}

// CounterValues unpacks the counters word.
func (s *Sleep) CounterValues() (sleeping, inactive uint32, jec uint64) {
	w := s.counters.load()
	return w.sleepingThreads(), w.inactiveThreads(), w.jec()
}

// JECMax is the largest JEC value.
const JECMax = jecMask
