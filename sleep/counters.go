package sleep

import (
	"math"
	"sync/atomic"
)

// # The JEC
//
// The jobs event counter (JEC), the top bits of the counters word below,
// tells a sleepy worker whether work was posted since it got sleepy,
// without counting every job. Its parity is the signal:
//
//   - a poster turns it from even to odd ("work was posted");
//   - a worker getting sleepy turns it from odd to even ("a worker is about
//     to sleep") and remembers the resulting value;
//   - before sleeping, the worker compares: any change means a job was
//     posted after it got sleepy, so it searches again instead.
//
// Both rules matter. The rule of Blitz's documentation (a sleepy worker also
// increments "if even") leaves the counter odd for ever after the first
// sleepy worker: posters then never change it, and a job posted between a
// worker's last search and its sleep goes unnoticed. TestJECParityMutantMissesPost
// (parity_test.go, which drives that rule by hand) and the BLITZ_PARITY
// mutant of model/sleep.pml show the loss.

// The counters word packs three counters into one uint64 so that a worker can
// move itself between states, and a poster can read every state it needs, with
// a single atomic operation (rayon-core's AtomicCounters, sleep/counters.rs).
//
// Bit layout, least significant bit first:
//
//	bits  0..15  sleeping threads  (sleepingShift, oneSleeping)
//	bits 16..31  inactive threads  (inactiveShift, oneInactive)
//	bits 32..63  jobs event counter (jecShift, oneJEC)
//
// The inactive count covers idle and sleeping workers, so
// awake-but-idle = inactive - sleeping, and sleeping <= inactive <= workers.
// Both thread counts are bounded by the worker count, which New limits to
// MaxWorkers (the largest value a 16-bit field holds): they can never carry
// into the next field.
//
// The jobs event counter (JEC) sits in the top bits so that its overflow is
// harmless to the word: incrementing 0xFFFF_FFFF carries out of bit 63 and is
// discarded by the uint64 arithmetic, leaving the thread counts untouched and
// the JEC at 0, which is even, exactly as 0xFFFF_FFFF + 1 must be (the parity
// is all the protocol reads from a single value). What wrapping can break is
// the comparison a sleepy worker makes before sleeping: if the JEC advances by
// exactly 2^32 between the worker's snapshot and its check, the worker sees
// "no new work" although work was posted. For internal jobs that costs only
// parallelism: the poster is itself an awake worker that will run the job. For
// an injected job it could strand the job with every worker asleep, which is
// why a worker, after registering as sleeping, fences and checks the injector
// one last time (see sleep.go, "Deadlock freedom").
const (
	threadBits = 16
	threadMask = 1<<threadBits - 1
	jecBits    = 64 - 2*threadBits

	sleepingShift = 0
	inactiveShift = threadBits
	jecShift      = 2 * threadBits

	oneSleeping = uint64(1) << sleepingShift
	oneInactive = uint64(1) << inactiveShift
	oneJEC      = uint64(1) << jecShift

	jecMask = 1<<jecBits - 1
)

// MaxWorkers is the largest worker count one Sleep can track: each thread
// count in the packed counters word is 16 bits wide.
const MaxWorkers = 1<<16 - 1

// MaxWorkers is spelled out so that go doc shows its value; it must equal
// threadMask, the largest value a thread-count field holds (more workers
// would carry into the next field). The index below is out of range, and the
// package does not compile, unless the two are equal.
var _ = [1]struct{}{}[MaxWorkers-threadMask]

// jecDummy is the JEC snapshot of a worker that has not announced itself
// sleepy. It lies outside the 32-bit range of real JEC values, so it never
// compares equal to one.
const jecDummy = math.MaxUint64

// counterWord is one value of the packed word, as read by an atomic load or
// returned by an atomic update.
type counterWord uint64

// packCounters builds a word from its fields; the fields must be in range.
func packCounters(sleeping, inactive uint32, jec uint64) counterWord {
	return counterWord(uint64(sleeping)<<sleepingShift |
		uint64(inactive)<<inactiveShift |
		(jec&jecMask)<<jecShift)
}

