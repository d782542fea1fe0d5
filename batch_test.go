package blitz

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/blitz-go/blitz/atomics"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// batchedTasks is the number of submitted tasks that p's workers parked in
// their deques from batches (batch.go).
func batchedTasks(p *Pool) uint64 {
	var n uint64
	for _, w := range p.workerList() {
		n += atomics.LoadAcquire64(&w.stats.batched)
	}
	return n
}

// TestBatchRunsEveryTaskOnce fills the queue of a pool whose workers are all
// held, then lets them go: each worker's first take finds a long queue and
// takes a batch, parks all but one task in its deque, and the workers pop
// and steal them. Every task runs exactly once, Close drains them, Stats
// adds up, and batches of more than one task were taken.
func TestBatchRunsEveryTaskOnce(t *testing.T) {
	n := 2000
	if testing.Short() {
		n = 300
	}
	eachServer(t, []int{2, 4}, nil, func(t *testing.T, p *Pool, workers int) {
		g := newGate()
		defer g.open()
		g.occupy(t, p, workers)
		runs := make([]atomic.Int32, n)
		var wg sync.WaitGroup
		wg.Add(n)
		for i := range n {
			require.NoError(t, p.Go(func(*Worker) { runs[i].Add(1); wg.Done() }))
		}
		require.Equal(t, n, queued(p), "nothing taken while the workers are held")
		g.open()
		within(t, "the batched tasks", wg.Wait)
		for i := range runs {
			require.EqualValues(t, 1, runs[i].Load(), "task %d runs", i)
		}
		assert.Positive(t, batchedTasks(p), "tasks parked from batches")
		eventually(t, "every task finished", func() bool { return p.Stats().Running == 0 })
		st := p.Stats()
		assert.EqualValues(t, n+workers, st.Completed, "Completed")
		assert.EqualValues(t, st.Injected, st.Completed, "Injected")
		assert.Zero(t, st.Queued, "Queued")
	})
}

// TestBatchedTasksAreStolen checks that the tasks a worker parked from a
// batch are not tied to it: the first task of the queue blocks until every
// other task has run, so whichever worker takes it in a batch must have the
// rest of its batch stolen (on one worker this would never finish; here a
// hang fails the test).
func TestBatchedTasksAreStolen(t *testing.T) {
	const n = 64
	eachServer(t, []int{2, 4}, nil, func(t *testing.T, p *Pool, workers int) {
		g := newGate()
		defer g.open()
		g.occupy(t, p, workers)
		var ran atomic.Int64
		others := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(n)
		require.NoError(t, p.Go(func(*Worker) { <-others; wg.Done() }))
		for range n - 1 {
			require.NoError(t, p.Go(func(*Worker) {
				if ran.Add(1) == n-1 {
					close(others)
				}
				wg.Done()
			}))
		}
		g.open()
		within(t, "a blocked task's batch", wg.Wait)
		assert.Positive(t, batchedTasks(p), "tasks parked from batches")
	})
}

// TestBatchParkedBehindALongTask checks that the tasks a worker parked
// from a batch do not wait behind the task it runs while the queue stays
// long. The queue is [X, P1..P31, Y, L1..Ln] behind two held workers: the
// first take is the batch X..P31, whose worker parks P1..P31 and runs X,
// which blocks until they have all run; the other worker's first take
// starts at Y, which waits until X has started (so its batch was parked:
// a taker descheduled between its take and its park cannot let the queue
// drain meanwhile). A worker that looks for work steals half of another's
// run queue before it takes from the injector, so the parked tasks run
// after at most one batch of later tasks; if they waited for the queue,
// X would hold them until every later task had run.
func TestBatchParkedBehindALongTask(t *testing.T) {
	const parked = injBatchMax - 1
	later := 4000
	if testing.Short() {
		later = 1000
	}
	eachServer(t, []int{2}, nil, func(t *testing.T, p *Pool, workers int) {
		g := newGate()
		defer g.open()
		g.occupy(t, p, workers)
		var parkedRan, laterRan, laterAtLast atomic.Int64
		xStarted, allParked := make(chan struct{}), make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(1 + parked + 1 + later)
		require.NoError(t, p.Go(func(*Worker) { close(xStarted); <-allParked; wg.Done() }))
		for range parked {
			require.NoError(t, p.Go(func(*Worker) {
				if parkedRan.Add(1) == parked {
					laterAtLast.Store(laterRan.Load())
					close(allParked)
				}
				wg.Done()
			}))
		}
		require.NoError(t, p.Go(func(*Worker) { <-xStarted; wg.Done() }))
		for range later {
			require.NoError(t, p.Go(func(*Worker) { laterRan.Add(1); wg.Done() }))
		}
		g.open()
		within(t, "the queue", wg.Wait)
		assert.Less(t, laterAtLast.Load(), int64(later/2), "later tasks run before the last parked one")
		assert.Positive(t, batchedTasks(p), "tasks parked from batches")
		t.Logf("later tasks run before the last parked one: %d of %d", laterAtLast.Load(), later)
	})
}

