package blitz

import "time"

// withFollowHook sets the period and the tick hook of a following pool
// (follow.go): f receives the pool's size after each tick, under the
// resize lock.
func withFollowHook(period time.Duration, f func(size int)) Option {
	return func(c *config) { c.followHook, c.followPeriod = f, period }
}

// withMonitorHook sets the monitor's retire delay and a hook its every tick
// calls under the resize lock (blocking.go).
func withMonitorHook(retireAfter time.Duration, f func()) Option {
	return func(c *config) { c.retireAfter, c.monitorHook = retireAfter, f }
}

// withoutSchedCounts makes the monitor read no scheduler counts, as with Go
// before 1.26.
func withoutSchedCounts() Option {
	return func(c *config) { c.noSchedCounts = true }
}

// withoutMonitor keeps the blocked-worker monitor from ever ticking: no
// worker is added or retired, and no stall wake or stuck worker's wake
// moves the sleep counters under a test that counts idle rounds.
func withoutMonitor() Option { return func(c *config) { c.noMonitor = true } }

// withBlindMonitor makes the monitor see no worker blocked at any tick, as
// the scheduler's counts do under CPU saturation, where the program's
// runnable goroutines outnumber the blocked workers (blocking.go).
func withBlindMonitor() Option { return func(c *config) { c.blindMonitor = true } }

// tickFollower runs one tick of p's GOMAXPROCS follower on the calling
// goroutine, as its timer would (follow.go).
func (p *Pool) tickFollower() { p.followTick() }
