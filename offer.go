package blitz

// Lazy offering of join halves.
//
// A join offers its second half to other workers by pushing a ref to it on
// the worker's deque, and takes it back with a pop. With thieves about, that
// pop is the Chase-Lev pop: a store, a full fence and a load, because a
// thief may be taking the same element. In a fine-grained fork-join (a join
// every few nanoseconds) that fence, the push and telling the sleep protocol
// about the job were most of the cost of a join, and almost every half
// offered came back to its own worker unstolen: thieves take the oldest,
// largest halves, rarely the ones just pushed.
//
// So a join deep in a tree offers its half only when some other worker
// wants work. From depth eagerDepth on, a fork marks its frame lazy (the job
// is in the frame, its ref in no deque) and goes on; when the first half
// returns, a frame still lazy was never offered, and the worker runs the
// second half itself without touching the deque: no fence, no CAS, no
// sleep-protocol traffic. A worker that looks for work and finds a deque
// empty asks its owner (ask: wanted = 1); the owner sees the request at its
// next fork and offers every lazy half it has, oldest first (offerPending),
// as pushes on its deque. From there everything is as before: thieves steal
// the oldest, the owner pops back what is left, the sleep protocol is told
// of the new jobs and wakes a sleeper if nobody awake can take them. This is
// the demand-driven form of heartbeat scheduling (Acar, Charguéraud and
// Rainey; Spice and chili use a timer): parallelism is exposed where it is
// wanted, and a join nobody wants costs a few plain stores.
//
// The cost is latency. A request is seen only at a fork: a worker running a
// long stretch without joins (a leaf of the tree) offers nothing until it
// forks again. Two things bound that. The first levels of every tree are
// offered at once (depth < eagerDepth; an idle worker starts a task or a
// stolen half at depth 0), so a coarse fork-join, whose few joins sit at
// the top, is offered as before; only a tree at least eagerDepth levels
// deep has lazy joins, and there a leaf is one of very many. And a request
// makes the owner offer all its lazy halves, not one: thieves then find the
// whole tree's unstarted parts in the deque, as an eager deque would hold
// them, and come back without asking while they last. Measured with leaves
// of 20 µs under 12 levels of joins, the pool's time is the eager pool's
// (BenchmarkCoarseLeaves, bench/results/join-lazy-amd64.txt).
//
// Nothing is ever lost or run twice: a lazy half is in no deque, so only its
// owner can run it, and the owner's join runs it when the first half
// returns (or unwinds). A request that is missed, late or stale changes only
// who runs a half.
//
// Invariant: every job in a worker's deque is older than every lazy frame
// it has. offerPending pushes them all, oldest first; a new fork is the
// newest frame; an eager fork is shallower than eagerDepth, so no lazy
// frame is below it; and a scope's Spawn first offers the lazy frames. So
// the deque stays ordered by age, as the waits' isolation rules assume
// (wait.go, rules 1 and 2): a joiner whose half was stolen has no lazy
// frame below it, because offering that half offered them too.
//
// A worker that waits on another pool (waitCall) or blocks (Block) offers
// its lazy halves first, so that the worker added in its place, or the
// goroutine it is lent to at its pool's cap, may run them, as it would run
// them had they been pushed.
//
// A worker in an isolated wait (a joiner on its thief, a scope's owner on a
// worker running one of its tasks: wait.go) may take work from one worker
// only, and sleeps on its own latch outside the counters, which the wakes
// that follow a push do not reach. So it asks with askFrom, which also
// leaves its index in the victim's asker slot, and the victim, once it has
// pushed or offered work, nudges it (sleep.Nudge): the sleeper wakes with its
// latch unset, steals, and sleeps again if the work went elsewhere.

// eagerDepth is the join depth below which a fork always offers its half at
// once. Depth grows by one to three per level of joins (join.go), so the
// first four to eight levels of a tree, up to 256 halves, are offered
// eagerly: more than a pool of any size takes at its start, and a negligible
// share of the joins of a fine-grained tree.
const eagerDepth = 8

// offer is the slow side of a fork at depth d, whose job is in f: at a depth
// under eagerDepth it pushes the half; deeper, somebody asked for work, and
// every lazy half is offered, this one included.
//
// name is the join that forks (Join, JoinArgs), for the panic of a worker
// kept past its task and used after its pool closed: its depth is 0, so its
// first fork always comes here (and leaves the depth as it found it).
func (w *Worker) offer(f *frame, d uint32, name string) {
	if w.deque == nil {
		w.depth = d
		w.checkLive(name)
	}
	if d < eagerDepth {
		// No frame below d is lazy: every lazy frame is at eagerDepth
		// or deeper, and a fork at d is shallower than every frame of
		// the tree still running.
		w.push(frameRef(w.index, d))
		return
	}
	f.lazy = true
	w.lazyLow = min(w.lazyLow, d)
	w.offerPending()
}

// offerPending pushes the ref of every lazy frame below the worker's depth,
// oldest first, and tells the sleep protocol about them. It clears the
// worker's request (wanted) first: a request made after the clear is seen at
// the next fork.
func (w *Worker) offerPending() {
	if w.wanted.Load() != 0 {
		w.wanted.Store(0)
	}
	n := 0
	wasEmpty := false
	for d := w.lazyLow; d < w.depth; d++ {
		f := w.frames.peek(d)
		if f == nil || !f.lazy {
			continue
		}
		if n == 0 {
			wasEmpty = w.deque.IsEmpty() // before the first push, and only if there is one
		}
		f.lazy = false
		ref := frameRef(w.index, d)
		if !w.deque.TryPush(ref) {
			w.deque.Push(ref)
		}
		n++
	}
	w.lazyLow = w.depth
	if n == 0 {
		return
	}
	w.stats.add(&w.stats.offered, uint64(n))
	w.shared = true
	if !w.alone {
		w.pool.sleep.NewInternalJobs(n, wasEmpty)
		w.nudgeAsker()
	}
}

// offerBeforePush offers the lazy frames before the worker pushes a job of
// another kind (a scope's task), so that the deque stays ordered by age.
func (w *Worker) offerBeforePush() {
	if w.lazyLow < w.depth {
		w.offerPending()
	}
}

// ask tells v that the calling worker wants work and found v's deque empty:
// v offers its lazy halves at its next fork. It writes v's request line only
// when the request is not already there.
func (v *Worker) ask() {
	if v.wanted.Load() == 0 {
		v.wanted.Store(1)
	}
}

// askFrom is ask from a worker in an isolated wait that may take work from
// v alone: it also leaves its index in v.asker, so that v nudges it out of
// its latch sleep when it pushes work (nudgeAsker). The counters' wakes do
// not reach a worker asleep on its latch.
func (v *Worker) askFrom(waiter *Worker) {
	v.ask()
	if a := int32(waiter.index) + 1; v.asker.Load() != a {
		v.asker.Store(a)
	}
}

// nudgeAsker wakes the isolated waiter that asked for work, if any, after
// the worker pushed some: if it sleeps on its latch it searches again.
func (w *Worker) nudgeAsker() {
	if w.asker.Load() == 0 {
		return
	}
	if a := w.asker.Swap(0); a != 0 {
		w.pool.sleep.Nudge(int(a - 1))
	}
}
