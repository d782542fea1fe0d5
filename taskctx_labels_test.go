package blitz

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"runtime/trace"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/blitz-go/blitz/internal/testkit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The functions the labelled tasks burn CPU in, one per way of submitting,
// so that a sample's stack says which submission it belongs to. Each is
// kept out of line, so that it is a frame of its own in every sample.

//go:noinline
func spinLabelled(n int) uint64 {
	x := uint64(n) | 1
	for range n {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x
}

var labelSink sync.Map // keeps the spins' results live

//go:noinline
func labelWorkGo(n int) { labelSink.Store("go", spinLabelled(n)) }

//go:noinline
func labelWorkDo(n int) { labelSink.Store("do", spinLabelled(n)) }

//go:noinline
func labelWorkDoContext(n int) { labelSink.Store("docontext", spinLabelled(n)) }

//go:noinline
func labelWorkGoContext(n int) { labelSink.Store("gocontext", spinLabelled(n)) }

//go:noinline
func labelWorkSub(n int) { labelSink.Store("sub", spinLabelled(n)) }

//go:noinline
func labelWorkGroup(n int) { labelSink.Store("group", spinLabelled(n)) }

//go:noinline
func labelWorkNone(n int) { labelSink.Store("none", spinLabelled(n)) }

//go:noinline
func labelWorkHooked(n int) { labelSink.Store("hooked", spinLabelled(n)) }

//go:noinline
func labelWorkForked(n int) { labelSink.Store("forked", spinLabelled(n)) }

// forkLabelled splits n units of work into leaves of about leaf units,
// joining at every level, so that the other workers steal halves.
func forkLabelled(w *Worker, n, leaf int) {
	if n <= leaf {
		labelWorkForked(n)
		return
	}
	Join(w, func(w *Worker) int { forkLabelled(w, n/2, leaf); return 0 },
		func(w *Worker) int { forkLabelled(w, n-n/2, leaf); return 0 })
}

const labelFuncPrefix = "github.com/blitz-go/blitz."

// TestTasksRunUnderSubmitterLabels takes a CPU profile while tasks submitted
// every way from goroutines under pprof labels burn CPU, and checks that
// every sample of a task's function carries its submitter's label: on the
// worker that took the task, on the workers that stole halves of its joins
// (forked), and nowhere else (none: a task submitted without labels carries
// none; hooked: a task without labels runs under the labels a start hook
// gave the worker, and one with labels under those alone). The work doubles
// until every function has samples, and the forked one samples on a thief
// too: no timing decides the outcome.
func TestTasksRunUnderSubmitterLabels(t *testing.T) {
	testkit.SkipIfEmulated(t) // qemu-user delivers no profiling signals to speak of
	p, err := New(WithWorkers(2))
	require.NoError(t, err)
	defer p.Close()
	hooked, err := New(WithWorkers(2), WithWorkerStart(func(int) {
		pprof.SetGoroutineLabels(pprof.WithLabels(context.Background(), pprof.Labels("pool", "hooked")))
	}))
	require.NoError(t, err)
	defer hooked.Close()
	s, err := p.Sub(2, 16)
	require.NoError(t, err)

	funcs := []string{"go", "do", "docontext", "gocontext", "sub", "group", "forked", "none", "hooked", "hookedlabelled"}
	const rounds = 7
	for round, work := 0, 20_000_000; ; round, work = round+1, work*2 {
		var buf bytes.Buffer
		if err := pprof.StartCPUProfile(&buf); err != nil {
			t.Skipf("cannot take a CPU profile: %v", err)
		}
		runLabelledTasks(t, p, hooked, s, work)
		pprof.StopCPUProfile()
		samples, err := testkit.ParseProfile(buf.Bytes())
		require.NoError(t, err)

		seen := map[string]int{}
		stolen := 0
		for _, smp := range samples {
			for _, api := range funcs {
				fn := "labelWork" + map[string]string{
					"go": "Go", "do": "Do", "docontext": "DoContext", "gocontext": "GoContext",
					"sub": "Sub", "group": "Group", "forked": "Forked", "none": "None",
					"hooked": "Hooked", "hookedlabelled": "Go",
				}[api]
				if !smp.HasFunc(labelFuncPrefix + fn) {
					continue
				}
				switch api {
				case "none":
					assert.NotContains(t, smp.Labels, "api", "a task submitted without labels: %v", smp.Funcs)
					seen[api]++
				case "hooked":
					assert.Equal(t, "hooked", smp.Labels["pool"], "a task without labels on a worker its start hook labelled: %v", smp.Funcs)
					assert.NotContains(t, smp.Labels, "api")
					seen[api]++
				case "hookedlabelled", "go":
					// labelWorkGo runs on both pools: told apart by the
					// label, which must be one of the two submitters'.
					got := smp.Labels["api"]
					require.Contains(t, []string{"go", "hookedlabelled"}, got, "labelWorkGo's sample lost its submitter's labels: %v %v", smp.Labels, smp.Funcs)
					assert.NotContains(t, smp.Labels, "pool", "a labelled task runs under its submitter's labels alone")
					if got == api {
						seen[api]++
					}
				default:
					assert.Equal(t, api, smp.Labels["api"], "labels of a sample of %s: %v %v", fn, smp.Labels, smp.Funcs)
					seen[api]++
					if api == "forked" && smp.HasFunc(labelFuncPrefix+"(*Worker).runFrame") {
						stolen++ // a half another worker took
					}
				}
			}
		}
		if t.Failed() {
			return
		}
		missing := []string{}
		for _, api := range funcs {
			if seen[api] == 0 {
				missing = append(missing, api)
			}
		}
		if stolen == 0 {
			missing = append(missing, "forked on a thief")
		}
		if len(missing) == 0 {
			t.Logf("round %d: %d samples; per submission: %v; forked work sampled on thieves: %d", round, len(samples), seen, stolen)
			return
		}
		if round == rounds-1 {
			t.Fatalf("after %d rounds of doubling work, no samples for %v (per submission: %v)", rounds, missing, seen)
		}
	}
}

// runLabelledTasks submits one task of work units each way, each from a
// goroutine under the label api naming the way, and waits for all.
func runLabelledTasks(t *testing.T, p, hooked *Pool, s *Sub, work int) {
	var wg sync.WaitGroup
	labelled := func(api string, f func(ctx context.Context)) {
		wg.Add(1)
		go pprof.Do(context.Background(), pprof.Labels("api", api), func(ctx context.Context) {
			defer wg.Done()
			f(ctx)
		})
	}
	var tasks sync.WaitGroup
	goTask := func(p *Pool, fn func(int)) {
		tasks.Add(1)
		assert.NoError(t, p.Go(func(*Worker) { defer tasks.Done(); fn(work) }))
	}
	labelled("go", func(context.Context) { goTask(p, labelWorkGo) })
	labelled("do", func(context.Context) { Do(p, func(*Worker) int { labelWorkDo(work); return 0 }) })
	labelled("docontext", func(ctx context.Context) {
		_, err := DoContext(ctx, p, func(*Worker) int { labelWorkDoContext(work); return 0 })
		assert.NoError(t, err)
	})
	labelled("gocontext", func(ctx context.Context) {
		tasks.Add(1)
		assert.NoError(t, p.GoContext(ctx, func(*Worker) { defer tasks.Done(); labelWorkGoContext(work) }))
	})
	labelled("sub", func(context.Context) {
		tasks.Add(1)
		assert.NoError(t, s.Go(func(*Worker) { defer tasks.Done(); labelWorkSub(work) }))
	})
	labelled("group", func(ctx context.Context) {
		g, _ := NewGroup(ctx, p)
		g.Go(func(*Worker) error { labelWorkGroup(work); return nil })
		assert.NoError(t, g.Wait())
	})
	labelled("forked", func(context.Context) {
		Do(p, func(w *Worker) int { forkLabelled(w, work, work/64); return 0 })
	})
	labelled("hookedlabelled", func(context.Context) { goTask(hooked, labelWorkGo) })
	goTask(p, labelWorkNone)
	goTask(hooked, labelWorkHooked)
	testkit.Within(t, "the labelled tasks", func() {
		wg.Wait()
		tasks.Wait()
	})
}

// underLabels runs f on a new goroutine under the pprof label id=id and
// waits for it; f gets the goroutine's label set as the pool reads it.
func underLabels(t *testing.T, id string, f func(l profLabels)) {
	t.Helper()
	testkit.Within(t, "a labelled caller", func() {
		pprof.Do(context.Background(), pprof.Labels("id", id), func(context.Context) {
			f(currentLabels())
		})
	})
}

// labelTree forks a join tree of the given depth with scopes of spawns at
// its leaves, and counts the pieces that run under other labels than want
// and those that ran on another worker than root.
func labelTree(w *Worker, depth int, want profLabels, root int, wrong, away *atomic.Int64) {
	check := func(w *Worker) {
		if currentLabels() != want {
			wrong.Add(1)
		}
		if w.index != root {
			away.Add(1)
		}
	}
	check(w)
	if depth == 0 {
		w.Scope(func(s *Scope) {
			for range 3 {
				s.Spawn(func(w *Worker, s *Scope) {
					check(w)
					s.Spawn(func(w *Worker, _ *Scope) { check(w) })
				})
			}
		})
		return
	}
	w.Join(func(w *Worker) { labelTree(w, depth-1, want, root, wrong, away) },
		func(w *Worker) { labelTree(w, depth-1, want, root, wrong, away) })
}

// TestLabelsOfTasks checks that a task runs under the labels of the
// goroutine that submitted it, every way of submitting, and so does what it
// forks, on any worker; that a task submitted without labels runs under
// none, whatever ran on its worker before; and that the workers do not
// keep the labels of the goroutine that made the pool.
func TestLabelsOfTasks(t *testing.T) {
	eachConfig(t, func(t *testing.T, p *Pool) {
		s, err := p.Sub(2, 8)
		require.NoError(t, err)
		defer s.Close()
		var wrong, away atomic.Int64
		tree := func(l profLabels) func(w *Worker) profLabels {
			return func(w *Worker) profLabels {
				labelTree(w, 4, l, w.index, &wrong, &away)
				return currentLabels()
			}
		}
		goSeen := func(submit func(fn func(*Worker)) error) profLabels {
			seen := make(chan profLabels, 1)
			require.NoError(t, submit(func(w *Worker) { seen <- tree(currentLabels())(w) }))
			return <-seen
		}
		underLabels(t, "submitter", func(l profLabels) {
			require.NotNil(t, l)
			ctx := context.Background()
			got := map[string]profLabels{
				"Pool.Go":      goSeen(p.Go),
				"Pool.TryGo":   goSeen(p.TryGo),
				"GoContext":    goSeen(func(fn func(*Worker)) error { return p.GoContext(ctx, fn) }),
				"Sub.Go":       goSeen(s.Go),
				"Sub.TryGo":    goSeen(s.TryGo),
				"Do(p)":        Do(p, tree(l)),
				"Do(s)":        Do(s, tree(l)),
				"Pool.Run":     nil,
				"Sub.Run":      nil,
				"DoContext(p)": nil,
				"TryDo(p)":     nil,
				"DoContext(s)": nil,
				"TryDo(s)":     nil,
				"Group.Go":     nil,
				"Group.TryGo":  nil,
				"Broadcast(1)": nil,
			}
			p.Run(func(w *Worker) { got["Pool.Run"] = tree(l)(w) })
			s.Run(func(w *Worker) { got["Sub.Run"] = tree(l)(w) })
			got["DoContext(p)"], err = DoContext(ctx, p, tree(l))
			assert.NoError(t, err)
			got["TryDo(p)"], err = TryDo(ctx, p, tree(l))
			assert.NoError(t, err)
			got["DoContext(s)"], err = DoContext(ctx, s, tree(l))
			assert.NoError(t, err)
			got["TryDo(s)"], err = TryDo(ctx, s, tree(l))
			assert.NoError(t, err)
			g, _ := NewGroup(ctx, p)
			g.Go(func(w *Worker) error { got["Group.Go"] = tree(l)(w); return nil })
			assert.NoError(t, g.Wait())
			g.TryGo(func(w *Worker) error { got["Group.TryGo"] = tree(l)(w); return nil })
			assert.NoError(t, g.Wait())
			delete(got, "Broadcast(1)")
			for api, seen := range got {
				assert.True(t, seen == l, "%s: the task ran under other labels than its submitter's", api)
			}
		})
		assert.Zero(t, wrong.Load(), "forked pieces that ran under other labels than their task's")

		// Without labels: none, on every worker, after labelled tasks ran
		// there.
		none := func(w *Worker) profLabels {
			labelTree(w, 4, nil, w.index, &wrong, &away)
			return currentLabels()
		}
		assert.Nil(t, doW(t, p, none), "Do")
		assert.Nil(t, goSeenNone(t, p.Go), "Pool.Go")
		assert.Nil(t, Do(s, none), "Do")
		assert.Zero(t, wrong.Load(), "forked pieces of unlabelled tasks that ran under labels")
	})
}

// goSeenNone submits an unlabelled task with submit and returns the labels
// it ran under.
func goSeenNone(t *testing.T, submit func(fn func(*Worker)) error) profLabels {
	seen := make(chan profLabels, 1)
	require.NoError(t, submit(func(*Worker) { seen <- currentLabels() }))
	return <-seen
}

// TestLabelsOfStolenHalf forces the second half of a labelled task's join
// onto another worker (the first half waits until it started) and checks
// that it, and what it forks there, run under the task's labels, and that
// the thief's labels are back to none afterwards.
func TestLabelsOfStolenHalf(t *testing.T) {
	for _, k := range testParkings() {
		t.Run(fmt.Sprintf("parking=%v", k), func(t *testing.T) {
			withPool(t, []Option{WithParking(k), WithWorkers(2)}, func(p *Pool) {
				for i := range 10 {
					var wrong, away atomic.Int64
					underLabels(t, strconv.Itoa(i), func(l profLabels) {
						Do(p, func(w *Worker) int {
							root := w.index
							started := make(chan struct{})
							w.Join(func(*Worker) { <-started }, func(w *Worker) {
								close(started)
								labelTree(w, 3, l, root, &wrong, &away)
							})
							return 0
						})
					})
					require.Zero(t, wrong.Load(), "round %d", i)
					require.NotZero(t, away.Load(), "the stolen half ran on the joiner's worker")
				}
				// Both workers run an unlabelled task at once.
				var both sync.WaitGroup
				both.Add(2)
				seen := make(chan profLabels, 2)
				for range 2 {
					require.NoError(t, p.Go(func(*Worker) {
						both.Done()
						both.Wait()
						seen <- currentLabels()
					}))
				}
				assert.Nil(t, <-seen)
				assert.Nil(t, <-seen)
			})
		})
	}
}

// TestLabelsOfQueuedTasks submits tasks from goroutines of different labels
// into a Sub and a Group whose one slot is held, so that each runs when the
// one before it finishes, submitted (Group) or run (Sub) by another
// goroutine than its submitter: each runs under its own submitter's labels.
func TestLabelsOfQueuedTasks(t *testing.T) {
	withPool(t, []Option{WithWorkers(2)}, func(p *Pool) {
		s, err := p.Sub(1, 8)
		require.NoError(t, err)
		defer s.Close()
		g, _ := NewGroup(context.Background(), p)
		g.SetLimit(1)
		for _, via := range []string{"Sub", "Group"} {
			t.Run("via="+via, func(t *testing.T) {
				release := make(chan struct{})
				held := make(chan struct{})
				hold := func(*Worker) { close(held); <-release }
				if via == "Sub" {
					require.NoError(t, s.Go(hold))
				} else {
					g.Go(func(w *Worker) error { hold(w); return nil })
				}
				<-held
				const n = 4
				var submitted sync.WaitGroup
				var mu sync.Mutex
				want, got := map[int]profLabels{}, map[int]profLabels{}
				for i := range n {
					submitted.Add(1)
					go pprof.Do(context.Background(), pprof.Labels("id", strconv.Itoa(i)), func(context.Context) {
						mu.Lock()
						want[i] = currentLabels()
						mu.Unlock()
						task := func(*Worker) {
							mu.Lock()
							got[i] = currentLabels()
							mu.Unlock()
						}
						if via == "Sub" {
							assert.NoError(t, s.Go(task))
							submitted.Done()
						} else {
							submitted.Done() // Go waits for a slot
							g.Go(func(w *Worker) error { task(w); return nil })
						}
					})
				}
				submitted.Wait()
				close(release)
				if via == "Sub" {
					require.NoError(t, s.Shutdown(context.Background()))
				} else {
					testkit.Within(t, "the group's tasks", func() {
						for {
							mu.Lock()
							k := len(got)
							mu.Unlock()
							if k == n {
								break
							}
							assert.NoError(t, g.Wait())
						}
					})
				}
				mu.Lock()
				defer mu.Unlock()
				require.Len(t, got, n)
				for i := range n {
					assert.True(t, got[i] != nil && got[i] == want[i], "task %d ran under other labels than its submitter's", i)
				}
			})
		}
	})
}

// TestLabelsOfHookedWorkers checks the worker's own labels: none on a pool
// made by a labelled goroutine, and a start hook's where it sets some,
// under which a task without labels runs, and which a labelled task
// replaces for its run only.
func TestLabelsOfHookedWorkers(t *testing.T) {
	var made *Pool
	underLabels(t, "maker", func(profLabels) {
		var err error
		made, err = New(WithWorkers(2))
		require.NoError(t, err)
		made.Run(func(*Worker) {}) // workers at work under the maker
	})
	assert.Nil(t, goSeenNone(t, made.Go), "a worker kept the labels of the goroutine that made its pool")
	require.NoError(t, made.Close())
	var hook sync.Map
	withPool(t, []Option{WithWorkers(1), WithWorkerStart(func(id int) {
		pprof.SetGoroutineLabels(pprof.WithLabels(context.Background(), pprof.Labels("worker", strconv.Itoa(id))))
		hook.Store(id, currentLabels())
	})}, func(p *Pool) {
		base := goSeenNone(t, p.Go)
		h, _ := hook.Load(0)
		require.NotNil(t, base)
		assert.True(t, base == h, "an unlabelled task runs under the labels the start hook set")
		underLabels(t, "task", func(l profLabels) {
			assert.True(t, goSeenLabelled(t, p.Go) == l, "a labelled task runs under its submitter's labels")
		})
		assert.True(t, goSeenNone(t, p.Go) == base, "the worker's own labels come back after a labelled task")
	})
}

// goSeenLabelled submits a task with submit from the calling goroutine and
// returns the labels it ran under.
func goSeenLabelled(t *testing.T, submit func(fn func(*Worker)) error) profLabels {
	return goSeenNone(t, submit)
}

// TestLabelsAcrossPools checks calls from a labelled task into another pool
// (the task's worker waits, or is lent out) and back into its own: the
// work runs under the task's labels; and a task run on the lent worker of
// the waiting one runs under its own submitter's.
func TestLabelsAcrossPools(t *testing.T) {
	withPool(t, []Option{WithWorkers(1)}, func(p *Pool) {
		q, err := New(WithWorkers(1))
		require.NoError(t, err)
		defer q.Close()
		underLabels(t, "outer", func(l profLabels) {
			got := Do(p, func(w *Worker) [4]bool {
				var r [4]bool
				r[0] = Do(q, func(*Worker) profLabels { return currentLabels() }) == l
				v, err := DoContext(context.Background(), q, func(*Worker) profLabels { return currentLabels() })
				r[1] = err == nil && v == l
				// A call into its own pool from the call into q, and the
				// labels back on the task's goroutine.
				r[2] = Do(q, func(*Worker) bool {
					return Do(p, func(*Worker) profLabels { return currentLabels() }) == l
				})
				r[3] = currentLabels() == l
				return r
			})
			assert.Equal(t, [4]bool{true, true, true, true}, got, "Do, DoContext into another pool, back into its own, after")
		})
		// p's worker lent out while its labelled task waits in q: a task
		// of other labels (none) runs on it under those.
		release := make(chan struct{})
		other := make(chan profLabels, 1)
		underLabels(t, "waiting", func(l profLabels) {
			lendCalls.Store(true)
			defer lendCalls.Store(false)
			Do(p, func(w *Worker) int {
				q.Run(func(*Worker) {
					go func() {
						pprof.SetGoroutineLabels(context.Background()) // not the task's
						other <- Do(p, func(*Worker) profLabels { return currentLabels() })
						close(release)
					}()
					<-release
				})
				return 0
			})
		})
		assert.Nil(t, <-other, "a task without labels on a worker lent out by a labelled one")
	})
}

// TestTraceRegionsOfContextTasks takes an execution trace while tasks
// submitted with a context that carries a trace task run, one of them with
// a join half forced onto another worker, and reads it back with go tool
// trace: each task's work shows as regions of type blitz.task in its trace
// task, on the worker that ran it and on the thief, each ended on the
// goroutine that began it.
func TestTraceRegionsOfContextTasks(t *testing.T) {
	testkit.SkipIfEmulated(t)
	gotool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to read the trace with")
	}
	if trace.IsEnabled() {
		t.Skip("a trace is being taken already (go test -trace)")
	}
	file := filepath.Join(t.TempDir(), "trace.out")
	withPool(t, []Option{WithWorkers(2)}, func(p *Pool) {
		f, err := os.Create(file)
		require.NoError(t, err)
		require.NoError(t, trace.Start(f))
		ctx, request := trace.NewTask(context.Background(), "request")
		_, err = DoContext(ctx, p, func(w *Worker) int {
			started := make(chan struct{})
			w.Join(func(*Worker) { <-started }, func(*Worker) { close(started) })
			return 0
		})
		assert.NoError(t, err)
		request.End()
		ctx, fire := trace.NewTask(context.Background(), "fire")
		done := make(chan struct{})
		assert.NoError(t, p.GoContext(ctx, func(*Worker) { close(done) }))
		<-done
		fire.End()
		trace.Stop()
		require.NoError(t, f.Close())
	})
	dump, err := exec.Command(gotool, "tool", "trace", "-d=parsed", file).Output()
	require.NoError(t, err, "go tool trace -d=parsed")

	field := func(line, key string) string {
		for _, f := range strings.Fields(line) {
			if v, ok := strings.CutPrefix(f, key+"="); ok {
				return strings.Trim(v, `"`)
			}
		}
		return ""
	}
	tasks := map[string]string{} // trace task id -> type
	goroutines := map[string]map[string]bool{}
	open := map[string]int{} // goroutine -> regions begun and not ended
	for _, line := range strings.Split(string(dump), "\n") {
		switch {
		case strings.Contains(line, " TaskBegin "):
			tasks[field(line, "ID")] = field(line, "Type")
		case strings.Contains(line, " RegionBegin ") && field(line, "Type") == taskRegionType:
			typ := tasks[field(line, "Task")]
			if goroutines[typ] == nil {
				goroutines[typ] = map[string]bool{}
			}
			goroutines[typ][field(line, "G")] = true
			open[field(line, "G")]++
		case strings.Contains(line, " RegionEnd ") && field(line, "Type") == taskRegionType:
			open[field(line, "G")]--
		}
	}
	assert.Len(t, goroutines["request"], 2, "the DoContext task's regions: on its worker and on the thief of its join's half")
	assert.Len(t, goroutines["fire"], 1, "the GoContext task's region")
	for g, n := range open {
		assert.Zero(t, n, "regions begun and not ended on goroutine %s", g)
	}
}
