package par

import (
	"context"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/blitz-go/blitz"
)

// The loops that stop on an error: ForErr, MapReduceErr, ForEachErr and
// MapErr. They run on the range driver (runRange) like For and MapReduce,
// with one more reason to skip a span: a lower index failed.
//
// Which error. These loops return the error of the lowest index that
// failed, the one the sequential loop (stop at the first error) returns,
// not the first to happen (errgroup and rayon's try_for_each return
// whichever failure wins the race; conc's iter.MapErr runs everything and
// joins all errors). The lowest index makes the result a function of the
// input, not of the schedule: a validation loop reports the first bad
// record on every run, at every worker count, and a test or fuzz target
// can compare it with a plain loop. The price is that a failure at index i
// stops only the work right of i: pieces left of i run on, since one of
// them may still fail lower. Failures are rare, and the left work is work
// a sequential loop would have done too.
//
// Telling running pieces. Each piece's callbacks receive a context of
// their own (pieceCtx), canceled once the piece can no longer change the
// outcome: some index below the piece's first one failed, the caller's ctx
// ended, or the call returned. One context shared by the whole call, as
// errgroup's, cannot do this: canceled at the first failure, it would also
// reach pieces left of it, and a callback there that returns ctx.Err()
// would become the lowest failure, a result that depends on timing. With a
// context per piece a callback sees its context canceled only when a lower
// index already failed, so whatever it then returns is never the answer:
// the result stays the sequential one even for callbacks that read the
// context. A piece's context costs one small allocation; its Done channel
// is made only if a callback asks for it.
//
// The state of one call (errLoop):
//
//	cut    the lowest index that failed or panicked; math.MaxInt64 while none
//	       did, math.MinInt64 once the caller's ctx ended or the call returned.
//	       A span, an element, a piece's context at or past cut is moot.
//	err    the error at the lowest failed index (under mu)
//
// A panic in a callback counts as a failure of its piece (later pieces are
// skipped, running ones told) and then reaches the caller as everywhere in
// the package, once every piece has stopped.

// errLoop is one call of an error loop.
type errLoop struct {
	parent context.Context
	// cut is lowered by a failing piece (under mu, so that err, errAt and
	// the pieces' Done channels change with it) and set to math.MinInt64
	// by end or parentEnded (under mu); read without the lock by every
	// piece before each span and each element, and by pieceCtx.Err.
	// Sequentially consistent (sync/atomic).
	cut atomic.Int64

	mu      sync.Mutex
	errAt   int64
	err     error
	overErr error       // why cut became math.MinInt64: ctx's error, or context.Canceled at the end
	open    []*pieceCtx // pieces whose Done channel is made and not closed
	stop    func() bool // stops the context.AfterFunc watching parent; nil if parent never ends
	ctxDone <-chan struct{}
}

func newErrLoop(parent context.Context) *errLoop {
	l := &errLoop{parent: parent, errAt: math.MaxInt64, ctxDone: parent.Done()}
	l.cut.Store(math.MaxInt64)
	if l.ctxDone != nil {
		l.stop = context.AfterFunc(parent, l.parentEnded)
	}
	return l
}

// moot reports whether index i can no longer change the outcome.
func (l *errLoop) moot(i int) bool { return int64(i) >= l.cut.Load() }

// errFailHook, when not nil, is called after each recorded failure (test
// hook: it lets a test tell the calls that started after the record).
var errFailHook func()

// fail records that index i failed with err (nil for a panic or Goexit).
func (l *errLoop) fail(i int, err error) {
	v := int64(i)
	l.mu.Lock()
	if v < l.errAt {
		l.errAt, l.err = v, err
	}
	if v < l.cut.Load() {
		l.cut.Store(v)
		l.closeMoot()
	}
	l.mu.Unlock()
	if errFailHook != nil {
		errFailHook()
	}
}

// parentEnded is run by context.AfterFunc once the caller's ctx ends.
func (l *errLoop) parentEnded() { l.over(l.parent.Err()) }