// TestBatchedDoContextWithdrawn withdraws a DoContext task that waits in a
// worker's run queue, parked there from a batch: it never runs, its caller
// gets the withdrawal error, and it still counts as completed once a worker
// takes it. The queue is [X1, X2, D, X3, X4] behind two held workers, X
// blocking: the first take of a queue of 5 on 2 workers is 3 tasks, [X1,
// X2, D]; its worker runs X1 and parks X2 and D, and the other worker
// steals the older half of those, X2, or takes X3 from the queue, so D
// waits in a run queue until its context ends.
func TestBatchedDoContextWithdrawn(t *testing.T) {
	eachServer(t, []int{2}, nil, func(t *testing.T, p *Pool, workers int) {
		g := newGate()
		defer g.open()
		g.occupy(t, p, workers)
		release := make(chan struct{})
		defer func() {
			select {
			case <-release:
			default:
				close(release)
			}
		}()
		blockers := newGate()
		defer blockers.open()
		blocker := func(w *Worker) { blockers.task(w) }
		require.NoError(t, p.Go(blocker))
		require.NoError(t, p.Go(blocker))
		d := p.inj.taken() + 2 // D's position
		ctx, cancel := context.WithCancel(context.Background())
		var ran atomic.Bool
		res := make(chan error, 1)
		go func() {
			_, err := DoContext(ctx, p, func(*Worker) int { ran.Store(true); return 1 })
			res <- err
		}()
		eventually(t, "DoContext queued", func() bool { return queued(p) == 3 })
		for range 2 {
			require.NoError(t, p.Go(blocker))
		}
		g.open()
		blockers.waitStarted(t, workers)
		require.Greater(t, p.inj.taken(), d, "D was taken from the queue in a batch")
		cancel()
		var err error
		within(t, "DoContext withdrawn", func() { err = <-res })
		require.ErrorIs(t, err, context.Canceled)
		require.Contains(t, err.Error(), "withdrawn before it started")
		blockers.open()
		within(t, "Close", func() { require.NoError(t, p.Close()) })
		assert.False(t, ran.Load(), "a withdrawn task never runs")
		st := p.Stats()
		assert.EqualValues(t, st.Injected, st.Completed, "the withdrawn task counts as completed")
		assert.Positive(t, batchedTasks(p), "tasks parked from batches")
	})
}

// TestBatchNotTaken pins where batches are not taken: a pool of one worker
// and a bounded pool, whose capacity counts the tasks not yet started.
func TestBatchNotTaken(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts []Option
	}{
		{"workers=1", []Option{WithWorkers(1), WithMaxWorkers(1)}},
		{"capacity=64", []Option{WithWorkers(2), WithMaxWorkers(2), WithCapacity(64)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			withPool(t, tc.opts, func(p *Pool) {
				g := newGate()
				defer g.open()
				g.occupy(t, p, len(p.workerList()))
				var wg sync.WaitGroup
				wg.Add(64)
				for range 64 {
					require.NoError(t, p.Go(func(*Worker) { wg.Done() }))
				}
				g.open()
				within(t, "tasks", wg.Wait)
				assert.Zero(t, batchedTasks(p), "tasks parked from batches")
			})
		})
	}
}

