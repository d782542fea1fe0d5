package blitz

import (
	"runtime"
	"runtime/metrics"
	"sync/atomic"
	"time"

	"github.com/blitz-go/blitz/atomics"
)

// Blocked workers.
//
// A server's tasks block: on a database or RPC call, a file, a lock, a
// channel, another task. A worker whose task blocks serves nobody until the
// task returns, and a pool of GOMAXPROCS workers whose tasks all block runs
// nothing while its queue grows; tasks that wait for tasks queued behind
// them wait for good. Go's scheduler meets the same problem with threads
// blocked in system calls: sysmon sees a P held by a thread in a syscall
// for a whole tick and hands the P to another thread. The pool does the
// same with workers, through a monitor that runs only while the pool
// works.
//
// Vocabulary. A worker is busy while it runs a job (Worker.execute) or a
// caller runs as it (route.go): its started count (stats.executed plus
// stats.callerRuns) is ahead of its finished count (stats.finished), both
// written by the worker's goroutine with release stores and loaded by the
// monitor with acquire loads. It is stuck when it is busy and neither count
// moved since the monitor's previous tick: it has been in the same job for
// a whole tick. Go 1.26's runtime/metrics counts the goroutines running and
// runnable (the Ps in _Prunning, the run queues); a busy worker that is
// neither is blocked. The monitor cannot tell which goroutines are its
// workers, so it takes every running or runnable goroutine, but itself and
// the idle workers that are awake (sleep.AwakeIdle: searching, yielding)
// and the workers parked on ParkingSpin (a spinning park is a running
// goroutine: spinParked), as a busy worker that is not blocked:
//
//	blocked = min(candidates, busy - (running - 1 + runnable - awakeIdle - spinning))
//
// Other goroutines of the program only make it see fewer blocked workers,
// never more.
//
// What the monitor does. Each tick (Pool.monitorTick, under resizeMu):
//
//  1. It reads every active worker's two counts and finds the busy, stuck
//     and idle ones, and what waits for a worker: the injector's tasks,
//     the run queues' and whether a stealable deque holds a job. A stuck
//     worker (or one blocked in a call: Worker.blocking) whose run queue or
//     stealable deque holds work, tasks of a batch or join halves that only
//     a thief can run now, it names for the thieves (Pool.stuck, one per
//     tick, in turn) and wakes a sleeper to try it: in a pool grown past
//     its sweep (steal.go) a thief's sample of victims finds it by chance
//     only, and a chain of tasks parked behind a blocked one took seconds.
//  2. Who the candidates are depends on what waits. Submitted tasks: every
//     busy worker, stuck or not (tasks that block for less than a tick,
//     1 ms sleeps under 10 ms ticks, move the counts at every tick and are
//     never stuck, yet hold their workers nearly all the time); the
//     estimate must be positive on two ticks in a row, the second at
//     monitorMin, since a worker parked in a GC assist at one tick is
//     rarely parked at the next; and the queue must have stalled: since
//     the previous tick the workers started fewer jobs than waited then
//     (.NET's thread pool injects threads on the same sign, queued work
//     that makes no progress). A worker caught in a system call or a GC
//     assist while the tasks it would take next are taken within the tick
//     is not a reason to add one. Only forked jobs (join halves, spawns):
//     workers stuck for monitorStuckTicks ticks outside an isolated wait
//     (a joiner parks while its fork-join's other workers run it, and a
//     fork-join's long CPU-bound parts are stuck too), on monitorStuckTicks
//     ticks in a row, none of which saw a GC cycle end (a GC assist parks a
//     running worker; a fork-join that allocates took one for blocked).
//  3. If some candidate is blocked, it adds as many workers as
//     tasks wait, up to the pool's cap (WithMaxWorkers): a plain goroutine
//     per task is what the program would have had without the pool, and
//     adding one worker per blocked worker (Go's one-for-one hand-off)
//     takes a tick per doubling, milliseconds that a burst of 200 blocking
//     tasks on two workers would wait. It makes them in doubling steps,
//     started as they are made, and stops where the tasks still waiting are
//     fewer (Pool.addForBlocked). The added workers take the queued
//     tasks, steal what the blocked workers' run queues and deques hold,
//     and go idle like any other.
//     A pool that grew so, and has not shrunk back, runs tasks that
//     block: there a tick that finds submitted tasks waiting, as the one
//     before did, while no worker is idle, adds a worker for each of them
//     without the estimate. Under CPU saturation the estimate cannot see
//     its blocked workers: the program's runnable goroutines (the
//     handlers waiting for a CPU, a goroutine each) outnumber them. At
//     95% of a server's capacity it read between -464 and 0 at every tick
//     while 100 to 200 requests waited behind 70 busy workers, and each
//     request began its own wait only once a worker took it, where a
//     goroutine per request begins at once
//     (bench/results/blocking-behind-amd64.txt). A pool that never grew,
//     as one of CPU-bound work, never adds by this rule; one that did
//     adds for its CPU-bound tasks too while they queue (goroutines would
//     run them all at once as well), up to its cap, and retires the
//     workers once they idle.
//  4. Workers above the pool's size (Workers) retire once they are not
//     needed: when, for a whole retireAfter, no work waited and at least k
//     workers were idle at every tick, the monitor retires k of them (the
//     top ones, as a shrink by Resize does: a busy one retires when its task
//     returns).
//  5. It backs off as sysmon does: ticks start at monitorMin and double
//     after monitorQuiet ticks that added nothing, up to monitorMax; an
//     addition, or a sighting of a stalled queue awaiting confirmation,
//     starts them over (workers blocked in short calls while the queue
//     drains are seen at every tick: restarting for them kept a pool of
//     10,000 scanning itself every monitorMin). Each tick also reads
//     GOMAXPROCS for the thieves' sweep (steal.go). It stops (disarms) when no worker is busy,
//     nothing waits, no added worker is left and no worker started or
//     finished a job since the last tick; the next worker that wakes arms
//     it again (Pool.woke): a Dekker pair on armed and pending, as the
//     GOMAXPROCS follower's (follow.go). A worker that finds jobs one after
//     another does not wake in between (worker.go: serve), so only a whole
//     tick without a job started or finished shows that none will start
//     before a worker wakes.
//
// A CPU-bound job that runs long is stuck but running: the monitor adds
// nobody for it, and backs off to monitorMax while it runs. A worker waiting
// for the stolen half of a join (an isolated wait, wait.go) that parks is
// blocked to the monitor while submitted tasks wait, as it is to the
// requests queued behind it: a replacement serves them, and the joiner's
// half still runs on its thief.
// With Go older than 1.26 the scheduler counts are missing: a worker is then
// taken as blocked once it has been stuck for monitorStuckTicks ticks while
// submitted tasks wait (a long CPU-bound task then gets company), or while
// forked jobs wait and every worker is in a job (a fork-join whose leaves
// run that long gets company too).
//
// Block (the hint, wait.go) adds a worker at once, before the call blocks,
// when no worker sleeps and fewer workers than the pool's size are left
// unblocked (replaceForCall); the caller's worker is left out of the
// monitor's counts while the call runs (Worker.blocking), as it is
// replaced already. Not where a worker slept then, which was to take the
// work and may have blocked in a call of its own: where the queue stalls
// while fewer workers than the pool's size are free of calls and Block,
// the monitor adds the missing ones.
//
// Where it cannot add. A pool whose workers have a placement or explicit
// steal tiers (planned for New's workers only) has no room to grow; its cap
// is its size. A pool whose workers lock OS threads (futex parking) adds
// workers within the thread budget (threads.go); past it the addition fails
// and the next tick tries again.

