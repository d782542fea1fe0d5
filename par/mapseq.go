package par

import (
	"errors"
	"iter"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/blitz-go/blitz"
)

// The ordered parallel map over iterators: MapSeq, MapSeq2 and MapSeqErr.
//
// Who does what. The consumer (the goroutine ranging over the result)
// drives the stream itself: it ranges over the input, puts each value in a
// ring of slots, submits one task per value to the pool (Pool.TryGo) and
// yields the results from the oldest slot on, in input order, as they
// complete. The stream starts no goroutine of its own, so there is nothing
// to leak: every way out of the consumer's loop (the input ends, a break, a
// panic or Goexit in the loop body, in f or in the input) passes through
// the stream's deferred cleanup, which withdraws the tasks not started and
// waits for the calls of f that are running. Once the loop is over, no call
// of f runs and no slot is referenced but by withdrawn tasks, which do
// nothing when the pool gets to them.
//
// The ring. It holds at most window slots, but starts with
// min(window, streamFirstSlots) and doubles (up to window) only when every
// slot holds an item and another is pulled: its memory follows the values
// held, not the window, which may come from a request or a configuration
// (1<<40, math.MaxInt). Slots are allocated in chunks, never moved, and a
// task reaches its slot by the pointer it was given, never through the
// ring: the consumer alone reads and regrows the ring, re-placing the items
// it holds at their positions in the longer one.
//
// The slot protocol. A slot's state packs the item's number and a phase,
// item<<2 | phase, so that a task for an item whose slot has since been
// reused fails its CAS and does nothing:
//
//	queued   the consumer stored the input and submitted the task
//	running  claimed by one CAS from queued: by the task on a worker, or by
//	         the consumer, which runs the oldest item itself when no worker
//	         has started it
//	done     f returned (out), panicked (pe) or called Goexit (exited)
//	dropped  withdrawn by the cleanup (one CAS from queued): never runs
//
// Why the consumer claims. A consumer that is itself a task of the pool
// (or any consumer, on a pool whose workers are all busy) would deadlock
// if it only waited: on a pool of one worker, the only worker is the one
// waiting. Claiming the oldest item when it has not started makes the
// consumer need nothing from the pool but the items already running on
// other workers, which finish on their own. So a stream makes progress on
// any pool, and on a busy one degrades towards a sequential map on the
// consumer.
//
// Waiting. The consumer waits for one item at a time: under mu it checks
// the slot and, if the item is not done, publishes its number in waitFor,
// then blocks on wake; a task stores done, then reads waitFor under mu and,
// if it names its item, sends a token on wake (capacity 1, never blocking).
// Whichever takes mu second sees what the other did before its critical
// section, so no wake-up is lost. The handshake was first a pair of atomic
// stores each followed by a load of the other's word (a Dekker pair); that
// needs store-load ordering across two words, which arm64 gives but a
// user-mode emulator of it (qemu) did not always, and streams hung there.
// The mutex needs only the ordering of one word's read-modify-writes. A
// stale token only makes the consumer check again.
//
// Panics and positions. Results reach the consumer in input order, so a
// panic in f is raised when the consumer reaches that item, after the
// results before it were yielded: as a *blitz.PanicError, as everywhere in
// the package. A panic in the input sequence is raised after every value
// it handed over was mapped and yielded. The input's panic is recovered by
// a deferred function around the range over the input; the consumer's own
// loop body and the re-raised panics of f also unwind through it, so a
// flag (foreign) set around them tells that function to let them pass
// untouched.

