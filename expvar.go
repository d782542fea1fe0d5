package blitz

import (
	"encoding/json"
	"fmt"
	"time"
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

func (v statsVar) String() string {
	b, err := json.Marshal(newStatsJSON(v.p.Stats()))
	if err != nil {
		// Stats holds numbers, strings and slices of them only.
		panic(fmt.Sprintf("blitz: Pool.Expvar: %v", err))
	}
	return string(b)
}

// statsJSON is the JSON form of Stats that Expvar shows. Its fields and their
// order follow Stats; expvar_test.go checks that every Stats field is here.
type statsJSON struct {
	Workers        int
	Executed       uint64
	Steals         uint64
	StealRetries   uint64
	Injected       uint64
	JoinsStolen    uint64
	Sleeps         uint64
	JoinSleeps     uint64
	Wakes          uint64
	Respawns       uint64
	Active         int
	BlockedSeen    uint64
	WorkersAdded   uint64
	WorkersRetired uint64
	Placement      []WorkerPlacement `json:",omitempty"`
	Queued         int
	Running        int
	Completed      uint64
	Rejected       uint64
	Abandoned      uint64
	Panics         uint64
	HandlerPanics  uint64
	CallerRuns     uint64
	QueueWait      histogramJSON
	RunTime        histogramJSON
}

// histogramJSON is the JSON form of a Histogram, with its quantiles.
type histogramJSON struct {
	Count    uint64
	SumNs    int64
	MeanNs   int64
	MaxNs    int64
	P50Ns    int64
	P90Ns    int64
	P99Ns    int64
	P999Ns   int64
	BoundsNs []int64
	Counts   []uint64
}

func newStatsJSON(st Stats) statsJSON {
	return statsJSON{
		Workers:        st.Workers,
		Executed:       st.Executed,
		Steals:         st.Steals,
		StealRetries:   st.StealRetries,
		Injected:       st.Injected,
		JoinsStolen:    st.JoinsStolen,
		Sleeps:         st.Sleeps,
		JoinSleeps:     st.JoinSleeps,
		Wakes:          st.Wakes,
		Respawns:       st.Respawns,
		Active:         st.Active,
		BlockedSeen:    st.BlockedSeen,
		WorkersAdded:   st.WorkersAdded,
		WorkersRetired: st.WorkersRetired,
		Placement:      st.Placement,
		Queued:         st.Queued,
		Running:        st.Running,
		Completed:      st.Completed,
		Rejected:       st.Rejected,
		Abandoned:      st.Abandoned,
		Panics:         st.Panics,
		HandlerPanics:  st.HandlerPanics,
		CallerRuns:     st.CallerRuns,
		QueueWait:      newHistogramJSON(&st.QueueWait),
		RunTime:        newHistogramJSON(&st.RunTime),
	}
}

// boundsNs is HistogramBounds in nanoseconds, shared by every snapshot (it
// is only read, by encoding/json).
var boundsNs = func() []int64 {
	b := make([]int64, overflowBucket)
	for i := range b {
		b[i] = int64(histogramBounds[i])
	}
	return b
}()

func newHistogramJSON(h *Histogram) histogramJSON {
	ns := func(d time.Duration) int64 { return int64(d) }
	return histogramJSON{
		Count:    h.Count,
		SumNs:    ns(h.Sum),
		MeanNs:   ns(h.Mean()),
		MaxNs:    ns(h.Max),
		P50Ns:    ns(h.Quantile(0.5)),
		P90Ns:    ns(h.Quantile(0.9)),
		P99Ns:    ns(h.Quantile(0.99)),
		P999Ns:   ns(h.Quantile(0.999)),
		BoundsNs: boundsNs,
		Counts:   h.Counts[:],
	}
}