const (
	// monitorMin is the first tick's delay after the monitor is armed, and
	// the delay after an addition. Go's timers fire about a millisecond late
	// when every P is idle (as they are when the workers block), so this is
	// what a blocked worker waits for, at worst twice, before it is seen.
	monitorMin = 500 * time.Microsecond
	// monitorMax is the longest delay between two ticks.
	monitorMax = 10 * time.Millisecond
	// monitorQuiet is the number of ticks that add nothing before the
	// delay starts doubling.
	monitorQuiet = 4
	// monitorStuckTicks is how many ticks a worker must be stuck to count as
	// blocked where the scheduler's counts are missing (Go before 1.26).
	monitorStuckTicks = 3
	// defaultRetireAfter is how long the monitor waits, with workers idle
	// and no work waiting, before it retires workers it added. ants retires
	// an idle worker after a second, too.
	defaultRetireAfter = time.Second
)

// schedMetrics are the scheduler counts the monitor reads.
var schedMetrics = []string{
	"/sched/goroutines/running:goroutines",
	"/sched/goroutines/runnable:goroutines",
	"/gc/cycles/total:gc-cycles",
}

// initMonitor sets up the monitor of a pool of n workers made with c.
func (p *Pool) initMonitor(c *config, n int) {
	m := &p.monitor
	m.maxActive = max(n, min(c.maxWorkers, p.maxWorkers))
	m.retireAfter = defaultRetireAfter
	if c.retireAfter > 0 {
		m.retireAfter = c.retireAfter
	}
	m.ticked = c.monitorHook
	m.interval = monitorMin
	s := make([]metrics.Sample, len(schedMetrics))
	for i, name := range schedMetrics {
		s[i].Name = name
	}
	metrics.Read(s)
	if !c.noSchedCounts && s[0].Value.Kind() == metrics.KindUint64 && s[1].Value.Kind() == metrics.KindUint64 && s[2].Value.Kind() == metrics.KindUint64 {
		m.sched = s
	}
	m.timer = time.AfterFunc(time.Hour, p.monitorTick)
	m.timer.Stop() // disarmed: the first worker that finds work arms it (woke)
	m.blind = c.blindMonitor
	if c.noMonitor {
		m.armed.Store(true) // nobody arms it, as after stopMonitor
	}
}

