package blitz

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hookLog records the start and exit hooks of each worker, and checks as it
// goes that they alternate (start, exit, start, ...) and run on the
// worker's own goroutine.
type hookLog struct {
	t      *testing.T
	mu     sync.Mutex
	events map[int][]string
	active map[int]bool
}

func newHookLog(t *testing.T) *hookLog {
	return &hookLog{t: t, events: map[int][]string{}, active: map[int]bool{}}
}

func (l *hookLog) start(id int) {
	w := currentWorker()
	assert.True(l.t, w != nil && w.Index() == id, "start hook of worker %d not on its goroutine", id)
	l.mu.Lock()
	defer l.mu.Unlock()
	assert.False(l.t, l.active[id], "worker %d started twice without an exit", id)
	l.active[id] = true
	l.events[id] = append(l.events[id], "start")
}

func (l *hookLog) exit(id int) {
	w := currentWorker()
	assert.True(l.t, w != nil && w.Index() == id, "exit hook of worker %d not on its goroutine", id)
	l.mu.Lock()
	defer l.mu.Unlock()
	assert.True(l.t, l.active[id], "worker %d exited without a start", id)
	l.active[id] = false
	l.events[id] = append(l.events[id], "exit")
}

// count returns the number of starts and exits of worker id.
func (l *hookLog) count(id int) (starts, exits int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, e := range l.events[id] {
		if e == "start" {
			starts++
		} else {
			exits++
		}
	}
	return
}

func (l *hookLog) isActive(id int) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.active[id]
}

// TestWorkerHooks checks the hooks' order on every backend: start before a
// worker runs any work, exit after its last, once each per serving period,
// through grows, shrinks, a Goexit replacement and Close.
func TestWorkerHooks(t *testing.T) {
	for _, k := range testParkings() {
		t.Run(fmt.Sprintf("parking=%v", k), func(t *testing.T) {
			l := newHookLog(t)
			checkActive := func(w *Worker) {
				assert.True(t, l.isActive(w.Index()), "worker %d ran work outside its start and exit hooks", w.Index())
			}
			work := func(p *Pool) {
				for range 4 {
					doW(t, p, func(w *Worker) int {
						JoinAll(w, checkActive, checkActive, checkActive, checkActive)
						checkActive(w)
						return 0
					})
				}
				Broadcast(p, func(w *Worker) int { checkActive(w); return 0 })
			}
			var p *Pool
			// WithMaxWorkers(2): the monitor adds no worker (Resize
			// still may), so the workers that run are those the
			// Resizes asked for; on a loaded machine a worker waiting
			// in a Broadcast or a join can look blocked.
			withPool(t, []Option{WithParking(k), WithWorkers(2), WithMaxWorkers(2), WithWorkerStart(l.start), WithWorkerExit(l.exit)}, func(pp *Pool) {
				p = pp
				// New waits for nothing: a worker may still be starting.
				work(p)
				require.NoError(t, p.Resize(4))
				work(p)
				eventually(t, "the new workers starting", func() bool { return l.isActive(2) && l.isActive(3) })
				require.NoError(t, p.Resize(1))
				allRetired(t, p)
				for id := 1; id < 4; id++ {
					assert.False(t, l.isActive(id), "worker %d retired without its exit hook", id)
				}
				work(p)
				require.NoError(t, p.Resize(3))
				work(p)
				eventually(t, "the workers coming back", func() bool { return l.isActive(1) && l.isActive(2) })
				// A Goexit in a task: the worker's goroutine ends (exit
				// hook) and a new one takes over (start hook).
				s0, e0 := l.count(0)
				s1, e1 := l.count(1)
				s2, e2 := l.count(2)
				assert.True(t, exitsGoroutine(t, func() {
					p.Run(func(*Worker) { runtime.Goexit() })
				}))
				eventually(t, "the replacement starting", func() bool { return p.respawns.Load() == 1 })
				work(p)
				sa, ea := l.count(0)
				sb, eb := l.count(1)
				sc, ec := l.count(2)
				assert.Equal(t, 1, (sa-s0)+(sb-s1)+(sc-s2), "starts after one Goexit")
				assert.Equal(t, 1, (ea-e0)+(eb-e1)+(ec-e2), "exits after one Goexit")
			})
			// After Close: every worker's hooks paired up.
			for id := range 4 {
				s, e := l.count(id)
				assert.Equal(t, s, e, "worker %d: %v", id, l.events[id])
				assert.NotZero(t, s, "worker %d never started", id)
			}
			s3, _ := l.count(3)
			assert.Equal(t, 1, s3, "worker 3 came back though the pool never grew past 3 again")
			assert.GreaterOrEqual(t, len(l.events[1]), 4, "worker 1 did not retire and come back: %v", l.events[1])
		})
	}
}

