package par

import (
	"iter"
	"sync"
	"sync/atomic"

	"github.com/blitz-go/blitz"
)

// The bridge from an iter.Seq to the pool: ForEachSeq and ForEachSeq2.
//
// Who does what. The producer (the worker the call runs on) ranges over
// seq, packs the values into batches and puts each full batch in a ring of
// K slots, K = seqBatchesPerWorker × the pool's workers. Runner tasks,
// spawned in the call's Scope, take the waiting batches oldest first and
// call f on their values; a runner ends when no batch waits. The producer
// spawns a runner when it queues a batch and fewer than max(workers-1, 1)
// are alive (spawned and not ended), so the tasks are bounded too.
//
// The window. Batches are numbered in pull order; the slot of batch b is
// b mod K, and the ring holds every batch pulled and not finished, the one
// being filled included:
//
//	head ≤ taken ≤ next, next - head < K
//
//	[head, taken)  taken by a runner or the producer: running or finished
//	[taken, next)  full and waiting for a taker
//	next           being filled by the producer
//
// Finished batches are retired from head on, in order, which frees their
// slots; the producer retires them when it looks for room, so head is
// never past the oldest batch not finished, and is that batch right after
// the retiring. After queuing a full batch the producer pulls again only
// once next - head < K. Until then it takes the oldest waiting batch and
// runs it itself, or, when every batch in the ring is taken, waits on cond
// for one to finish. So when f(x) runs, x's batch is not finished, head is
// at or before it, and seq has handed over nothing past batch head+K-1: at
// most K batches from x's on. Processing never depends on the pool: with
// one worker, or workers busy elsewhere, the producer runs the batches
// itself, K-1 behind the pulling at most.
//
// Why the producer may wait. It waits only when no batch waits and the
// ring is full: every batch it waits for is running on a runner, which is
// a task of the pool running on another goroutine; the producer already
// ran to completion the batches it took. A runner needs nothing from the
// producer to finish, so the wait ends when the oldest batch does.
//
// Why every waiting batch is run. A runner ends only when it sees, under
// mu, that no batch waits, and leaves the count of runners in that same
// critical section; the producer queues a batch under mu and spawns a
// runner if fewer than maxRunners (at least one) are alive. So while a
// batch waits some runner is alive, and it sees the batch before it ends;
// the Scope waits for the runners.
//
// Stopping. A batch whose f panics or calls runtime.Goexit sets stop and
// drops the waiting batches (their values are never given to f). The
// producer reads stop before each value seq hands it (dropping that value
// and returning from the range, so seq is asked for no more), when it
// queues a batch and when it looks for room; the runners read it before
// each value they run. So after the panic no value is given to f, and
// only the calls already running finish before the Scope re-raises it.

// ForEachSeq calls f(x) for every value x of seq, potentially in parallel
// and in no particular order (rayon's par_bridge). seq itself is consumed on
// one worker, sequentially, as a range loop would; that worker packs the
// values into batches (1 value, then 2, 4, ... up to 512, so a short
// sequence still spreads; under MinLen, batches of at least its minimum)
// and hands each batch to the pool, where idle workers take them.
//
// Pulling stays a bounded distance ahead of f, on every pool and from a
// task's *blitz.Worker alike: at most K = 2 × the pool's workers (when the
// call starts) batches are pulled and not finished (the one being filled
// included), and a batch is begun only when every batch K or more before it
// has finished. So when f(x) is called, seq has handed over at most K × 512
// values from x on (K times MinLen's minimum, if that is longer), however
// long seq is, endless ones included. When K batches are unfinished the
// consuming worker runs the oldest batch that no worker has taken, or waits
// for one to finish, before it pulls more: on a pool of one worker, or one
// whose workers are busy, it runs the batches itself. A value whose f is
// slow therefore holds the pulling back once the K-1 batches after its own
// are pulled. Batch buffers grow with the values pulled, not with MinLen's
// minimum, and are reused. f must be safe for concurrent use.
//
// If f panics, ForEachSeq stops pulling from seq and gives no further value
// to f (the values pulled and not yet given to f are dropped), waits for
// the calls of f that are running, and panics in the caller with a
// *PanicError; a Goexit in f likewise stops it and ends the caller's
// goroutine. If seq panics, every value it handed over before (every yield
// that returned true) is still given to f, and then the panic reaches the
// caller in the same way; a Goexit in seq likewise lets those values be
// processed, then ends the caller's goroutine. A seq that blocks holds the
// consuming worker. Nil seq or f panics.
func ForEachSeq[T any](r blitz.Runner, seq iter.Seq[T], f func(T)) {
	if seq == nil {
		panic("par: ForEachSeq: nil sequence")
	}
	if f == nil {
		panic("par: ForEachSeq: nil function")
	}
	forEachSeq("ForEachSeq", r, seq, f)
}