// woke is called by a worker that woke from a park or found work after it
// was idle, and by a caller that borrowed a worker: it marks the follower
// and the monitor pending, and arms whichever is disarmed. Four loads when
// both are armed and pending.
func (p *Pool) woke() {
	p.followWake()
	m := &p.monitor
	if !m.pending.Load() {
		m.pending.Store(true)
	}
	if !m.armed.Load() && m.armed.CompareAndSwap(false, true) {
		m.timer.Reset(monitorMin)
	}
}

// stopMonitor stops the monitor's timer, under resizeMu, as Close stops the
// workers (finishClose). A tick already waiting for resizeMu sees stopping
// and returns.
func (p *Pool) stopMonitor() {
	p.monitor.armed.Store(true) // nobody arms it again
	p.monitor.timer.Stop()
}

// monitorTick is the monitor's timer function (see Blocked workers).
func (p *Pool) monitorTick() {
	m := &p.monitor
	p.resizeMu.Lock()
	defer p.resizeMu.Unlock()
	if p.stopping.Load() {
		return // stays armed: nobody arms it again
	}
	woke := m.pending.Swap(false)
	p.setProcs(runtime.GOMAXPROCS(0))
	ws := p.workerList()
	active := int(p.active.Load())
	for len(m.seen) < len(ws) {
		m.seen = append(m.seen, workerSeen{})
	}
	// busy counts the busy workers and long those stuck for
	// monitorStuckTicks ticks or more, each with the part of them not in an
	// isolated wait; moved says whether any worker started or finished a
	// job since the last tick.
	idle, moved, inCall := 0, false, 0
	var busy, long workerCounts
	// progress counts the jobs started since the last tick (a worker new
	// to seen counts all of its own: more progress, never less).
	var progress uint64
	submitted := p.inj.len()
	injected := submitted
	forked := false
	// The stuck worker with work behind it to name for the thieves
	// (Pool.stuck): the first after the one named last, else the first.
	lastStuck := int(p.stuck.Load()) - 1
	firstStuck, nextStuck := -1, -1
	holdsWork := func(i int) {
		if firstStuck < 0 {
			firstStuck = i
		}
		if nextStuck < 0 && i > lastStuck {
			nextStuck = i
		}
	}
	for i, w := range ws[:active] {
		s := &w.stats
		// finished first: a count started after this load is seen by the
		// next one, so started >= finished in what the tick sees.
		f := atomics.LoadAcquire64(&s.finished)
		st := atomics.LoadAcquire64(&s.executed) + atomics.LoadAcquire64(&s.callerRuns)
		seen := &m.seen[i]
		changed := st != seen.started || f != seen.finished
		moved = moved || changed
		progress += st - seen.started
		switch {
		case w.blocking.Load() != 0:
			seen.stuckTicks = 0 // replaced by Block already
			inCall++
		case st == f:
			idle++
			seen.stuckTicks = 0
		default:
			// waitKind: a release store by the worker's runner
			// (setWaitKind), loaded here without an ordering partner:
			// a stale kind misplaces the worker for one tick.
			k := waitKind(atomic.LoadUint32((*uint32)(&w.waitKind)))
			isolated := k == waitJoin || k == waitScope
			busy.add(isolated)
			if changed {
				seen.stuckTicks = 0
			} else if seen.stuckTicks++; seen.stuckTicks >= monitorStuckTicks {
				long.add(isolated)
			}
		}
		seen.started, seen.finished = st, f
		queued := w.runq.len()
		submitted += queued
		// A job in the deque of a worker alone (resize.go) is its own:
		// nobody added could take it.
		stealable := !w.deque.IsEmpty() && w.stealable.Load()
		forked = forked || stealable
		if (queued > 0 || stealable) && st != f && (!changed || w.blocking.Load() != 0) {
			holdsWork(i)
		}
	}
	// A worker above the active ones retires once its task returns
	// (resize.go); until then its run queue and deque are out of the
	// thieves' range (steal.go: victims), so while it is in a task with
	// work behind it, it is named too. Only the workers of shrinks since
	// they all retired are looked at: a pool that grew to thousands and
	// shrank back would otherwise read every dormant worker at each tick.
	if active < m.lastActive {
		m.retiringTop = max(m.retiringTop, m.lastActive)
	}
	m.lastActive = active
	allRetired := true
	for i := active; i < min(m.retiringTop, len(ws)); i++ {
		w := ws[i]
		if !w.retired.Load() {
			allRetired = false
		}
		s := &w.stats
		f := atomics.LoadAcquire64(&s.finished)
		if atomics.LoadAcquire64(&s.executed)+atomics.LoadAcquire64(&s.callerRuns) == f {
			continue
		}
		if w.runq.len() > 0 || !w.deque.IsEmpty() && w.stealable.Load() {
			holdsWork(i)
		}
	}
	if allRetired {
		m.retiringTop = 0
	}
	p.nameStuck(firstStuck, nextStuck)
	// The candidates and their confirmation (see Blocked workers, 2).
	// Without the scheduler's counts, the workers stuck for long are
	// blocked, and only for submitted tasks.
	// Submitted tasks count as waiting only when the queue stalls: the
	// workers did not start, since the last tick, as many jobs as were
	// waiting then. A task taken within a tick of its submission, or a
	// queue that drains faster than ticks come, is served.
	stalled := m.lastWaiting > 0 && progress < uint64(m.lastWaiting)
	waitedBefore := m.lastWaiting > 0
	m.lastWaiting = submitted
	blocked, want, confirm, ready := 0, 0, 0, true
	// inRunqs: where want is the submitted tasks, those of them in run
	// queues (addForBlocked); -1 otherwise.
	inRunqs := -1
	switch {
	case submitted > 0 && busy.all > 0 && m.sched != nil:
		blocked, want, confirm, ready = m.blocked(busy.all, busy.all, p.sleep.AwakeIdle()), submitted, 2, stalled
		inRunqs = submitted - injected
	case submitted > 0 && m.sched == nil:
		blocked, want, confirm, ready = long.all, submitted, 2, stalled
		inRunqs = submitted - injected
	case forked && long.forking > 0 && m.sched != nil:
		blocked, want, confirm = m.blocked(busy.forking, long.forking, p.sleep.AwakeIdle()), long.forking, monitorStuckTicks
		// A GC cycle ended since the last look: its assists and stops
		// park running workers, and a long fork-join that allocates
		// would be taken for blocked. Such a tick confirms nothing.
		if gc := m.sched[2].Value.Uint64(); gc != m.lastGC {
			m.lastGC, blocked = gc, 0
		}
	case forked && long.forking > 0 && m.sched == nil && idle == 0:
		// Without the scheduler's counts, forked jobs wait behind stuck
		// workers and no worker is free to steal them: every worker
		// of the pool is in a job, some stuck for monitorStuckTicks
		// ticks. Two tasks that each spawned into a scope and then
		// waited on a channel the spawn closes left a pool of two
		// with both workers blocked in those receives for good (Go
		// 1.24, CI's short run of TestGroupWaitFromStolenWork). A
		// fork-join whose CPU-bound leaves run that long gets company.
		blocked, want, confirm = long.forking, long.forking, monitorStuckTicks
	}
	if m.blind {
		blocked = 0 // tests: nothing seen blocked, as under CPU saturation
	}
	suspect := false
	if blocked <= 0 {
		m.blockedTicks = 0
	} else if m.blockedTicks++; m.blockedTicks < confirm || !ready {
		// Awaiting confirmation: the next tick comes soon, unless the
		// queue moves (not ready), which is no hurry. Workers blocked
		// in short calls while their queue drains are seen at every
		// tick; restarting the ticks for them kept a pool of 10,000
		// workers scanning itself every monitorMin.
		blocked, suspect = 0, ready
	}
	// Workers blocked in a call or in Block were replaced as they
	// blocked (wait.go: replaceForCall), but not where a worker slept
	// then: that one was to take the work, and may have blocked in a call
	// too, or the addition failed. So where the queue stalls while fewer
	// workers than the pool's size are not blocked so, the missing ones are
	// added (Go's rule for Ps, as replaceForCall's).
	if missing := int(p.size.Load()) - (active - inCall); blocked <= 0 && inCall > 0 && submitted > 0 && stalled && missing > 0 {
		blocked, want, inRunqs = missing, missing, -1
	}
	// Submitted tasks that stall while no worker is busy and some sleep:
	// the sleep protocol owes them a wake (Sleep.WorkFoundAlone says
	// which one it once missed), so this should not happen. If a wake is
	// lost all the same, a sleeper is woken here (as nameStuck does), and
	// the task waits a tick instead of forever. Nobody is added: the
	// sleeper is the worker the pool lacks.
	if blocked <= 0 && busy.all == 0 && submitted > 0 && stalled && p.sleep.Sleeping() > 0 {
		m.stallWakes++
		p.sleep.NewInternalJobs(1, false)
	}
	// Tasks queued behind a grown pool (see Blocked workers, 3): a worker
	// for each task that waited at this tick and the last while no worker
	// was idle, with no estimate asked.
	behind := blocked <= 0 && active > int(p.size.Load()) && submitted > 0 && waitedBefore && idle == 0
	if behind {
		want, inRunqs = submitted, submitted-injected
		m.behindTicks++
	}
	if blocked > 0 {
		m.blockedSeen.Add(uint64(blocked))
	}
	added := 0
	if blocked > 0 || behind {
		added = p.addForBlocked(min(want, m.maxActive-active), inRunqs)
	}
	waiting := submitted
	if forked {
		waiting++ // at least one job: enough for the retirement and the disarming
	}
	p.retireIdle(active, idle, waiting)
	if m.ticked != nil {
		m.ticked()
	}
	if added > 0 || suspect {
		m.interval, m.quiet = monitorMin, 0
	} else if m.quiet++; m.quiet > monitorQuiet {
		m.interval = min(2*m.interval, monitorMax)
	}
	if !moved && busy.all == 0 && waiting == 0 && !woke && int(p.active.Load()) <= int(p.size.Load()) {
		// Nothing to watch: disarm, then look at pending again (the other
		// half of woke's Dekker pair). Only after a whole tick in which no
		// worker started or finished a job: a worker that found jobs one
		// after the other since it last woke never calls woke again, and
		// one that was between two of them at this tick would be taken for
		// idle.
		m.armed.Store(false)
		m.interval, m.quiet = monitorMin, 0
		m.idleSince = time.Time{}
		if !m.pending.Load() || !m.armed.CompareAndSwap(false, true) {
			return
		}
	}
	m.timer.Reset(m.interval)
}

