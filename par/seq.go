package par

import (
	"iter"
	"sync"
	"sync/atomic"

	"github.com/blitz-go/blitz"
)

// ForEachSeq calls f(x) for every value x of seq, potentially in parallel
// and in no particular order (rayon's par_bridge). seq itself is consumed on
// one worker, sequentially, as a range loop would; that worker packs the
// values into batches (1 value, then 2, 4, ... up to seqMaxBatch, so a short
// sequence still spreads) and hands each batch to the pool, where idle
// workers take them. At most a few batches per worker are handed out at a
// time: when that many are pending, the consuming worker runs the next
// batch itself before pulling more, so memory stays bounded whatever the
// length of seq, and batch buffers are reused. f must be safe for
// concurrent use.
//
// If f panics, ForEachSeq stops pulling from seq, lets the batches already
// handed out finish, and panics in the caller with a *PanicError. If seq
// panics, every value it handed over before (every yield that returned
// true) is still given to f, and then the panic reaches the caller in the
// same way; a Goexit in seq likewise lets those values be processed, then
// ends the caller's goroutine. A seq that blocks holds the consuming
// worker. Nil seq or f panics.
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
// with ForEachSeq's batching, memory bound and panic rules. Nil seq or f
// panics.
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
		b := &seqBridge[T]{f: f, limit: int64(seqBatchesPerWorker * w.Pool().Workers()), minBatch: minBatch}
		w.Scope(func(s *blitz.Scope) { b.produce(s, seq) })
	})
}

const (
	seqMaxBatch         = 512
	seqBatchesPerWorker = 2
)

// seqBridge is one ForEachSeq call.
type seqBridge[T any] struct {
	f     func(T)
	limit int64
	// minBatch is the first batch's length (MinLen's minimum, 1 without).
	minBatch int
	// out counts batches handed out (spawned) and not finished: added to
	// by the consuming worker, subtracted from by whoever ran the batch.
	out atomic.Int64
	// stop is set by a batch whose f panicked; the consumer checks it
	// after each batch.
	stop atomic.Bool

	mu   sync.Mutex
	free [][]T // buffers of finished batches, emptied, for reuse
}

// produce pulls seq into batches and dispatches them.
//
// batch holds the values seq handed over (their yields returned true) that
// no batch dispatched yet; it is emptied before each dispatch, so that a
// panic in f on this goroutine leaves nothing in it. If seq itself panics
// or calls runtime.Goexit, the deferred dispatch still hands those values
// to f before the panic or Goexit goes on to the scope.
func (b *seqBridge[T]) produce(s *blitz.Scope, seq iter.Seq[T]) {
	size := b.minBatch
	batch := b.buffer(size)
	defer func() {
		if len(batch) > 0 {
			b.dispatch(s, batch)
		}
	}()
	for x := range seq {
		batch = append(batch, x)
		if len(batch) < size {
			continue
		}
		full := batch
		batch = nil
		b.dispatch(s, full)
		if b.stop.Load() {
			return
		}
		size = max(min(2*size, seqMaxBatch), b.minBatch)
		batch = b.buffer(size)
	}
}

// dispatch hands batch to the pool, or runs it here if enough are pending.
func (b *seqBridge[T]) dispatch(s *blitz.Scope, batch []T) {
	if b.out.Load() >= b.limit {
		b.run(batch)
		return
	}
	b.out.Add(1)
	s.Spawn(func(*blitz.Worker, *blitz.Scope) {
		b.run(batch)
		b.out.Add(-1)
	})
}

// run calls f on a batch and recycles its buffer.
func (b *seqBridge[T]) run(batch []T) {
	ok := false
	defer func() {
		if !ok {
			b.stop.Store(true)
		}
	}()
	for _, x := range batch {
		b.f(x)
	}
	ok = true
	clear(batch) // drop the values, for the garbage collector
	b.mu.Lock()
	b.free = append(b.free, batch[:0])
	b.mu.Unlock()
}

// buffer returns an empty buffer of capacity at least size.
func (b *seqBridge[T]) buffer(size int) []T {
	b.mu.Lock()
	defer b.mu.Unlock()
	for i := len(b.free) - 1; i >= 0; i-- {
		if buf := b.free[i]; cap(buf) >= size {
			b.free[i] = b.free[len(b.free)-1]
			b.free = b.free[:len(b.free)-1]
			return buf
		}
	}
	return make([]T, 0, size)
}