// TestBatchStormWithClose races producers of every submission kind against
// Close, begun once half the submissions were made, on pools that take
// batches: every accepted task runs exactly once, and batches were taken.
func TestBatchStormWithClose(t *testing.T) {
	producers, each := 4, 400
	if testing.Short() {
		producers, each = 3, 100
	}
	var batched uint64
	eachServer(t, []int{2, 4}, nil, func(t *testing.T, p *Pool, workers int) {
		// Held workers and a queue filled before they go: the first takes
		// are batches, whatever the timing of the rest.
		g := newGate()
		defer g.open()
		g.occupy(t, p, workers)
		total := producers * each
		runs := make([]atomic.Int32, total)
		accepted := make([]atomic.Bool, total)
		var wg sync.WaitGroup
		wg.Add(producers)
		start := make(chan struct{})
		var submitted atomic.Int64
		half := make(chan struct{})
		for pr := range producers {
			go func() {
				defer wg.Done()
				<-start
				for i := pr * each; i < (pr+1)*each; i++ {
					if submitted.Add(1) == int64(total/2) {
						close(half)
					}
					run := func(*Worker) int { runs[i].Add(1); return i }
					var err error
					switch i % 3 {
					case 0:
						err = p.Go(func(w *Worker) { run(w) })
					case 1:
						_, err = TryDo(context.Background(), p, run)
					default:
						ctx, cancel := context.WithCancel(context.Background())
						if i%2 == 0 {
							cancel()
						}
						var v int
						v, err = DoContext(ctx, p, run)
						cancel()
						if err == nil && v != i {
							t.Errorf("DoContext %d returned %d", i, v)
						}
						if errors.Is(err, context.Canceled) {
							continue
						}
					}
					if err == nil {
						accepted[i].Store(true)
					} else if !errors.Is(err, ErrClosed) {
						t.Errorf("task %d: %v", i, err)
					}
				}
			}()
		}
		for range 2 * workers {
			require.NoError(t, p.Go(func(*Worker) {}))
		}
		close(start)
		g.open()
		closed := make(chan error, 1)
		go func() { <-half; closed <- p.Close() }()
		within(t, "producers and Close", func() { wg.Wait(); require.NoError(t, <-closed) })
		for i := range runs {
			r := runs[i].Load()
			if accepted[i].Load() {
				require.EqualValues(t, 1, r, "accepted task %d runs once", i)
			} else {
				require.LessOrEqual(t, r, int32(1), "task %d", i)
			}
		}
		st := p.Stats()
		assert.EqualValues(t, st.Injected, st.Completed, "drained")
		batched += batchedTasks(p)
	})
	require.Positive(t, batched, "tasks parked from batches")
	t.Logf("tasks parked from batches: %d", batched)
}

// TestInjectorPopBatch pins popBatch: oldest first across calls, at most
// the length over share plus one and the buffer's size, never past a claim
// not yet written, never across a ring's end, and a lone task alone.
func TestInjectorPopBatch(t *testing.T) {
	var q injector
	q.init(0)
	var out [injBatchMax]injTask
	seq := func(k int) int { return out[k].job.(seqJob).n }

	require.Zero(t, q.popBatch(out[:], 2), "empty queue")
	testPush(&q, seqJob{0})
	require.Equal(t, 1, q.popBatch(out[:], 2), "a lone task")
	require.Equal(t, 0, seq(0))

	next := 1
	for range 9 {
		testPush(&q, seqJob{next})
		next++
	}
	// 9 queued, share 2: 9/2+1 = 5.
	require.Equal(t, 5, q.popBatch(out[:], 2))
	for k := range 5 {
		require.Equal(t, 1+k, seq(k), "oldest first")
	}
	// 4 left, share 1: all of them.
	require.Equal(t, 4, q.popBatch(out[:], 1))
	require.Equal(t, 6, seq(0))
	require.Zero(t, q.len())

	// A claim not yet written ends the batch; its successors wait.
	testPush(&q, seqJob{next})
	pos, b, r := q.tryClaim()
	require.Equal(t, claimOK, r)
	testPush(&q, seqJob{next + 2})
	require.Equal(t, 1, q.popBatch(out[:], 1), "stops at the unwritten claim")
	require.Equal(t, next, seq(0))
	require.Zero(t, q.popBatch(out[:], 1), "the oldest is unwritten")
	q.publish(pos, b, injTask{job: seqJob{next + 1}, enq: 0})
	require.Equal(t, 2, q.popBatch(out[:], 1))
	require.Equal(t, next+1, seq(0))
	require.Equal(t, next+2, seq(1))
	next += 3

	// Up to a ring's end, and at most the buffer's size: fill the ring
	// (its slots wrap around), queue more, which seal it and go to the
	// next ring, and take all but three of the first ring's tasks.
	first := q.headRing.Load()
	for q.len() != len(first.slots) {
		testPush(&q, seqJob{next})
		next++
	}
	for range 2 * injBatchMax {
		testPush(&q, seqJob{next})
		next++
	}
	require.True(t, first != q.tailRing.Load(), "the full ring was sealed")
	for q.len() != 3+2*injBatchMax {
		require.Equal(t, 1, q.popBatch(out[:], uint64(q.len()+1)))
	}
	require.Equal(t, 3, q.popBatch(out[:], 1), "the rest of the ring")
	require.Equal(t, injBatchMax, q.popBatch(out[:], 1), "a full buffer")
	require.Equal(t, 4, q.popBatch(out[:4], 1), "a shorter buffer")
	require.Equal(t, injBatchMax-4, q.len())
	require.True(t, first != q.headRing.Load(), "the consumers moved to the next ring")
	for i := range out {
		out[i] = injTask{}
	}
}
