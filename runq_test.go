package blitz

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/blitz-go/blitz/atomics"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runqTasks returns injTasks whose jobs are seqJob{from}, seqJob{from+1}...
func runqTasks(from, n int) []injTask {
	ts := make([]injTask, n)
	for i := range ts {
		ts[i] = injTask{job: seqJob{from + i}, enq: int64(from + i)}
	}
	return ts
}

// TestRunqHeadLayout pins the packed head: steal in the high half, real in
// the low half, and the two words on lines of their own (the slots are a
// ring of their own, runq.ring).
func TestRunqHeadLayout(t *testing.T) {
	h := runqHead(0xdeadbeef, 0x12345678)
	assert.Equal(t, uint64(0xdeadbeef_12345678), h)
	steal, real := runqSplit(h)
	assert.Equal(t, uint32(0xdeadbeef), steal)
	assert.Equal(t, uint32(0x12345678), real)
	steal, real = runqSplit(runqHead(^uint32(0), 0))
	assert.Equal(t, ^uint32(0), steal, "no carry between the halves")
	assert.Zero(t, real)

	var q runq
	line := uintptr(atomics.CacheLineSize)
	assert.GreaterOrEqual(t, unsafe.Offsetof(q.head), line, "head is a line away from what precedes the queue")
	assert.GreaterOrEqual(t, unsafe.Sizeof(q)-unsafe.Offsetof(q.tail), line, "what follows the queue is a line away from head and tail")
	assert.Equal(t, 2*injBatchMax, runqSize, "a batch fits beside a half being copied")
}

// TestRunqOwner pins the owner's side: FIFO pops, room, and positions that
// wrap around the ring and around uint32.
func TestRunqOwner(t *testing.T) {
	for _, start := range []uint32{0, ^uint32(0) - 40} {
		var q runq
		q.head.Store(runqHead(start, start))
		q.tail.Store(start)
		next := 0
		for round := range 10 {
			require.Equal(t, runqSize, q.room(), "round %d: empty", round)
			_, ok := q.pop()
			require.False(t, ok, "empty")
			n := 1 + round*7%injBatchMax
			ts := runqTasks(next, n)
			q.pushBatch(ts)
			for i := range ts {
				require.Nil(t, ts[i].job, "pushBatch clears its input")
			}
			require.Equal(t, runqSize-n, q.room())
			require.Equal(t, n, q.len())
			for k := range n {
				it, ok := q.pop()
				require.True(t, ok)
				require.Equal(t, next+k, it.job.(seqJob).n, "FIFO")
				require.EqualValues(t, next+k, it.enq)
			}
			next += n
		}
		for i := range q.slots() {
			require.Nil(t, q.slots()[i].job, "every slot cleared once taken")
		}
	}
}

// TestRunqSteal pins a steal: the older half rounded up, at most max; the
// oldest returned, the rest appended to the thief's queue in order; the
// victim keeps the newer half.
func TestRunqSteal(t *testing.T) {
	for _, tc := range []struct{ queued, max, took int }{
		{0, 32, 0}, {1, 32, 1}, {2, 32, 1}, {3, 32, 2}, {31, 32, 16}, {32, 32, 16}, {32, 5, 5}, {7, 1, 1},
	} {
		var v, th runq
		v.pushBatch(runqTasks(0, tc.queued))
		it, ok := v.stealHalf(&th, tc.max)
		if tc.took == 0 {
			require.False(t, ok, "%+v", tc)
			continue
		}
		require.True(t, ok, "%+v", tc)
		require.Equal(t, 0, it.job.(seqJob).n, "%+v: the oldest", tc)
		require.Equal(t, tc.took-1, th.len(), "%+v: parked with the thief", tc)
		for k := 1; k < tc.took; k++ {
			it, ok := th.pop()
			require.True(t, ok)
			require.Equal(t, k, it.job.(seqJob).n, "%+v: in order", tc)
		}
		require.Equal(t, tc.queued-tc.took, v.len(), "%+v: left to the victim", tc)
		for k := tc.took; k < tc.queued; k++ {
			it, ok := v.pop()
			require.True(t, ok)
			require.Equal(t, k, it.job.(seqJob).n, "%+v", tc)
		}
		steal, real := runqSplit(v.head.Load())
		require.Equal(t, steal, real, "%+v: no steal under way", tc)
	}
}

