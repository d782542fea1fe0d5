package blitz

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

// Expvar returns the pool's Stats as a value that satisfies expvar.Var (whose
// only method is String; the package does not import expvar, which would link
// net/http and register /debug/vars in every program that imports it). Its
// String method takes a fresh snapshot (Pool.Stats) on every call and formats
// it as a JSON object, so a server publishes it once and /debug/vars shows
// live figures:
//
//	expvar.Publish("blitz", p.Expvar())
//
// (expvar.Publish panics if the name is taken: one name per pool.)
//
// The object's keys are the names of the Stats fields: Workers, Executed,
// Steals, StealRetries, Injected, JoinsStolen, Sleeps, JoinSleeps, Wakes,
// Respawns, Active, BlockedSeen, WorkersAdded, WorkersRetired, Queued, Running, Completed, Rejected, Abandoned, Panics,
// HandlerPanics, CallerRuns, Placement (left out when the pool has no
// placement), QueueWait and RunTime. Durations are integer nanoseconds, in keys ending in
// Ns, as in the runtime's memstats. Each histogram is an object:
//
//	Count                         durations recorded
//	SumNs, MeanNs, MaxNs          their sum, mean and maximum
//	P50Ns, P90Ns, P99Ns, P999Ns   Histogram.Quantile of 0.5, 0.9, 0.99, 0.999:
//	                              upper bounds, exact to one bucket
//	BoundsNs                      the buckets' upper bounds (HistogramBounds)
//	Counts                        the count per bucket: one more entry than
//	                              BoundsNs, the last one for durations above
//	                              the last bound
//
// The Var may be read at any time from any goroutine, also after Close.
func (p *Pool) Expvar() fmt.Stringer {
	if p == nil {
		panic("blitz: Pool.Expvar: nil *Pool")
	}
	return statsVar{p}
}

// statsVar is the value Expvar returns.
type statsVar struct{ p *Pool }

// String formats a fresh snapshot as JSON. It writes the object by hand:
// encoding/json would link its encoder, and the reflection it runs on, into
// every program that imports the package, for one method few call.
// expvar_test.go decodes the result with encoding/json and checks that
// every Stats field is there.
func (v statsVar) String() string {
	return string(appendStatsJSON(make([]byte, 0, 2048), v.p.Stats()))
}

// appendStatsJSON appends st as the JSON object Expvar documents, its keys in
// the order of the Stats fields.
func appendStatsJSON(b []byte, st Stats) []byte {
	o := jsonObject{b: append(b, '{')}
	o.int("Workers", int64(st.Workers))
	o.uint("Executed", st.Executed)
	o.uint("Steals", st.Steals)
	o.uint("StealRetries", st.StealRetries)
	o.uint("Injected", st.Injected)
	o.uint("JoinsStolen", st.JoinsStolen)
	o.uint("Sleeps", st.Sleeps)
	o.uint("JoinSleeps", st.JoinSleeps)
	o.uint("Wakes", st.Wakes)
	o.uint("Respawns", st.Respawns)
	o.int("Active", int64(st.Active))
	o.uint("BlockedSeen", st.BlockedSeen)
	o.uint("WorkersAdded", st.WorkersAdded)
	o.uint("WorkersRetired", st.WorkersRetired)
	if len(st.Placement) > 0 {
		o.key("Placement")
		o.b = append(o.b, '[')
		for i, wp := range st.Placement {
			if i > 0 {
				o.b = append(o.b, ',')
			}
			e := jsonObject{b: append(o.b, '{')}
			e.int("Worker", int64(wp.Worker))
			e.int("CPU", int64(wp.CPU))
			e.bool("Pinned", wp.Pinned)
			e.string("PinError", wp.PinError)
			o.b = append(e.b, '}')
		}
		o.b = append(o.b, ']')
	}
	o.int("Queued", int64(st.Queued))
	o.int("Running", int64(st.Running))
	o.uint("Completed", st.Completed)
	o.uint("Rejected", st.Rejected)
	o.uint("Abandoned", st.Abandoned)
	o.uint("Panics", st.Panics)
	o.uint("HandlerPanics", st.HandlerPanics)
	o.uint("CallerRuns", st.CallerRuns)
	o.histogram("QueueWait", &st.QueueWait)
	o.histogram("RunTime", &st.RunTime)
	return append(o.b, '}')
}

// histogram appends h as the object Expvar documents, under key k.
func (o *jsonObject) histogram(k string, h *Histogram) {
	o.key(k)
	e := jsonObject{b: append(o.b, '{')}
	e.uint("Count", h.Count)
	e.int("SumNs", int64(h.Sum))
	e.int("MeanNs", int64(h.Mean()))
	e.int("MaxNs", int64(h.Max))
	e.int("P50Ns", int64(h.Quantile(0.5)))
	e.int("P90Ns", int64(h.Quantile(0.9)))
	e.int("P99Ns", int64(h.Quantile(0.99)))
	e.int("P999Ns", int64(h.Quantile(0.999)))
	e.key("BoundsNs")
	e.b = append(e.b, '[')
	for i, d := range histogramBounds[:overflowBucket] {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		e.b = strconv.AppendInt(e.b, int64(d), 10)
	}
	e.b = append(e.b, ']')
	e.key("Counts")
	e.b = append(e.b, '[')
	for i, n := range h.Counts {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		e.b = strconv.AppendUint(e.b, n, 10)
	}
	o.b = append(e.b, ']', '}')
}

// jsonObject appends the members of a JSON object whose opening brace b
// ends with; the caller closes it.
type jsonObject struct {
	b    []byte
	more bool // a member was appended: the next one needs a comma
}

// key appends a member's key, k being a Go identifier (nothing to escape).
func (o *jsonObject) key(k string) {
	if o.more {
		o.b = append(o.b, ',')
	}
	o.more = true
	o.b = append(o.b, '"')
	o.b = append(o.b, k...)
	o.b = append(o.b, '"', ':')
}

func (o *jsonObject) int(k string, v int64) {
	o.key(k)
	o.b = strconv.AppendInt(o.b, v, 10)
}

func (o *jsonObject) uint(k string, v uint64) {
	o.key(k)
	o.b = strconv.AppendUint(o.b, v, 10)
}

func (o *jsonObject) bool(k string, v bool) {
	o.key(k)
	o.b = strconv.AppendBool(o.b, v)
}

// string appends s as a JSON string, as encoding/json writes it: quotes,
// backslashes and control characters escaped, invalid UTF-8 replaced by
// U+FFFD.
func (o *jsonObject) string(k, s string) {
	o.key(k)
	const hex = "0123456789abcdef"
	b := append(o.b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b = append(b, `\ufffd`...)
		} else {
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	o.b = append(b, '"')
}
