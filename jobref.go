package blitz

// A jobRef is what the deques carry: an integer that names a job, never a
// pointer, so pushing and stealing store no Go pointer (no GC write barrier,
// nothing hidden from the collector) and the deque can publish it with plain
// integer stores.
//
// Bit layout (named constants below; TestJobRefLayout pins it):
//
//	bits  0-31  index:  the join depth of a frame (kindFrame) or the slot
//	                    number of a spawned job (kindSpawn)
//	bits 32-47  worker: the index of the worker that owns the frame
//	                    (kindFrame only; 0 for kindSpawn)
//	bits 48-61  zero
//	bits 62-63  kind
//
// Overflow is impossible rather than harmless: New refuses more workers than
// sleep.MaxWorkers (< 1<<16); a join depth is bounded by the goroutine stack
// (Go's 1 GB maximum stack holds far fewer than 1<<32 nested joins, each
// needing a few stack frames); spawn slots are bounded by memory (a slot is
// 32 bytes, 1<<32 of them would be 128 GiB).
type jobRef uint64

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
	kindFrame = 0 // a join frame: workers[worker].frames.at(index)
	kindSpawn = 1 // a spawned (heap) job: pool.spawns.slot(index)
)

func frameRef(worker int, depth uint32) jobRef {
	return jobRef(uint64(depth) | uint64(worker)<<refWorkerLow | kindFrame<<refKindLow)
}

func spawnRef(slot uint32) jobRef {
	return jobRef(uint64(slot) | kindSpawn<<refKindLow)
}

func (r jobRef) kind() uint64  { return uint64(r) >> refKindLow }
func (r jobRef) index() uint32 { return uint32(uint64(r) & refIndexMask) }
func (r jobRef) worker() int   { return int(uint64(r) >> refWorkerLow & refWorkerMask) }