// over makes every index moot, for reason.
func (l *errLoop) over(reason error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.overErr == nil {
		l.overErr = reason
	}
	l.cut.Store(math.MinInt64)
	l.closeMoot()
}

// closeMoot closes the Done channels of the pieces now moot. Under mu.
func (l *errLoop) closeMoot() {
	keep := l.open[:0]
	for _, c := range l.open {
		if l.moot(c.lo) {
			close(*c.done.Load())
			for _, a := range c.afters {
				go a.f()
			}
			c.afters = nil
		} else {
			keep = append(keep, c)
		}
	}
	clear(l.open[len(keep):])
	l.open = keep
}

// end closes every piece's context and returns the call's error: ctx's if
// it ended, else the lowest failure's, else nil.
func (l *errLoop) end() error {
	if l.stop != nil {
		l.stop()
	}
	l.over(context.Canceled)
	if err := l.parent.Err(); err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

// piece returns the context of the piece starting at lo.
func (l *errLoop) piece(lo int) *pieceCtx { return &pieceCtx{l: l, lo: lo} }

// markUnwound, deferred by a piece, records a panic or Goexit at *i as a
// failure (nil error: it reaches the caller as a panic, not as the result).
func (l *errLoop) markUnwound(i *int, returned *bool) {
	if !*returned {
		l.fail(*i, nil)
	}
}

// pieceCtx is the context the callbacks of the piece starting at lo
// receive: its parent's values and deadline, done once lo is moot.
type pieceCtx struct {
	l  *errLoop
	lo int
	// done is the piece's Done channel, made on the first Done call (under
	// l.mu), never changed after; closedChan if the piece was already moot.
	// Read without the lock by Done's fast path.
	done atomic.Pointer[chan struct{}]
	// afters are the AfterFunc registrations not run or stopped yet; under
	// l.mu. A piece with one is in l.open.
	afters []*afterFunc
}

// closedChan is the Done channel of a piece that was moot when asked.
var closedChan = func() *chan struct{} {
	c := make(chan struct{})
	close(c)
	return &c
}()

func (c *pieceCtx) Deadline() (time.Time, bool) { return c.l.parent.Deadline() }
func (c *pieceCtx) Value(key any) any           { return c.l.parent.Value(key) }

func (c *pieceCtx) Done() <-chan struct{} {
	if d := c.done.Load(); d != nil {
		return *d
	}
	l := c.l
	l.mu.Lock()
	defer l.mu.Unlock()
	return c.doneLocked()
}

// doneLocked makes the Done channel if it is not made yet. Under l.mu.
func (c *pieceCtx) doneLocked() <-chan struct{} {
	if d := c.done.Load(); d != nil {
		return *d
	}
	if c.l.moot(c.lo) {
		c.done.Store(closedChan)
	} else {
		d := make(chan struct{})
		c.done.Store(&d)
		c.l.open = append(c.l.open, c)
	}
	return *c.done.Load()
}

// AfterFunc arranges for f to run in its own goroutine once the piece's
// context is done, as context.AfterFunc does; stop reports whether it
// stopped f from being run. The context package looks for this method: a
// context derived from a piece's (context.WithCancel, WithTimeout, ...)
// then follows it without a goroutine of its own.
func (c *pieceCtx) AfterFunc(f func()) (stop func() bool) {
	l := c.l
	l.mu.Lock()
	defer l.mu.Unlock()
	c.doneLocked()
	if l.moot(c.lo) {
		go f()
		return func() bool { return false }
	}
	a := &afterFunc{f: f}
	c.afters = append(c.afters, a)
	return func() bool {
		l.mu.Lock()
		defer l.mu.Unlock()
		i := slices.Index(c.afters, a)
		if i < 0 {
			return false
		}
		c.afters = slices.Delete(c.afters, i, i+1)
		return true
	}
}

// afterFunc is one AfterFunc registration (a pointer, so that stop finds
// its own among equal funcs).
type afterFunc struct{ f func() }

// Err returns nil until the piece is moot; then the caller's ctx's error
// if that ended it, else context.Canceled. It waits for Done to be closed
// first, as the context package's own contexts do, so that a non-nil Err
// always comes with a closed Done.
func (c *pieceCtx) Err() error {
	l := c.l
	if !l.moot(c.lo) {
		return nil
	}
	<-c.Done()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.overErr != nil {
		return l.overErr
	}
	return context.Canceled
}

func (c *pieceCtx) String() string { return "par.pieceContext" }

// errEnter checks the arguments common to the error loops and runs body on
// r with a new errLoop; it returns the call's error. A ctx that has
// already ended runs nothing.
func errEnter(name string, ctx context.Context, r blitz.Runner, nonEmpty bool, body func(w *blitz.Worker, l *errLoop)) error {
	if ctx == nil {
		panic("par: " + name + ": nil context")
	}
	checkRunner(name, r)
	if err := ctx.Err(); err != nil || !nonEmpty {
		return err
	}
	l := newErrLoop(ctx)
	var err error
	func() {
		defer func() { err = l.end() }()
		enter(name, r, func(w *blitz.Worker) { body(w, l) })
	}()
	return err
}

// ForErr is For with an error: it calls body(ctx', w, lo', hi') for
// disjoint sub-ranges [lo', hi') that cover [lo, hi), potentially in
// parallel on r, and returns the error of the leftmost piece that failed, or
// nil. Once a piece fails, no piece right of it starts, and the pieces
// right of it that are running see their ctx' canceled; the pieces left of
// it run on, since one of them may fail further left. So a body that
// returns the error of the first index it fails at makes the result the one
// a sequential loop returns, whatever the cut, and even if it returns
// ctx'.Err() when it sees ctx' canceled (that happens only right of a
// failure). grain is For's.
//
// ctx' carries ctx's values and deadline and is canceled also when ctx
// ends and when ForErr returns. If ctx ended before ForErr returned, the
// result is ctx.Err() and some indexes may not have been visited; a ctx that
// has already ended runs nothing. A panic in body stops the loop as a
// failure does, then reaches the caller as a *blitz.PanicError once every
// piece has stopped. A nil body or ctx panics.
func ForErr(ctx context.Context, r blitz.Runner, lo, hi, grain int, body func(ctx context.Context, w *blitz.Worker, lo, hi int) error) error {
	if body == nil {
		panic("par: ForErr: nil body")
	}
	return errEnter("ForErr", ctx, r, hi > lo, func(w *blitz.Worker, l *errLoop) {
		runRange(w, lo, hi, &rangeCtx[struct{}]{
			leaf: func(w *blitz.Worker, lo, hi int) struct{} {
				returned := false
				defer l.markUnwound(&lo, &returned)
				if err := body(l.piece(lo), w, lo, hi); err != nil {
					l.fail(lo, err)
				}
				returned = true
				return struct{}{}
			},
			grain:  grain,
			minLen: pieceMin(r, callbackMinLen),
			done:   l.ctxDone,
			past:   l.moot,
		})
	})
}

// MapReduceErr is MapReduce with an error: it computes mapper over disjoint
// sub-ranges covering [lo, hi) and combines the results with reduce in
// index order, as MapReduce does, and stops as ForErr stops. It returns the
// result and nil if no piece failed and ctx did not end; otherwise identity
// and the error ForErr would return (the leftmost failing piece's, or
// ctx.Err()). reduce is not called once a piece failed. identity is also
// the result of an empty range. Panics follow ForErr's rules. Nil
// functions and a nil ctx panic.
func MapReduceErr[T any](ctx context.Context, r blitz.Runner, lo, hi, grain int, identity T, mapper func(ctx context.Context, w *blitz.Worker, lo, hi int) (T, error), reduce func(a, b T) T) (T, error) {
	if mapper == nil || reduce == nil {
		panic("par: MapReduceErr: nil function")
	}
	res := identity
	err := errEnter("MapReduceErr", ctx, r, hi > lo, func(w *blitz.Worker, l *errLoop) {
		res = runRange(w, lo, hi, &rangeCtx[T]{
			leaf: func(w *blitz.Worker, lo, hi int) T {
				returned := false
				defer l.markUnwound(&lo, &returned)
				v, err := mapper(l.piece(lo), w, lo, hi)
				if err != nil {
					l.fail(lo, err)
					v = identity
				}
				returned = true
				return v
			},
			combine: func(a, b T) T {
				if l.cut.Load() != math.MaxInt64 {
					return identity // the result is discarded
				}
				return reduce(a, b)
			},
			identity: identity,
			grain:    grain,
			minLen:   pieceMin(r, callbackMinLen),
			done:     l.ctxDone,
			past:     l.moot,
		})
	})
	if err != nil {
		return identity, err
	}
	return res, nil
}

// ForEachErr calls f(ctx', x) for the elements x of s, potentially in
// parallel, and returns the error of the lowest index whose call failed, or
// nil: the error a sequential loop that stops at the first error returns.
// Once the call at index i fails, no call past i starts, and the calls past
// i that are running see their ctx' canceled; calls before i run on, since
// one of them may fail lower. A callback may return ctx'.Err() when it
// sees ctx' canceled: that happens only past a failure, so the result does
// not change.
//
// ctx' carries ctx's values and deadline and is canceled also when ctx ends
// and when ForEachErr returns. If ctx ended before ForEachErr returned, the
// result is ctx.Err() and some elements may not have been visited; a ctx
// that has already ended runs nothing. A panic in f stops the loop as a
// failure does, then reaches the caller as a *blitz.PanicError once every
// piece has stopped. A nil f or ctx panics.
func ForEachErr[S ~[]E, E any](ctx context.Context, r blitz.Runner, s S, f func(ctx context.Context, x E) error) error {
	if f == nil {
		panic("par: ForEachErr: nil function")
	}
	return errEnter("ForEachErr", ctx, r, len(s) > 0, func(w *blitz.Worker, l *errLoop) {
		errElements(w, l, len(s), pieceMin(r, callbackMinLen), func(c context.Context, lo, hi int) (int, error) {
			for i, x := range s[lo:hi] {
				if l.moot(lo + i) {
					break
				}
				if err := f(c, x); err != nil {
					return lo + i, err
				}
			}
			return 0, nil
		})
	})
}

// MapErr returns a new slice holding f(ctx', s[i]) at index i, computed
// potentially in parallel, and a nil error; or nil and the error of the
// lowest index whose call failed. It stops, tells running calls and treats
// ctx and panics as ForEachErr does. A nil f or ctx panics.
func MapErr[S ~[]E, E, T any](ctx context.Context, r blitz.Runner, s S, f func(ctx context.Context, x E) (T, error)) ([]T, error) {
	if f == nil {
		panic("par: MapErr: nil function")
	}
	out := make([]T, len(s))
	err := errEnter("MapErr", ctx, r, len(s) > 0, func(w *blitz.Worker, l *errLoop) {
		errElements(w, l, len(s), pieceMin(r, callbackMinLen), func(c context.Context, lo, hi int) (int, error) {
			o := out[lo:hi]
			for i, x := range s[lo:hi] {
				if l.moot(lo + i) {
					break
				}
				v, err := f(c, x)
				if err != nil {
					return lo + i, err
				}
				o[i] = v
			}
			return 0, nil
		})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// errElements runs loop over pieces covering [0, n), of at least minLen
// elements where n allows. loop visits the
// elements of [lo, hi) in order, stopping at the first moot index, and
// returns the index and error of its first failure, or a nil error.
func errElements(w *blitz.Worker, l *errLoop, n, minLen int, loop func(c context.Context, lo, hi int) (int, error)) {
	runRange(w, 0, n, &rangeCtx[struct{}]{
		leaf: func(_ *blitz.Worker, lo, hi int) struct{} {
			returned := false
			defer l.markUnwound(&lo, &returned)
			if i, err := loop(l.piece(lo), lo, hi); err != nil {
				l.fail(i, err)
			}
			returned = true
			return struct{}{}
		},
		minLen: minLen,
		done:   l.ctxDone,
		past:   l.moot,
	})
}