// nameStuck names a stuck worker with work behind it for the thieves
// (Pool.stuck): next, the first after the one named last, else first;
// none if both are -1. While one is named, it wakes a sleeper at every
// tick, which tries it first: the sleepers of a large pool went to sleep
// after a sample of the victims that could miss it.
func (p *Pool) nameStuck(first, next int) {
	pick := next
	if pick < 0 {
		pick = first
	}
	if h := int32(pick + 1); p.stuck.Load() != h {
		p.stuck.Store(h)
	}
	if pick >= 0 {
		p.monitor.stuckNamed++
		p.sleep.NewInternalJobs(1, false)
	}
}

// workerCounts counts workers: all of them, and those not in an isolated
// wait (a join or a scope of their own: wait.go).
type workerCounts struct{ all, forking int }

func (c *workerCounts) add(isolated bool) {
	c.all++
	if !isolated {
		c.forking++
	}
}

// blocked estimates how many of the candidates, among busy workers, are
// blocked (see Blocked workers): those the scheduler does not count as
// running or runnable. m.sched is set.
func (m *monitor) blocked(busy, candidates, awakeIdle int) int {
	metrics.Read(m.sched)
	running := int(m.sched[0].Value.Uint64())
	runnable := int(m.sched[1].Value.Uint64())
	spinning := int(spinParked.Load()) // the process's, as the scheduler's counts
	// Running or runnable, but for the monitor's own goroutine, the idle
	// workers that are awake (searching or yielding) and the spinning
	// parks: the busy workers that are not blocked, or other goroutines
	// of the program.
	notBlocked := max(running-1, 0) + runnable - max(awakeIdle, 0) - max(spinning, 0)
	return min(candidates, busy-max(notBlocked, 0))
}

