package blitz

import (
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