// MapSeq returns a sequence of f(x) for the values x of seq, in seq's order,
// computing f potentially in parallel on r while the consumer ranges over
// the result. At most window values of seq are held at once, between being
// pulled from seq and their result being yielded: so at most window calls
// of f run at once, and at most window results wait for their turn, however
// long seq is and however slow the consumer. The room for them grows with
// the values held, up to the window, so any window is safe to take from a
// request or a configuration: a window of math.MaxInt over three values
// holds room for a few. seq is pulled on the goroutine that ranges over the
// result, only while fewer than window values are held; a slow consumer
// therefore stops the pulling. Each range over the result ranges over seq
// anew.
//
// When the loop over the result ends early (break, return), MapSeq stops
// pulling seq, drops the values not yet given to f, and waits for the calls
// of f that are running; so when the loop statement is over, no call of f
// is running. A panic in f reaches the consumer as a *blitz.PanicError at
// that value's position, after the results before it were yielded; a
// runtime.Goexit in f ends the consumer's goroutine at that position. A
// panic in seq likewise reaches the consumer after the results of the
// values seq handed over before it; a Goexit in seq ends the consumer's
// goroutine at once. A panic in the consumer's loop body goes on untouched.
// Either way, calls of f already running finish first, and the stream
// leaves no goroutine behind.
//
// When the result the consumer needs next has not been started by any
// worker, the consumer calls f for it itself rather than wait for one, so
// a stream never waits for a free worker: the consumer may be a task of
// r's pool (its loop body may use the pool too), on a pool of one worker as
// on a busy one. f must be safe for concurrent use. A window of 2 to 4 times the pool's worker count keeps the workers
// busy while the consumer is slower than them at times.
//
// Given a closed pool, ranging over the result panics with an error
// wrapping blitz.ErrClosed; if the pool closes while the loop runs, the
// consumer runs the remaining calls of f itself. A nil r, seq or f, or a
// window < 1, panics when MapSeq is called.
func MapSeq[T, U any](r blitz.Runner, seq iter.Seq[T], window int, f func(T) U) iter.Seq[U] {
	checkStream("MapSeq", r, seq == nil, f == nil, window)
	return func(yield func(U) bool) {
		runStream("MapSeq", r, window, f, seq, func(_ T, u U) bool { return yield(u) })
	}
}

// MapSeq2 is MapSeq over an iter.Seq2: it returns the sequence of the pairs
// (k, f(k, v)) for the pairs (k, v) of seq, in seq's order, with MapSeq's
// window, cancellation and panic rules. A nil r, seq or f, or a window < 1,
// panics when MapSeq2 is called.
func MapSeq2[K, V, U any](r blitz.Runner, seq iter.Seq2[K, V], window int, f func(K, V) U) iter.Seq2[K, U] {
	checkStream("MapSeq2", r, seq == nil, f == nil, window)
	g := func(p kv[K, V]) U { return f(p.k, p.v) }
	return func(yield func(K, U) bool) {
		runStream("MapSeq2", r, window, g, pairsOf(seq), func(p kv[K, V], u U) bool { return yield(p.k, u) })
	}
}

// MapSeqErr is MapSeq with an error: it returns the sequence of the pairs
// (f(x), nil) for the values x of seq, in seq's order, until the first
// value, in seq's order, whose call fails; that one is yielded as
// (zero, err) and ends the sequence, which then stops pulling seq and drops
// or waits for the other calls as a break does. Window and panics follow
// MapSeq's rules. A nil r, seq or f, or a window < 1, panics when MapSeqErr
// is called.
func MapSeqErr[T, U any](r blitz.Runner, seq iter.Seq[T], window int, f func(T) (U, error)) iter.Seq2[U, error] {
	checkStream("MapSeqErr", r, seq == nil, f == nil, window)
	g := func(x T) result[U] {
		u, err := f(x)
		return result[U]{u, err}
	}
	return func(yield func(U, error) bool) {
		runStream("MapSeqErr", r, window, g, seq, func(_ T, res result[U]) bool {
			if res.err != nil {
				var zero U
				yield(zero, res.err)
				return false
			}
			return yield(res.v, nil)
		})
	}
}

// kv is a pair of an iter.Seq2.
type kv[K, V any] struct {
	k K
	v V
}

// pairsOf returns seq as a sequence of pairs.
func pairsOf[K, V any](seq iter.Seq2[K, V]) iter.Seq[kv[K, V]] {
	return func(yield func(kv[K, V]) bool) {
		for k, v := range seq {
			if !yield(kv[K, V]{k, v}) {
				return
			}
		}
	}
}

type result[U any] struct {
	v   U
	err error
}

// checkStream panics for the arguments a stream constructor refuses.
func checkStream(name string, r blitz.Runner, nilSeq, nilFunc bool, window int) {
	if nilSeq {
		panic("par: " + name + ": nil sequence")
	}
	if nilFunc {
		panic("par: " + name + ": nil function")
	}
	if window < 1 {
		panic("par: " + name + ": window must be at least 1")
	}
	switch r := unwrap(r).(type) {
	case *blitz.Pool:
		if r != nil {
			return
		}
	case *blitz.Sub:
		if r != nil {
			return
		}
	case *blitz.Worker:
		if r != nil {
			return
		}
	}
	panic("par: " + name + ": nil Runner")
}

// Slot phases (the low two bits of streamSlot.state).
const (
	slotQueued uint64 = iota
	slotRunning
	slotDone
	slotDropped
)

