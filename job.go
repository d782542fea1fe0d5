package blitz

// Vocabulary.
//
// A worker is a goroutine (locked to its OS thread with the futex backend)
// that owns a deque. A job is anything a worker runs (job.go): the second
// half of a join (behind a frame), a spawned scope task (behind a spawn slot
// of the spawning worker), or an injected task (Go, Run, Do). A jobRef is the
// integer a deque carries to name a frame or a slot: deques never hold Go
// pointers. A latch is a one-shot
// event a worker waits for (sleep.CoreLatch). A root job is an injected one;
// every other job descends from one and finishes before it.

// Jobs.
//
// A job is anything a worker runs. There are three kinds, and a worker meets
// them all in one place, Worker.execute, which tells them apart by the kind of
// their jobRef:
//
//   - kindFrame: the second half of a join (Join, JoinArgs, Worker.Join).
//     It lives in the joiner's frame at the join's depth (frame.go); its
//     result, panic or Goexit travel back in the frame, and the joiner
//     re-raises the panic or Goexit (join.go: propagate, unwindJoin).
//   - kindSpawn: a task of a scope (Scope.Spawn). It lives in a spawn slot of
//     the spawning worker (refslots.go) while its ref is queued; its panic
//     or Goexit travels to the scope (scopeState.record), which re-raises it
//     when Worker.Scope returns (scope.go). It has no result.
//   - kindTask: a task submitted from outside the workers' fork-join trees
//     (submit.go: Go, Run, Do and their kin). It travels in the injector
//     (injector.go), not in a deque, so its ref names no storage: the task
//     itself comes with the ref in a work value. Its outcome goes to its
//     finish method: the panic handler for Go, the waiting caller for Do.
//     A task that a worker took from the injector in a batch waits in that
//     worker's run queue, not in a deque, until it or a thief runs it like
//     any other submitted task (batch.go, runq.go).
//
// Frames and spawns are named by integers because the deques carry integers
// only; submitted tasks are Go values because the injector carries those.

const (
	refIndexBits  = 32
	refIndexMask  = 1<<refIndexBits - 1
	refWorkerBits = 16
	refWorkerMask = 1<<refWorkerBits - 1
	refWorkerLow  = refIndexBits
	refKindLow    = 62
)

// Kinds of job a jobRef can name.
const (
	kindFrame = 0 // a join's second half: workers[worker].frames.at(index)
	kindSpawn = 1 // a scope's task: workers[worker].spawns.slot(index)
	kindTask  = 2 // a submitted task: work.task; never in a deque
)

func frameRef(worker int, depth uint32) jobRef {
	return jobRef(uint64(depth) | uint64(worker)<<refWorkerLow | kindFrame<<refKindLow)
}

func spawnRef(worker int, slot uint32) jobRef {
	return jobRef(uint64(slot) | uint64(worker)<<refWorkerLow | kindSpawn<<refKindLow)
}

// taskRef is the ref of every submitted task: the task is in work.task.
const taskRef = jobRef(kindTask << refKindLow)

func (r jobRef) kind() uint64  { return uint64(r) >> refKindLow }
func (r jobRef) index() uint32 { return uint32(uint64(r) & refIndexMask) }
func (r jobRef) worker() int   { return int(uint64(r) >> refWorkerLow & refWorkerMask) }

// work is one job found by findWork or taken by a waiting worker: its ref,
// and for a submitted task (kindTask) the task with its submit time and
// labels.
type work struct {
	ref  jobRef
	task injTask
	// stolen says that the job came from another worker's deque or run
	// queue (serve: who an added worker wakes).
	stolen bool
}

// work is a submitted task taken from a run queue or a batch, as a job.
func (t injTask) work() work { return work{ref: taskRef, task: t} }