// TestRunqStealUnderWay walks the interleavings a steal allows, step by
// step: while a thief copies its claimed run, the owner pops after it and
// keeps out of its slots (room), a second thief is refused, and the end of
// the steal frees the run wherever the owner's pops took real.
func TestRunqStealUnderWay(t *testing.T) {
	var q runq
	q.pushBatch(runqTasks(0, 8))
	real, n, ok := q.claimHalf(32)
	require.True(t, ok)
	require.EqualValues(t, 0, real)
	require.EqualValues(t, 4, n)
	_, _, ok = q.claimHalf(32)
	require.False(t, ok, "one steal at a time")
	require.Equal(t, runqSize-8, q.room(), "the claimed run still occupies its slots")
	for k := 4; k < 8; k++ {
		it, ok := q.pop()
		require.True(t, ok)
		require.Equal(t, k, it.job.(seqJob).n, "the owner pops after the claimed run")
	}
	_, ok = q.pop()
	require.False(t, ok)
	require.Equal(t, runqSize-8, q.room(), "until the steal ends")
	q.pushBatch(runqTasks(8, runqSize-8))
	require.Zero(t, q.room(), "a full ring beside the claimed run")
	for i := range n {
		s := &q.slots()[(real+i)%runqSize]
		require.Equal(t, int(i), s.job.(seqJob).n, "the claimed run is intact")
		*s = injTask{}
	}
	q.endSteal()
	steal, r := runqSplit(q.head.Load())
	require.Equal(t, steal, r)
	require.EqualValues(t, 8, r)
	require.Equal(t, 8, q.room(), "the run's slots and the popped ones are free again")
}

// TestRunqStorm runs an owner that pushes batches and pops against thieves
// that steal halves into queues of their own and pop them, under -race:
// every task is taken exactly once. One more thief steals slowly: it
// claims a run (claimHalf), takes its tasks, yields, and only then ends
// its steal (endSteal), so that the owner's pops land while a steal is
// under way on any number of Ps. The storm repeats (at most 50 rounds)
// until that happened, and asserts that it did.
func TestRunqStorm(t *testing.T) {
	total := 200000
	if testing.Short() {
		total = 20000
	}
	var overlapped, stolen int64
	rounds := 0
	for (overlapped == 0 || stolen == 0) && rounds < 50 {
		rounds++
		o, s := runqStormRound(t, total)
		overlapped, stolen = overlapped+o, stolen+s
	}
	assert.Positive(t, overlapped, "the owner popped while a steal was under way")
	assert.Positive(t, stolen, "stealHalf took tasks")
	t.Logf("owner pops during a steal: %d, steals by stealHalf: %d, in %d rounds", overlapped, stolen, rounds)
}

// runqStormRound is one round of TestRunqStorm over total tasks; it returns
// how many of the owner's pops found a steal under way, and how many
// steals stealHalf made.
func runqStormRound(t *testing.T, total int) (overlaps, steals int64) {
	taken := make([]atomic.Int32, total)
	var owner runq
	var done, overlapped, stolen atomic.Int64
	take := func(it injTask) {
		taken[it.job.(seqJob).n].Add(1)
		done.Add(1)
	}
	// One fast thief per other P, so that the owner and the thieves run
	// at once (spinning thieves beyond the Ps would take turns with it).
	thieves := min(max(runtime.GOMAXPROCS(0)-1, 1), 3)
	var wg sync.WaitGroup
	wg.Add(thieves + 1)
	for range thieves {
		go func() {
			defer wg.Done()
			var own runq
			for done.Load() < int64(total) {
				if it, ok := own.pop(); ok {
					take(it)
					continue
				}
				if it, ok := owner.stealHalf(&own, own.room()+1); ok {
					stolen.Add(1)
					take(it)
				} else {
					runtime.Gosched() // let the owner run, on one P
				}
			}
		}()
	}
	go func() { // the slow thief
		defer wg.Done()
		for turn := 0; done.Load() < int64(total); turn++ {
			if turn%2 == 1 {
				runtime.Gosched() // every other turn, leave the queue to the others
				continue
			}
			real, n, ok := owner.claimHalf(injBatchMax)
			if !ok {
				runtime.Gosched()
				continue
			}
			for i := range n {
				s := &owner.slots()[(real+i)%runqSize]
				it := *s
				*s = injTask{}
				take(it)
			}
			runtime.Gosched() // the owner pops while this steal is under way
			owner.endSteal()
		}
	}()
	next := 0
	for done.Load() < int64(total) {
		if it, ok := owner.pop(); ok {
			if steal, real := runqSplit(owner.head.Load()); steal != real {
				overlapped.Add(1)
			}
			take(it)
			continue
		}
		if next < total {
			n := min(1+next%injBatchMax, total-next, owner.room())
			owner.pushBatch(runqTasks(next, n))
			next += n
			runtime.Gosched() // let the thieves at it, on one P
		}
	}
	wg.Wait()
	for i := range taken {
		require.EqualValues(t, 1, taken[i].Load(), "task %d", i)
	}
	return overlapped.Load(), stolen.Load()
}
