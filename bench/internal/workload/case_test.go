package workload

import (
	"flag"
	"strings"
	"testing"
)

// TestBlitzRowsInSuite: every row of Blitz's table names a sequential row
// and a row of the pool's impl at every worker count and backend, at both
// sizes, so the report's table has no hole the suite could fill.
func TestBlitzRowsInSuite(t *testing.T) {
	for _, sizes := range []Sizes{FullSizes(), QuickSizes()} {
		cfg := Config{Sizes: sizes, Parkings: []string{"auto", "cond"}, Workers: []int{1, 2}}
		have := map[string]bool{}
		for _, c := range Suite(cfg) {
			have[c.Workload+"/"+c.Params+"/"+c.Impl+"/"+c.Parking] = true
		}
		rows := BlitzRows(sizes)
		if len(rows) != 23 { // 3 fork-join depths, 2 fibs, sum, 4 sorts, 6 searches, 2 by-keys, chunks, enumerate, chain, zip, flatten
			t.Errorf("%d rows of Blitz's table, want 23", len(rows))
		}
		for _, br := range rows {
			if !have[br.Workload+"/"+br.Params+"/seq/"] {
				t.Errorf("%s: no sequential row %s/%s", br.Label, br.Workload, br.Params)
			}
			for _, p := range cfg.Parkings {
				if !have[br.Workload+"/"+br.Params+"/"+br.Impl+"/"+p] {
					t.Errorf("%s: no %s row with parking %s", br.Label, br.Impl, p)
				}
			}
		}
	}
	// Blitz's published speedups exist only at Blitz's sizes.
	for _, br := range BlitzRows(QuickSizes()) {
		if br.Published != 0 {
			t.Errorf("%s: a published figure at the quick sizes", br.Label)
		}
	}
	published := 0
	for _, br := range BlitzRows(FullSizes()) {
		if br.Published != 0 {
			published++
		}
	}
	if published != 3 {
		t.Errorf("%d published speedups at full sizes, want 3 (fib(35), fib(40), sum)", published)
	}
}

// TestNote: every workload's tables open with what one op is.
func TestNote(t *testing.T) {
	for _, w := range workloads {
		if n := Note(w.name, FullSizes()); !strings.HasPrefix(n, "one op = ") {
			t.Errorf("Note(%q) = %q", w.name, n)
		}
	}
	if Note("no-such-workload", FullSizes()) != "" {
		t.Error("a note for an unknown workload")
	}
}

func TestLabel(t *testing.T) {
	c := fibCase(30, "blitz-args", 2, KindBlitz)
	if c.Label() != "blitz-args" {
		t.Errorf("Label = %q", c.Label())
	}
	c.Pool = PoolWarm
	if c.Label() != "blitz-args pool=warm" {
		t.Errorf("Label on a long-lived pool = %q", c.Label())
	}
	if got := c.FullName(); got != "BenchmarkFib/n=30/impl=blitz-args/workers=2/pool=warm" {
		t.Errorf("FullName = %q", got)
	}
	c.Parking = "cond"
	if got := c.Name(); got != "n=30/impl=blitz-args/workers=2/pool=warm/parking=cond" {
		t.Errorf("Name = %q", got)
	}
}

// TestFailRecordsReason: a row with a wrong answer fails its benchmark,
// and TakeFailure says why, once.
func TestFailRecordsReason(t *testing.T) {
	bt := flag.Lookup("test.benchtime")
	prev := bt.Value.String()
	if err := bt.Value.Set("1x"); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = bt.Value.Set(prev) }()

	broken := fibRow(fibCase(10, "broken", 1, KindPeer), 10, func(n int) int { return fib(n) + 1 })
	if r := testing.Benchmark(broken.Bench); r.N != 0 {
		t.Fatalf("a wrong answer ran %d ops", r.N)
	}
	msg, ok := TakeFailure(broken.FullName())
	if !ok || msg != "result 56, want 55 (the sequential answer)" {
		t.Errorf("TakeFailure = %q, %v", msg, ok)
	}
	if _, ok := TakeFailure(broken.FullName()); ok {
		t.Error("TakeFailure returned the reason twice")
	}

	good := fibRow(fibCase(10, "seq", 1, KindSeq), 10, fib)
	if r := testing.Benchmark(good.Bench); r.N != 1 {
		t.Errorf("the sequential row ran %d ops, want 1", r.N)
	}
	if _, ok := TakeFailure(good.FullName()); ok {
		t.Error("a row that passed has a failure")
	}
}

func TestParkings(t *testing.T) {
	names := ParkingNames()
	for _, name := range names {
		if _, ok := parkings[name]; !ok {
			t.Errorf("%s has no backend", name)
		}
	}
	if len(names) != len(parkings) {
		t.Errorf("%d names for %d backends", len(names), len(parkings))
	}
	if got, err := ResolveParking("auto"); err != nil || got != "portable" {
		t.Errorf(`ResolveParking("auto") = %q, %v; want portable (Default's backend)`, got, err)
	}
	if _, err := ResolveParking("condvar"); err == nil {
		t.Error("an unknown backend resolved")
	}
	if _, err := OpenPool(1, "condvar"); err == nil {
		t.Error("OpenPool took an unknown backend")
	}
	p, err := OpenPool(2, "cond")
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Parking().String(); got != "cond" {
		t.Errorf("OpenPool(2, cond) parks with %s", got)
	}
	if err := p.Close(); err != nil {
		t.Error(err)
	}
}