// slotWord is the state of item k in phase.
func slotWord(k, phase uint64) uint64 { return k<<2 | phase }

// streamSlot holds one item between its pull and its yield.
type streamSlot[In, Out any] struct {
	// state is item<<2 | phase. The consumer stores queued (after writing
	// in); one CAS from queued, by a task or the consumer, moves to
	// running or, by the cleanup, to dropped; the runner stores done after
	// writing out, pe and exited. Sequentially consistent (sync/atomic):
	// the store of done publishes the results to the consumer's load.
	state  atomic.Uint64
	in     In
	out    Out
	pe     *blitz.PanicError
	exited bool
	// st is the stream the slot belongs to, set when the slot is made, so
	// that an item's task captures its slot and number only.
	st *stream[In, Out]
}

// streamFirstSlots is the ring's first length, for a longer window.
const streamFirstSlots = 16

// stream is one range over a MapSeq result.
type stream[In, Out any] struct {
	// tryGo submits an item's task: the TryGo of the pool or the Sub the
	// stream runs on.
	tryGo func(func(*blitz.Worker)) error
	f     func(In) Out
	// slots is the ring: item k is in slots[k%len(slots)]. Consumer only.
	slots  []*streamSlot[In, Out]
	window int
	// waitFor is the item the consumer blocks on, -1 when none: written by
	// the consumer, read by every runner after it stores done, both under mu.
	mu      sync.Mutex
	waitFor int64
	wake    chan struct{}
	// Consumer only:
	head, next uint64 // oldest item not yielded; next item to pull
	foreign    bool   // a panic or Goexit unwinding now is not the input's
	inline     bool   // the pool refused a task: claim every item
}

// runStream ranges over seq, mapping with f on r, and calls emit for each
// (input, result) pair in input order until emit returns false.
func runStream[In, Out any](name string, r blitz.Runner, window int, f func(In) Out, seq iter.Seq[In], emit func(In, Out) bool) {
	checkRunner(name, r)
	var tryGo func(func(*blitz.Worker)) error
	switch r := unwrap(r).(type) {
	case *blitz.Pool:
		tryGo = r.TryGo
	case *blitz.Sub:
		tryGo = r.TryGo
	case *blitz.Worker:
		tryGo = r.Pool().TryGo
	}
	st := &stream[In, Out]{tryGo: tryGo, f: f, window: window, wake: make(chan struct{}, 1)}
	st.waitFor = -1
	st.grow()
	defer st.cleanup()
	broken := false
	window64 := uint64(window)
	pe := st.pull(seq, func(x In) bool {
		if broken {
			return false // seq went on after being told to stop
		}
		st.dispatch(x)
		// Yield what is ready, and make room before the next pull.
		for st.head < st.next && (st.next-st.head == window64 || st.ready(st.head)) {
			if !st.deliver(emit) {
				broken = true
				return false
			}
		}
		return true
	})
	for !broken && st.head < st.next {
		if !st.deliver(emit) {
			return // the consumer stopped before the position of seq's panic, if any
		}
	}
	if pe != nil { // also when seq panicked on its way out after a break
		st.foreign = true
		panic(pe)
	}
}

// pull ranges over seq with body, and returns the panic of seq, if any, as
// a *blitz.PanicError. Panics and Goexits of the consumer's loop body and
// of f (foreign) pass through untouched, as does a Goexit of seq.
func (st *stream[In, Out]) pull(seq iter.Seq[In], body func(In) bool) (pe *blitz.PanicError) {
	returned := false
	defer func() {
		if returned || st.foreign {
			return
		}
		// A panic of seq, or its Goexit, which goes on whatever we do.
		v := recover()
		if v == nil {
			v = new(runtime.PanicNilError) // panic(nil) under GODEBUG=panicnil=1
		}
		if p, ok := v.(*blitz.PanicError); ok {
			pe = p
			return
		}
		pe = &blitz.PanicError{Value: v, Stack: debug.Stack()}
	}()
	seq(body)
	returned = true
	return nil
}

func (st *stream[In, Out]) slot(k uint64) *streamSlot[In, Out] {
	return st.slots[k%uint64(len(st.slots))]
}

