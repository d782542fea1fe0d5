package blitzprom

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"go.uber.org/goleak"

	"github.com/blitz-go/blitz"
)

// fixedSub is a SubSource with fixed counters.
type fixedSub blitz.SubStats

func (f fixedSub) Stats() blitz.SubStats { return blitz.SubStats(f) }

func TestNewSubCollectorPanicsOnNilSource(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("NewSubCollector(nil, ...) did not panic")
		}
	}()
	NewSubCollector(nil, "x")
}

// TestSubCollectorExportsEveryField gives every field of SubStats its own
// value, so that a series reading the wrong field shows.
func TestSubCollectorExportsEveryField(t *testing.T) {
	c := NewSubCollector(fixedSub{
		Limit: 1, Capacity: 2, Queued: 3, Running: 4, Submitted: 5,
		Completed: 6, Panics: 7, Rejected: 8, Abandoned: 9, Inline: 10,
	}, "thumbs")
	if n := testutil.CollectAndCount(c); n != 10 {
		t.Errorf("CollectAndCount = %d series, want 10", n)
	}
	if problems, err := testutil.CollectAndLint(c); err != nil || len(problems) > 0 {
		t.Errorf("CollectAndLint: %v, %v", problems, err)
	}
	want := `
# HELP blitz_sub_capacity Tasks of the Sub waiting for a slot, at most (SubStats.Capacity).
# TYPE blitz_sub_capacity gauge
blitz_sub_capacity{sub="thumbs"} 2
# HELP blitz_sub_inline_calls_total Run, Do, DoContext and TryDo calls that ran without a slot of their own: from tasks of the parent pool, or from work a task of the Sub waits for (SubStats.Inline).
# TYPE blitz_sub_inline_calls_total counter
blitz_sub_inline_calls_total{sub="thumbs"} 10
# HELP blitz_sub_limit Tasks of the Sub under way at once, at most (SubStats.Limit).
# TYPE blitz_sub_limit gauge
blitz_sub_limit{sub="thumbs"} 1
# HELP blitz_sub_task_panics_total Tasks of the Sub that panicked (SubStats.Panics).
# TYPE blitz_sub_task_panics_total counter
blitz_sub_task_panics_total{sub="thumbs"} 7
# HELP blitz_sub_tasks_abandoned_total Submissions that gave up waiting for room in the Sub's full queue when their context ended (SubStats.Abandoned).
# TYPE blitz_sub_tasks_abandoned_total counter
blitz_sub_tasks_abandoned_total{sub="thumbs"} 9
# HELP blitz_sub_tasks_completed_total Tasks of the Sub finished, panicked and withdrawn ones included (SubStats.Completed).
# TYPE blitz_sub_tasks_completed_total counter
blitz_sub_tasks_completed_total{sub="thumbs"} 6
# HELP blitz_sub_tasks_queued Tasks of the Sub accepted and not started yet (SubStats.Queued).
# TYPE blitz_sub_tasks_queued gauge
blitz_sub_tasks_queued{sub="thumbs"} 3
# HELP blitz_sub_tasks_rejected_total Submissions the Sub refused because its queue was full (SubStats.Rejected).
# TYPE blitz_sub_tasks_rejected_total counter
blitz_sub_tasks_rejected_total{sub="thumbs"} 8
# HELP blitz_sub_tasks_running Tasks of the Sub running now (SubStats.Running).
# TYPE blitz_sub_tasks_running gauge
blitz_sub_tasks_running{sub="thumbs"} 4
# HELP blitz_sub_tasks_submitted_total Tasks the Sub accepted (SubStats.Submitted).
# TYPE blitz_sub_tasks_submitted_total counter
blitz_sub_tasks_submitted_total{sub="thumbs"} 5
`
	if err := testutil.CollectAndCompare(c, strings.NewReader(want)); err != nil {
		t.Error(err)
	}
}

