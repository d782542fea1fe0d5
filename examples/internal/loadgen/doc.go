// Package loadgen is an open-loop HTTP load generator for the example
// server, and the sweep that compares the server's modes.
//
// # Open loop, and coordinated omission
//
// A closed-loop generator (N clients, each sending its next request when the
// previous one answered) slows down when the server does, so the requests
// that would have arrived during a stall are never sent and never measured:
// the stall vanishes from the percentiles (Gil Tene's "coordinated
// omission"). Real users do not wait for each other. Run therefore sends on
// a schedule fixed in advance: intended send times of a Poisson process
// (exponential inter-arrival times with mean 1/rate, from a seeded RNG; see
// Arrivals), each request in its own goroutine, whatever the responses do.
// Latency is measured from the intended send time, not from when the
// request actually left, so a late sender (a scheduler hiccup, a full
// machine) is charged to the latency too, as a user would feel it.
//
// # Bounds
//
// A run stops by itself: the schedule holds at most Count requests, all
// intended within Duration; every request has a Timeout; Run then waits for
// the stragglers, each bounded by its Timeout. At most MaxInFlight requests
// are outstanding: a send that would exceed it is not made and is counted in
// Dropped (an error of the generator, reported as such, never silently
// lost). The generator talks to the server over at most a fixed number of
// keep-alive connections (HTTPDoer): a request that finds them all busy
// waits in the client for one, and that wait is part of its latency, since
// latency runs from the intended send time. Targets must be loopback
// addresses (CheckTarget).
//
// # Recording
//
// Latencies of successful (200) requests are kept as raw samples, sorted at
// the end; percentiles are exact nearest-rank values (the smallest sample
// with at least q of the samples at or below it). The sample count is
// bounded by Count, so memory is 8 bytes per request at most; no bucket
// resolution to argue about. 503s and errors are counted, not timed.
//
// # Sweep
//
// Sweep measures the capacity of the inline mode (closed-loop calibration:
// the best throughput of a few concurrency levels), then for each offered
// load (a percentage of that capacity) and each mode starts a fresh server,
// runs the open-loop schedule against it for a fixed duration, and stops
// it. Loads are the outer loop and modes the inner one, so drift in the
// machine's speed is spread over the modes instead of landing on one.
package loadgen