// ForEachSeq2 is ForEachSeq over an iter.Seq2: it calls f(k, v) for every
// pair (k, v) of seq, potentially in parallel and in no particular order,
// with ForEachSeq's batching, bound on pulling ahead and panic rules. Nil
// seq or f panics.
func ForEachSeq2[K, V any](r blitz.Runner, seq iter.Seq2[K, V], f func(K, V)) {
	if seq == nil {
		panic("par: ForEachSeq2: nil sequence")
	}
	if f == nil {
		panic("par: ForEachSeq2: nil function")
	}
	forEachSeq("ForEachSeq2", r, pairsOf(seq), func(p kv[K, V]) { f(p.k, p.v) })
}

// forEachSeq is ForEachSeq and ForEachSeq2 after their checks.
func forEachSeq[T any](name string, r blitz.Runner, seq iter.Seq[T], f func(T)) {
	minBatch := pieceMin(r, 1)
	enter(name, r, func(w *blitz.Worker) {
		workers := w.Pool().Workers()
		b := &seqBridge[T]{
			f:          f,
			minBatch:   minBatch,
			ring:       make([]seqBatch[T], seqWindow(workers)),
			maxRunners: max(workers-1, 1),
		}
		b.cond.L = &b.mu
		w.Scope(func(s *blitz.Scope) { b.produce(s, seq) })
	})
}

const (
	// seqMaxBatch is the longest batch without MinLen.
	seqMaxBatch = 512
	// seqBatchesPerWorker is the ring's length per worker: the batches
	// pulled and not finished.
	seqBatchesPerWorker = 2
)

// seqWindow is the ring's length, K, on a pool of workers workers.
func seqWindow(workers int) int { return seqBatchesPerWorker * max(workers, 1) }

// seqBridge is one ForEachSeq call.
type seqBridge[T any] struct {
	f          func(T)
	minBatch   int // the first batch's length: MinLen's minimum, 1 without
	maxRunners int

	// stop is set, under mu, by a batch whose f panicked or called
	// runtime.Goexit; read by the producer before each value and by the
	// runners before each call of f, without mu.
	stop atomic.Bool

	// mu guards what follows; cond (on mu) is where the producer waits for
	// a batch to finish, signalled by every batch that finishes.
	mu   sync.Mutex
	cond sync.Cond
	// ring holds the batches [head, next) at b mod len(ring) (see the
	// essay above for head, taken and next).
	ring              []seqBatch[T]
	head, taken, next uint64
	// runners counts the runner tasks spawned and not ended.
	runners int
}

// seqBatch is one slot of the ring.
type seqBatch[T any] struct {
	// vals is the batch's values while it waits or runs; once it is
	// retired, the emptied buffer, which the next batch of the slot reuses.
	vals []T
	done bool // finished (or dropped), not yet retired
}

// produce pulls seq into batches and queues them, keeping the ring's bound.
//
// batch holds the values seq handed over (their yields returned true) that
// are not queued yet; it is emptied before each queuing, so that a panic
// in f on this goroutine leaves nothing in it. If seq itself panics or
// calls runtime.Goexit, the deferred queue still hands those values to f
// (by a runner) before the panic or Goexit goes on to the scope.
func (b *seqBridge[T]) produce(s *blitz.Scope, seq iter.Seq[T]) {
	size := b.minBatch
	batch := b.buffer(size)
	defer func() {
		if len(batch) > 0 {
			b.queue(s, batch)
		}
	}()
	for x := range seq {
		if b.stop.Load() {
			return // f panicked: x is dropped with the waiting batches
		}
		batch = append(batch, x)
		if len(batch) < size {
			continue
		}
		full := batch
		batch = nil
		b.queue(s, full)
		if !b.room() {
			return
		}
		size = max(min(twice(size), seqMaxBatch), b.minBatch)
		batch = b.buffer(size)
	}
}

