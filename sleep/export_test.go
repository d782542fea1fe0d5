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

// NewBlitzParity is New with the mutant parity rule of
// the protocol text Blitz follows: a sleepy worker increments the JEC "if even".
func NewBlitzParity(cfg Config) (*Sleep, error) {
	s, err := New(cfg)
	if err != nil {
		return nil, err
	}
	s.blitzParity = true
	return s, nil
}

// CounterValues unpacks the counters word.
func (s *Sleep) CounterValues() (sleeping, inactive uint32, jec uint64) {
	w := s.counters.load()
	return w.sleepingThreads(), w.inactiveThreads(), w.jec()
}

// JECMax is the largest JEC value.
const JECMax = jecMask
