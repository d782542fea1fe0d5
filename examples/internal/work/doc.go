// Package work is the CPU work the example server does per request: SHA-256
// over a generated payload, repeated, so that one request costs a chosen
// amount of CPU (about 50-200 µs on current hardware at the default size)
// and touches no shared mutable state. It is deliberately boring: the point
// of the example is where the work runs, not what it is.
package work