// TestSubCollectorExportsSubStats drives a real Sub into a known state (one
// task panicked, one call ran inline, one task running, one queued, one
// refused) and checks the series, beside a Collector of the parent in one
// pedantic registry, then again after the pool drains.
func TestSubCollectorExportsSubStats(t *testing.T) {
	defer goleak.VerifyNone(t)
	// WithMaxWorkers(1): the blocked worker must not be replaced.
	p, err := blitz.New(blitz.WithWorkers(1), blitz.WithMaxWorkers(1), blitz.WithParking(blitz.ParkingPortable))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	s, err := p.Sub(1, 1)
	if err != nil {
		t.Fatal(err)
	}
	c := NewSubCollector(s, "thumbs")
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(NewCollector(p, "images"), c)

	_, err = blitz.TryDo(context.Background(), s, func(*blitz.Worker) int { panic("boom") })
	if !errors.Is(err, blitz.ErrPanic) {
		t.Fatalf("TryDo of a panicking task: %v, want ErrPanic", err)
	}
	// Do from a task of the parent runs inline, without a slot.
	if got := blitz.Do(p, func(*blitz.Worker) int {
		return blitz.Do(s, func(*blitz.Worker) int { return 7 })
	}); got != 7 {
		t.Fatalf("Do from a task of the parent = %d, want 7", got)
	}
	// One task takes the only slot; it starts once the panicked task has
	// freed the slot and been counted. The next waits in the queue of one,
	// the one after is refused.
	started, release := make(chan struct{}), make(chan struct{})
	if err := s.TryGo(func(*blitz.Worker) { close(started); <-release }); err != nil {
		t.Fatal(err)
	}
	select {
	case <-started:
	case <-time.After(watchdog):
		dumpFail(t, "the blocking task to start")
	}
	if err := s.TryGo(func(*blitz.Worker) {}); err != nil {
		t.Fatalf("TryGo into the empty queue: %v", err)
	}
	if err := s.TryGo(func(*blitz.Worker) {}); !errors.Is(err, blitz.ErrQueueFull) {
		t.Fatalf("TryGo into the full queue: %v, want ErrQueueFull", err)
	}
	want := `
# HELP blitz_sub_capacity Tasks of the Sub waiting for a slot, at most (SubStats.Capacity).
# TYPE blitz_sub_capacity gauge
blitz_sub_capacity{sub="thumbs"} 1
# HELP blitz_sub_inline_calls_total Run, Do, DoContext and TryDo calls that ran without a slot of their own: from tasks of the parent pool, or from work a task of the Sub waits for (SubStats.Inline).
# TYPE blitz_sub_inline_calls_total counter
blitz_sub_inline_calls_total{sub="thumbs"} 1
# HELP blitz_sub_limit Tasks of the Sub under way at once, at most (SubStats.Limit).
# TYPE blitz_sub_limit gauge
blitz_sub_limit{sub="thumbs"} 1
# HELP blitz_sub_task_panics_total Tasks of the Sub that panicked (SubStats.Panics).
# TYPE blitz_sub_task_panics_total counter
blitz_sub_task_panics_total{sub="thumbs"} 1
# HELP blitz_sub_tasks_abandoned_total Submissions that gave up waiting for room in the Sub's full queue when their context ended (SubStats.Abandoned).
# TYPE blitz_sub_tasks_abandoned_total counter
blitz_sub_tasks_abandoned_total{sub="thumbs"} 0
# HELP blitz_sub_tasks_completed_total Tasks of the Sub finished, panicked and withdrawn ones included (SubStats.Completed).
# TYPE blitz_sub_tasks_completed_total counter
blitz_sub_tasks_completed_total{sub="thumbs"} 1
# HELP blitz_sub_tasks_queued Tasks of the Sub accepted and not started yet (SubStats.Queued).
# TYPE blitz_sub_tasks_queued gauge
blitz_sub_tasks_queued{sub="thumbs"} 1
# HELP blitz_sub_tasks_rejected_total Submissions the Sub refused because its queue was full (SubStats.Rejected).
# TYPE blitz_sub_tasks_rejected_total counter
blitz_sub_tasks_rejected_total{sub="thumbs"} 1
# HELP blitz_sub_tasks_running Tasks of the Sub running now (SubStats.Running).
# TYPE blitz_sub_tasks_running gauge
blitz_sub_tasks_running{sub="thumbs"} 1
# HELP blitz_sub_tasks_submitted_total Tasks the Sub accepted (SubStats.Submitted).
# TYPE blitz_sub_tasks_submitted_total counter
blitz_sub_tasks_submitted_total{sub="thumbs"} 3
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want),
		"blitz_sub_capacity", "blitz_sub_inline_calls_total", "blitz_sub_limit", "blitz_sub_task_panics_total",
		"blitz_sub_tasks_abandoned_total", "blitz_sub_tasks_completed_total", "blitz_sub_tasks_queued",
		"blitz_sub_tasks_rejected_total", "blitz_sub_tasks_running", "blitz_sub_tasks_submitted_total"); err != nil {
		t.Error(err)
	}

	close(release)
	if err := p.Close(); err != nil { // closes s too, after its tasks
		t.Fatal(err)
	}
	want = `
# HELP blitz_sub_tasks_completed_total Tasks of the Sub finished, panicked and withdrawn ones included (SubStats.Completed).
# TYPE blitz_sub_tasks_completed_total counter
blitz_sub_tasks_completed_total{sub="thumbs"} 3
# HELP blitz_sub_tasks_queued Tasks of the Sub accepted and not started yet (SubStats.Queued).
# TYPE blitz_sub_tasks_queued gauge
blitz_sub_tasks_queued{sub="thumbs"} 0
# HELP blitz_sub_tasks_running Tasks of the Sub running now (SubStats.Running).
# TYPE blitz_sub_tasks_running gauge
blitz_sub_tasks_running{sub="thumbs"} 0
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want),
		"blitz_sub_tasks_completed_total", "blitz_sub_tasks_queued", "blitz_sub_tasks_running"); err != nil {
		t.Error(err)
	}
}

// TestSubCollectorsOfTwoPoolsShareAName registers two Subs named alike,
// each through a registerer that adds its pool's label, as the package doc
// shows, beside the two pools' Collectors.
func TestSubCollectorsOfTwoPoolsShareAName(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	for i, pool := range []string{"images", "videos"} {
		wrapped := prometheus.WrapRegistererWith(prometheus.Labels{"pool": pool}, reg)
		wrapped.MustRegister(NewSubCollector(fixedSub{Limit: i + 1}, "thumbs"))
		reg.MustRegister(NewCollector(fixedPool{Workers: i + 2}, pool))
	}
	want := `
# HELP blitz_sub_limit Tasks of the Sub under way at once, at most (SubStats.Limit).
# TYPE blitz_sub_limit gauge
blitz_sub_limit{pool="images",sub="thumbs"} 1
blitz_sub_limit{pool="videos",sub="thumbs"} 2
# HELP blitz_workers Number of workers of the pool.
# TYPE blitz_workers gauge
blitz_workers{pool="images"} 2
blitz_workers{pool="videos"} 3
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "blitz_sub_limit", "blitz_workers"); err != nil {
		t.Error(err)
	}
}

// fixedPool is a Source with fixed counters.
type fixedPool blitz.Stats

func (f fixedPool) Stats() blitz.Stats { return blitz.Stats(f) }
