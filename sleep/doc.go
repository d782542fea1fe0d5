// Package sleep decides when idle workers of a work-stealing pool go to
// sleep and wakes them when work is posted. It implements rayon-core's sleep
// protocol: packed counters with a jobs event counter, a four-state CoreLatch
// per worker, progressive sleep, and two sequentially consistent fences
// around injected work.
package sleep