// sleepingThreads is the number of workers registered as sleeping and not yet
// woken (the waker, not the sleeper, takes a worker off this count).
func (w counterWord) sleepingThreads() uint32 {
	return uint32(uint64(w)>>sleepingShift) & threadMask
}

// inactiveThreads is the number of workers that are idle or sleeping.
func (w counterWord) inactiveThreads() uint32 {
	return uint32(uint64(w)>>inactiveShift) & threadMask
}

// awakeButIdleThreads is the number of idle workers still searching for work:
// they will find a new job without being woken.
func (w counterWord) awakeButIdleThreads() uint32 {
	in, sl := w.inactiveThreads(), w.sleepingThreads()
	if sl > in { // cannot happen while the invariant holds; never underflow
		return 0
	}
	return in - sl
}

// jec is the jobs event counter, in [0, 2^32).
func (w counterWord) jec() uint64 { return uint64(w) >> jecShift }

// jecIsSleepy reports whether a JEC value is even: no job has been posted
// since the last worker announced itself sleepy.
func jecIsSleepy(j uint64) bool { return j&1 == 0 }

// jecIsActive reports whether a JEC value is odd: a job has been posted since
// the last worker announced itself sleepy.
func jecIsActive(j uint64) bool { return j&1 == 1 }

// counters is the shared packed word.
//
// Every field is read and written only with sequentially consistent atomics:
//   - inactive: +1 by a worker in StartLooking, -1 by the same worker in
//     WorkFound;
//   - sleeping: +1 by a worker that registers as sleeping (a CAS that also
//     checks the JEC), -1 by the thread that wakes it (wakeSpecificThread) or
//     by the worker itself when its final injector check finds a job;
//   - JEC: even->odd by posters (NewInternalJobs, NewInjectedJobsLazy), odd->even
//     by a worker announcing itself sleepy; never any other change.
//
// Readers: posters read all three fields to decide whom to wake; a worker
// about to sleep compares the JEC with its snapshot in the same CAS that
// increments sleeping.
type counters struct {
	word atomic.Uint64
}

func (c *counters) load() counterWord { return counterWord(c.word.Load()) }

// addInactiveThread marks one worker as idle.
func (c *counters) addInactiveThread() { c.word.Add(oneInactive) }

// subInactiveThread marks one idle worker as active again and returns how many
// sleepers it should wake. Rayon's heuristic, kept: a worker that found work
// may have found the first of many jobs, so it wakes up to two sleepers, who
// cascade further if they find work too.
func (c *counters) subInactiveThread() uint32 {
	return min(c.subInactive().sleepingThreads(), 2)
}

// subInactive marks one idle worker as active again and returns the word
// it left.
func (c *counters) subInactive() counterWord {
	return counterWord(c.word.Add(^(oneInactive - 1))) // Add(-oneInactive)
}

// borrow takes one sleeping worker off the sleeping and inactive counts at
// once (Borrow), and giveBack puts it back on both (Return).
func (c *counters) borrow()   { c.word.Add(^(oneSleeping + oneInactive - 1)) } // Add(-(oneSleeping+oneInactive))
func (c *counters) giveBack() { c.word.Add(oneSleeping + oneInactive) }

// subSleepingThread takes one worker off the sleeping count.
func (c *counters) subSleepingThread() { c.word.Add(^(oneSleeping - 1)) } // Add(-oneSleeping)

// tryAddSleepingThread registers one more sleeper if the word still equals
// old (in particular, if the JEC has not moved).
func (c *counters) tryAddSleepingThread(old counterWord) bool {
	return c.word.CompareAndSwap(uint64(old), uint64(old)+oneSleeping)
}

// incrementJECIf increments the JEC if cond holds for its current value and
// returns the final word: the incremented one, or the one that failed cond.
// Incrementing past 2^32-1 wraps the JEC to 0 (see the layout comment).
func (c *counters) incrementJECIf(cond func(uint64) bool) counterWord {
	for {
		old := c.word.Load()
		if !cond(counterWord(old).jec()) {
			return counterWord(old)
		}
		if c.word.CompareAndSwap(old, old+oneJEC) {
			return counterWord(old + oneJEC)
		}
	}
}