// addForBlocked activates k more workers for blocked ones (waking retired
// workers first, then making new ones) and returns how many it added: fewer
// where the pool reaches its cap or runs out of OS threads, or where the
// tasks it adds them for were taken meanwhile. Under resizeMu, on an open
// pool or one draining for Close (not stopping).
//
// It adds them in steps (addStep), each made, published and started before
// the next is made, so that the first workers take the queued tasks while
// the others are made: a worker takes microseconds to make (a Worker is
// 2.5 KB, with its deque, parker and sleep state besides), and 10,000 made
// in one step left nine tasks in ten of a burst of 10,000 on a fresh pool
// waiting 45 to 85 ms for their worker, where a goroutine per task ran the
// whole burst in 15. The steps double the workers added, so the worker
// list is copied about twice its final length in all.
//
// Where k counts submitted tasks waiting (inRunqs >= 0: that many of them
// were in run queues at the tick, the others in the injector), each step
// after the first adds no more workers than tasks still wait: the
// injector's now, and the run queues' as the tick saw them. The workers
// added first take tasks, and those whose tasks returned take more, so a
// burst of short blocking tasks runs on fewer workers than it has tasks
// (about 4,700 for 10,000 tasks of 1 ms), with a park and a wake fewer per
// task that a worker runs right after another. inRunqs < 0: k is not a
// count of tasks (forked jobs, workers replaced for calls).
func (p *Pool) addForBlocked(k, inRunqs int) int {
	added := 0
	for added < k {
		if added > 0 && inRunqs >= 0 {
			if k = min(k, added+p.inj.len()+inRunqs); added >= k {
				break
			}
		}
		n := min(addStep(added), k-added)
		// Counted first: a Stats that sees a worker it adds, or the
		// work it runs, sees it counted.
		p.monitor.added.Add(uint64(n))
		if err := p.activate(int(p.active.Load()) + n); err != nil {
			p.monitor.added.Add(-uint64(n))
			break
		}
		added += n
	}
	return added
}

// addFirstStep is the first step of an addition (addForBlocked): the
// workers made and started before any other is made.
const addFirstStep = 16

// addStep is the size of an addition's next step once done workers were
// added: addFirstStep, then as many as were added so far.
func addStep(done int) int { return max(done, addFirstStep) }

// retireIdle is step 3 of a tick (see Blocked workers): active workers were
// active, idle of them idle, and waiting things waited for a worker.
func (p *Pool) retireIdle(active, idle, waiting int) {
	m := &p.monitor
	extra := active - int(p.size.Load())
	if extra <= 0 || waiting > 0 || idle == 0 {
		m.idleSince = time.Time{}
		return
	}
	now := time.Now()
	if m.idleSince.IsZero() {
		m.idleSince, m.idleLeast = now, idle
		return
	}
	m.idleLeast = min(m.idleLeast, idle)
	if now.Sub(m.idleSince) < m.retireAfter {
		return
	}
	k := min(extra, m.idleLeast)
	// Counted first, as addForBlocked counts: a Stats that sees Active
	// shrunk sees the retirements counted (Stats loads Active first).
	m.retired.Add(uint64(k))
	_ = p.activate(active - k) // a shrink cannot fail
	m.idleSince = time.Time{}
}