// buffer returns the empty buffer of the slot of batch next, which room
// made free, with room for min(size, seqMaxBatch) values: a longer batch
// (MinLen) grows its buffer as its values arrive.
func (b *seqBridge[T]) buffer(size int) []T {
	b.mu.Lock()
	buf := b.ring[b.next%uint64(len(b.ring))].vals[:0]
	b.mu.Unlock()
	if want := min(size, seqMaxBatch); cap(buf) < want {
		buf = make([]T, 0, want)
	}
	return buf
}

// queue puts a full batch (or seq's last) in the ring as batch next, and
// spawns a runner if fewer than maxRunners are alive. After stop it drops
// the batch instead.
func (b *seqBridge[T]) queue(s *blitz.Scope, batch []T) {
	b.mu.Lock()
	slot := &b.ring[b.next%uint64(len(b.ring))]
	if b.stop.Load() {
		clear(batch) // drop the values, for the garbage collector
		slot.vals = batch[:0]
		b.mu.Unlock()
		return
	}
	slot.vals = batch
	b.next++
	spawn := b.runners < b.maxRunners
	if spawn {
		b.runners++
	}
	b.mu.Unlock()
	if spawn {
		s.Spawn(func(*blitz.Worker, *blitz.Scope) { b.runner() })
	}
}

// room returns true once the ring has a free slot for batch next, running
// the oldest waiting batches itself meanwhile, or false once f panicked.
func (b *seqBridge[T]) room() bool {
	b.mu.Lock()
	for {
		if b.stop.Load() {
			b.mu.Unlock()
			return false
		}
		for b.head < b.taken && b.ring[b.head%uint64(len(b.ring))].done {
			b.ring[b.head%uint64(len(b.ring))].done = false
			b.head++
		}
		if b.next-b.head < uint64(len(b.ring)) {
			b.mu.Unlock()
			return true
		}
		if b.taken < b.next {
			k, vals := b.take()
			b.mu.Unlock()
			b.run(k, vals)
			b.mu.Lock()
			continue
		}
		b.cond.Wait()
	}
}

// runner is a runner task: it runs the waiting batches, oldest first, and
// ends when none waits. It leaves the count of runners in the critical
// section where it sees that none waits: leaving it later would let the
// producer queue a batch in between, count this runner alive and spawn
// none, and the batch would never run.
func (b *seqBridge[T]) runner() {
	ended := false
	defer func() {
		if !ended { // f panicked or called runtime.Goexit
			b.mu.Lock()
			b.runners--
			b.mu.Unlock()
		}
	}()
	for {
		b.mu.Lock()
		if b.taken == b.next {
			b.runners--
			ended = true
			b.mu.Unlock()
			return
		}
		k, vals := b.take()
		b.mu.Unlock()
		b.run(k, vals)
	}
}

// take takes the oldest waiting batch, under mu, and returns its number
// and values.
func (b *seqBridge[T]) take() (k uint64, vals []T) {
	k = b.taken
	b.taken++
	return k, b.ring[k%uint64(len(b.ring))].vals
}

// run calls f on vals, the values of batch k, which the caller took, and
// marks the batch finished however f ends; a panic or Goexit of f sets
// stop and drops the waiting batches before it goes on.
func (b *seqBridge[T]) run(k uint64, vals []T) {
	returned := false
	defer func() {
		b.mu.Lock()
		slot := &b.ring[k%uint64(len(b.ring))]
		if !returned {
			b.stop.Store(true)
			for ; b.taken < b.next; b.taken++ {
				w := &b.ring[b.taken%uint64(len(b.ring))]
				clear(w.vals)
				w.vals, w.done = w.vals[:0], true
			}
		}
		clear(vals) // drop the values, for the garbage collector
		slot.vals, slot.done = vals[:0], true
		b.cond.Signal()
		b.mu.Unlock()
	}()
	for _, x := range vals {
		if b.stop.Load() {
			break
		}
		b.f(x)
	}
	returned = true
}
