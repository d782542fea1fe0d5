package loadgen

import (
	"errors"
	"math"
	"math/rand/v2"
	"time"
)

// Arrivals returns the intended send times, as offsets from the start of a
// run, of a Poisson process with the given rate (requests per second): the
// gaps between consecutive offsets are independent exponential variables
// with mean 1/rate drawn from rng. The schedule stops at whichever comes
// first: count requests, or the first offset at or past duration. The
// first request is sent after one gap, not at zero.
func Arrivals(rng *rand.Rand, rate float64, count int, duration time.Duration) ([]time.Duration, error) {
	if !(rate > 0) || math.IsInf(rate, 0) {
		return nil, errors.New("loadgen: rate must be a positive number")
	}
	if count < 1 {
		return nil, errors.New("loadgen: count must be >= 1")
	}
	if duration <= 0 {
		return nil, errors.New("loadgen: duration must be > 0")
	}
	expected := rate * duration.Seconds()
	capHint := count
	if expected < float64(count) {
		capHint = int(expected*1.1) + 16
	}
	out := make([]time.Duration, 0, capHint)
	var t float64 // seconds since start
	for len(out) < count {
		t += rng.ExpFloat64() / rate
		off := time.Duration(t * float64(time.Second))
		if off >= duration {
			break
		}
		out = append(out, off)
	}
	return out, nil
}