// TestWorkerHooksPanic: a panic in a hook goes to the panic handler and the
// worker goes on.
func TestWorkerHooksPanic(t *testing.T) {
	var got sync.Map
	var panics atomic.Int64
	handler := func(v any, _ []byte) {
		panics.Add(1)
		got.Store(v, true)
	}
	withPool(t, []Option{WithWorkers(2), WithPanicHandler(handler),
		WithWorkerStart(func(id int) { panic(fmt.Sprintf("start %d", id)) }),
		WithWorkerExit(func(id int) { panic(fmt.Sprintf("exit %d", id)) })}, func(p *Pool) {
		assert.Equal(t, indexes(2), Broadcast(p, index), "a worker did not go on after its start hook panicked")
		eventually(t, "both start panics handled", func() bool { return panics.Load() >= 2 })
	})
	for _, v := range []string{"start 0", "start 1", "exit 0", "exit 1"} {
		_, ok := got.Load(v)
		assert.True(t, ok, "panic %q not handled", v)
	}
}

// TestWorkerHooksCloseAtOnce closes pools right after New (and after a grow
// by Resize), before most of their workers served: every worker that New
// or the grow started runs its start hook and then its exit hook, exactly
// once each, also with only one of the two hooks set. The rare path, a
// worker goroutine that Close stopped before it served, must have run.
func TestWorkerHooksCloseAtOnce(t *testing.T) {
	rounds := 60
	if testing.Short() {
		rounds = 10
	}
	const workers, grown = 3, 5
	for _, k := range testParkings() {
		t.Run(fmt.Sprintf("parking=%v", k), func(t *testing.T) {
			defer verifyNone(t)
			var unserved uint64
			for r := range rounds {
				grow := r%2 == 1
				n := workers
				if grow {
					n = grown
				}
				// Both hooks, then each alone.
				l := newHookLog(t)
				var starts, exits [grown]atomic.Int32
				sets := [][]Option{
					{WithWorkerStart(l.start), WithWorkerExit(l.exit)},
					{WithWorkerStart(func(id int) { starts[id].Add(1) })},
					{WithWorkerExit(func(id int) { exits[id].Add(1) })},
				}
				set := r / 2 % len(sets)
				p, err := New(append([]Option{WithParking(k), WithWorkers(workers)}, sets[set]...)...)
				require.NoError(t, err)
				if grow {
					require.NoError(t, p.Resize(grown))
				}
				within(t, "Close", func() { require.NoError(t, p.Close()) })
				unserved += p.stoppedUnserved.Load()
				for id := range n {
					switch set {
					case 0:
						s, e := l.count(id)
						assert.Equal(t, [2]int{1, 1}, [2]int{s, e}, "round %d: worker %d's starts and exits: %v", r, id, l.events[id])
					case 1:
						assert.EqualValues(t, 1, starts[id].Load(), "round %d: worker %d's starts", r, id)
					case 2:
						assert.EqualValues(t, 1, exits[id].Load(), "round %d: worker %d's exits", r, id)
					}
				}
			}
			assert.NotZero(t, unserved, "no worker was stopped before it served: the rare path never ran")
		})
	}
}