// grow makes the ring min(window, streamFirstSlots) slots long, or doubles
// it, up to the window: the items held keep their slots, at their positions
// in the new ring, and new slots fill the rest.
func (st *stream[In, Out]) grow() {
	n := len(st.slots)
	m := min(st.window, streamFirstSlots)
	if n > 0 {
		m = n + min(n, st.window-n) // 2n, capped at the window without overflow
	}
	chunk := make([]streamSlot[In, Out], m-n)
	for i := range chunk {
		chunk[i].st = st
	}
	slots := make([]*streamSlot[In, Out], m)
	for k := st.head; k < st.next; k++ {
		slots[k%uint64(m)] = st.slots[k%uint64(n)]
	}
	for i := range slots {
		if slots[i] == nil {
			slots[i] = &chunk[0]
			chunk = chunk[1:]
		}
	}
	st.slots = slots
}

// dispatch stores x as the next item and submits its task.
func (st *stream[In, Out]) dispatch(x In) {
	if st.next-st.head == uint64(len(st.slots)) {
		st.grow() // every slot holds an item: the window is longer
	}
	k := st.next
	s := st.slot(k)
	s.in, s.pe, s.exited = x, nil, false
	s.state.Store(slotWord(k, slotQueued))
	st.next++
	if st.inline {
		return
	}
	// TryGo, not Go: with a full queue (WithCapacity) the item stays
	// queued for the consumer to claim, rather than the consumer waiting
	// for room.
	if err := st.tryGo(func(*blitz.Worker) { s.task(k) }); errors.Is(err, blitz.ErrClosed) {
		st.inline = true // the consumer claims the rest
	}
}

// task runs item k, held in s, on a worker, unless the consumer claimed it
// or the cleanup dropped it (or the slot was reused since).
func (s *streamSlot[In, Out]) task(k uint64) {
	if s.state.CompareAndSwap(slotWord(k, slotQueued), slotWord(k, slotRunning)) {
		s.st.runItem(k, s)
	}
}

// runItem calls f on item k, which the caller claimed, and stores the
// outcome, however f ends.
func (st *stream[In, Out]) runItem(k uint64, s *streamSlot[In, Out]) {
	returned := false
	defer func() {
		s.exited = !returned
		s.state.Store(slotWord(k, slotDone))
		st.mu.Lock()
		waited := st.waitFor == int64(k)
		st.mu.Unlock()
		if waited {
			select {
			case st.wake <- struct{}{}:
			default:
			}
		}
	}()
	s.pe = blitz.Catch(func() { s.out = st.f(s.in) })
	returned = true
}

// ready reports whether item k is done.
func (st *stream[In, Out]) ready(k uint64) bool {
	return st.slot(k).state.Load() == slotWord(k, slotDone)
}

// await returns once item k is done, running it here if no one started it.
func (st *stream[In, Out]) await(k uint64) {
	s := st.slot(k)
	if s.state.CompareAndSwap(slotWord(k, slotQueued), slotWord(k, slotRunning)) {
		st.foreign = true // a Goexit of f ends the consumer here, at its position
		st.runItem(k, s)
		st.foreign = false
		return
	}
	st.block(k, s)
}

// block waits until item k, which someone runs, is done.
func (st *stream[In, Out]) block(k uint64, s *streamSlot[In, Out]) {
	for {
		st.mu.Lock()
		if s.state.Load() == slotWord(k, slotDone) {
			st.waitFor = -1
			st.mu.Unlock()
			return
		}
		st.waitFor = int64(k)
		st.mu.Unlock()
		<-st.wake
	}
}

// deliver waits for the oldest item, frees its slot and emits its result;
// a panic or Goexit of f is raised here, at the item's position. It
// reports whether the consumer wants more.
func (st *stream[In, Out]) deliver(emit func(In, Out) bool) bool {
	k := st.head
	st.await(k)
	s := st.slot(k)
	if s.pe != nil || s.exited {
		st.foreign = true
		if s.pe != nil {
			panic(s.pe)
		}
		runtime.Goexit()
	}
	in, out := s.in, s.out
	var zeroIn In
	var zeroOut Out
	s.in, s.out = zeroIn, zeroOut
	st.head++
	st.foreign = true
	ok := emit(in, out)
	st.foreign = false
	return ok
}

// cleanup, however the consumer's loop ends, drops the items no one
// started and waits for the ones running.
func (st *stream[In, Out]) cleanup() {
	for k := st.head; k < st.next; k++ {
		s := st.slot(k)
		if !s.state.CompareAndSwap(slotWord(k, slotQueued), slotWord(k, slotDropped)) {
			st.block(k, s)
		}
		var zeroIn In
		var zeroOut Out
		s.in, s.out = zeroIn, zeroOut
	}
}
