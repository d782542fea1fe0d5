package blitz

import (
	"bytes"
	"context"
	"encoding/json"
	"expvar"
	"fmt"
	"net/http/httptest"
	"reflect"
	"sync/atomic"
	"testing"
	"time"
)

// expvarSeq makes the names this file publishes unique: expvar.Publish
// panics on a reused name, and -count=N runs the tests again in one process.
var expvarSeq atomic.Uint64

// histogramKeys are the keys of each histogram object in Expvar's JSON.
var histogramKeys = []string{"Count", "SumNs", "MeanNs", "MaxNs", "P50Ns", "P90Ns", "P99Ns", "P999Ns", "BoundsNs", "Counts"}

// TestExpvarJSON checks that Expvar's JSON decodes, carries every Stats field
// under its Go name, and matches Stats for a drained pool, quantiles included.
func TestExpvarJSON(t *testing.T) {
	p, err := New(WithWorkers(2), WithLatencySampling(1), WithPanicHandler(func(any, []byte) {}))
	if err != nil {
		t.Fatal(err)
	}
	const n = 200
	for i := 0; i < n; i++ {
		if err := p.Go(func(*Worker) {
			if i%50 == 0 {
				panic("boom")
			}
		}); err != nil {
			t.Fatalf("Go: %v", err)
		}
	}
	within(t, "Close", func() {
		if err := p.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	st := p.Stats()
	text := p.Expvar().String()

	// Every Stats field is a key (Placement only when set: this pool has
	// none, so it must be left out).
	var obj map[string]json.RawMessage
	if err := json.Unmarshal([]byte(text), &obj); err != nil {
		t.Fatalf("Expvar JSON does not decode: %v\n%s", err, text)
	}
	for _, f := range reflect.VisibleFields(reflect.TypeOf(Stats{})) {
		_, ok := obj[f.Name]
		if f.Name == "Placement" {
			if ok {
				t.Errorf("Placement present for a pool without placement")
			}
			continue
		}
		if !ok {
			t.Errorf("Stats field %s missing from the Expvar JSON", f.Name)
		}
	}
	for _, h := range []string{"QueueWait", "RunTime"} {
		var ho map[string]json.RawMessage
		if err := json.Unmarshal(obj[h], &ho); err != nil {
			t.Fatalf("%s: %v", h, err)
		}
		for _, k := range histogramKeys {
			if _, ok := ho[k]; !ok {
				t.Errorf("%s.%s missing from the Expvar JSON", h, k)
			}
		}
	}

	// The values are the snapshot's.
	var got statsJSON
	if err := json.Unmarshal([]byte(text), &got); err != nil {
		t.Fatal(err)
	}
	if got.Completed != n || got.Completed != st.Completed || got.Panics != 4 || got.Workers != 2 || got.Injected != st.Injected {
		t.Errorf("JSON Completed %d, Panics %d, Workers %d, Injected %d; Stats %+v", got.Completed, got.Panics, got.Workers, got.Injected, st)
	}
	for _, c := range []struct {
		name string
		j    histogramJSON
		h    Histogram
	}{{"QueueWait", got.QueueWait, st.QueueWait}, {"RunTime", got.RunTime, st.RunTime}} {
		j, h := c.j, c.h
		if j.Count != n || j.Count != h.Count || j.SumNs != int64(h.Sum) || j.MaxNs != int64(h.Max) || j.MeanNs != int64(h.Mean()) {
			t.Errorf("%s: JSON %+v, Stats %+v", c.name, j, h)
		}
		for _, q := range []struct {
			v  int64
			at float64
		}{{j.P50Ns, 0.5}, {j.P90Ns, 0.9}, {j.P99Ns, 0.99}, {j.P999Ns, 0.999}} {
			if want := int64(h.Quantile(q.at)); q.v != want || q.v <= 0 {
				t.Errorf("%s: quantile %v = %d ns in JSON, want %d (> 0)", c.name, q.at, q.v, want)
			}
		}
		if !reflect.DeepEqual(j.Counts, h.Counts[:]) {
			t.Errorf("%s: Counts %v in JSON, want %v", c.name, j.Counts, h.Counts)
		}
		if len(j.BoundsNs) != HistogramBuckets-1 || j.BoundsNs[0] != int64(time.Microsecond) || j.BoundsNs[len(j.BoundsNs)-1] != int64(10*time.Second) {
			t.Errorf("%s: BoundsNs %v", c.name, j.BoundsNs)
		}
	}
	verifyNone(t)
}

// TestExpvarPublished publishes a pool's Var and reads it back through the
// expvar HTTP handler (/debug/vars), while the pool runs tasks.
func TestExpvarPublished(t *testing.T) {
	withPool(t, []Option{WithWorkers(2)}, func(p *Pool) {
		name := fmt.Sprintf("blitz-test-%d", expvarSeq.Add(1))
		expvar.Publish(name, p.Expvar())
		if expvar.Get(name) == nil {
			t.Fatalf("expvar.Get(%q) = nil after Publish", name)
		}
		for i := 0; i < 100; i++ {
			if _, err := DoContext(context.Background(), p, func(*Worker) int { return i }); err != nil {
				t.Fatalf("DoContext: %v", err)
			}
		}
		rec := httptest.NewRecorder()
		expvar.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/debug/vars", nil))
		var vars map[string]json.RawMessage
		if err := json.Unmarshal(rec.Body.Bytes(), &vars); err != nil {
			t.Fatalf("/debug/vars is not JSON: %v", err)
		}
		var got statsJSON
		if err := json.Unmarshal(vars[name], &got); err != nil {
			t.Fatalf("/debug/vars[%q] does not decode: %v\n%s", name, err, vars[name])
		}
		// DoContext returns once the result is in, possibly before its
		// worker counted the task finished: all 100 are accepted, and
		// each is counted queued, running or completed.
		if got.Injected != 100 || got.Workers != 2 || got.Completed+uint64(got.Running)+uint64(got.Queued) != 100 {
			t.Errorf("/debug/vars[%q]: Injected %d, Completed %d, Running %d, Queued %d, Workers %d",
				name, got.Injected, got.Completed, got.Running, got.Queued, got.Workers)
		}
	})
}

// TestExpvarConcurrent reads the Var from several goroutines while tasks
// run: every reading decodes. Under -race it checks Expvar against the
// workers' writes.
func TestExpvarConcurrent(t *testing.T) {
	n := 2000
	if testing.Short() {
		n = 300
	}
	withPool(t, []Option{WithWorkers(2), WithLatencySampling(1)}, func(p *Pool) {
		v := p.Expvar()
		stop := make(chan struct{})
		errs := make(chan error, 2)
		var decoded [2]int
		for r := 0; r < 2; r++ {
			go func() {
				for {
					var s statsJSON
					if err := json.Unmarshal([]byte(v.String()), &s); err != nil {
						errs <- err
						return
					}
					decoded[r]++
					select {
					case <-stop:
						errs <- nil
						return
					default:
					}
				}
			}()
		}
		for i := 0; i < n; i++ {
			if err := p.Go(func(*Worker) {}); err != nil {
				t.Fatalf("Go: %v", err)
			}
		}
		close(stop)
		for r := 0; r < 2; r++ {
			select {
			case err := <-errs:
				if err != nil {
					t.Errorf("Expvar reading does not decode: %v", err)
				}
			case <-time.After(watchdogTimeout):
				t.Fatalf("readers did not stop\n%s", dumpAll())
			}
		}
		if decoded[0] == 0 || decoded[1] == 0 {
			t.Errorf("decoded %v readings, want at least one per reader", decoded)
		}
	})
}

// statsJSON is the JSON form of Stats that Expvar documents, for
// encoding/json to decode Expvar's text into, and to write the reference
// that appendStatsJSON must match. Its fields and their order follow Stats.
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

// boundsNs is HistogramBounds in nanoseconds.
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

// TestExpvarJSONEncoding checks the hand-written JSON against encoding/json
// on snapshots with every field set, placements whose errors hold what
// needs escaping (quotes, backslashes, control characters, invalid UTF-8,
// non-ASCII), and none: valid JSON that decodes to what encoding/json's
// encoding of the same snapshot decodes to, keys in the same order.
func TestExpvarJSONEncoding(t *testing.T) {
	var st Stats
	v := reflect.ValueOf(&st).Elem()
	for i := range v.NumField() {
		switch f := v.Field(i); f.Kind() {
		case reflect.Int:
			f.SetInt(int64(i + 1))
		case reflect.Uint64:
			f.SetUint(uint64(i+1) << 40)
		}
	}
	for i := range st.QueueWait.Counts {
		st.QueueWait.Counts[i] = uint64(i)
		st.QueueWait.Count += uint64(i)
	}
	st.QueueWait.Sum, st.QueueWait.Max = 12345*time.Millisecond, 3*time.Second
	st.RunTime.Counts[2], st.RunTime.Count, st.RunTime.Sum, st.RunTime.Max = 7, 7, 7*time.Microsecond, 2*time.Microsecond
	errs := []string{"", `quote " and \\ backslash`, "tab\t newline\n nul\x00 \x1f", "bad \xff\xfe utf-8", "é ü 中 <&>"}
	for _, with := range []bool{false, true} {
		st.Placement = nil
		if with {
			for i, e := range errs {
				st.Placement = append(st.Placement, WorkerPlacement{Worker: i, CPU: i - 1, Pinned: e == "", PinError: e})
			}
		}
		got := appendStatsJSON(nil, st)
		if !json.Valid(got) {
			t.Fatalf("invalid JSON: %s", got)
		}
		want, err := json.Marshal(newStatsJSON(st))
		if err != nil {
			t.Fatal(err)
		}
		var g, w any
		if err := json.Unmarshal(got, &g); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(want, &w); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(g, w) {
			t.Errorf("placement %v: hand-written JSON decodes to\n%v\nencoding/json's to\n%v", with, g, w)
		}
		if gk, wk := jsonKeys(t, got), jsonKeys(t, want); !reflect.DeepEqual(gk, wk) {
			t.Errorf("placement %v: keys %v, encoding/json's %v", with, gk, wk)
		}
	}
}

// jsonKeys returns the keys of the JSON object b, in order.
func jsonKeys(t *testing.T, b []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	var keys []string
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return keys
		}
		switch tok := tok.(type) {
		case json.Delim:
			if tok == '{' || tok == '[' {
				depth++
			} else {
				depth--
			}
		case string:
			if depth == 1 && dec.More() {
				keys = append(keys, tok)
				// skip the value
				var v json.RawMessage
				if err := dec.Decode(&v); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}
