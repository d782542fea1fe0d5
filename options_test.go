package blitz

import (
	"math"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/blitz-go/blitz/sleep"
	"github.com/stretchr/testify/require"
)

func TestNewRejectsBadOptions(t *testing.T) {
	defer verifyNone(t)
	cases := []struct {
		name string
		opts []Option
		want string
	}{
		{"zero workers", []Option{WithWorkers(0)}, "WithWorkers(0)"},
		{"negative workers", []Option{WithWorkers(-3)}, "WithWorkers(-3)"},
		{"too many workers", []Option{WithWorkers(sleep.MaxWorkers + 1)}, "between 1 and"},
		{"negative spin rounds", []Option{WithSpinRounds(-1)}, "WithSpinRounds(-1)"},
		{"spin rounds above the maximum", []Option{WithSpinRounds(MaxSpinRounds + 1)}, "MaxSpinRounds"},
		{"endless spin rounds", []Option{WithSpinRounds(math.MaxInt)}, "WithSpinRounds(" + strconv.Itoa(math.MaxInt) + ")"},
		{"empty name", []Option{WithName("")}, "WithName"},
		{"unknown parking", []Option{WithParking(Parking(42))}, "unknown parking"},
		{"nil option", []Option{nil}, "nil Option"},
		{"tiers length", []Option{WithWorkers(2), WithStealTiers([][][]int{{{1}}})}, "1 tier lists for 2 workers"},
		{"tier self", []Option{WithWorkers(2), WithStealTiers([][][]int{{{0}}, {{0}}})}, "itself"},
		{"tier range", []Option{WithWorkers(2), WithStealTiers([][][]int{{{1}}, {{5}}})}, "out of range"},
		{"tier twice", []Option{WithWorkers(3), WithStealTiers([][][]int{{{1}, {1}}, {{0}}, {{0}}})}, "twice"},
	}
	if runtime.GOOS != "linux" {
		cases = append(cases, struct {
			name string
			opts []Option
			want string
		}{"futex off linux", []Option{WithParking(ParkingFutex)}, "futex"})
	}
	for _, c := range cases {
		p, err := New(c.opts...)
		if err == nil {
			p.Close()
			t.Errorf("%s: New succeeded", c.name)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %q does not mention %q", c.name, err, c.want)
		}
	}
}

func TestNewDefaults(t *testing.T) {
	withPool(t, nil, func(p *Pool) {
		if p.Workers() != runtime.GOMAXPROCS(0) {
			t.Errorf("default workers = %d, want GOMAXPROCS %d", p.Workers(), runtime.GOMAXPROCS(0))
		}
		if p.Name() != "blitz" {
			t.Errorf("default name %q", p.Name())
		}
		if p.Parking() == ParkingAuto {
			t.Error("Parking() did not resolve Auto")
		}
		if p.Parking() != ParkingPortable {
			t.Errorf("Auto resolved to %v, want portable", p.Parking())
		}
	})
}

func TestStealTiersAreFollowed(t *testing.T) {
	// Worker 0 may steal only from 1, 1 only from 0, and 2 from nobody: the
	// pool still computes correctly (2 lives on injected work and its own
	// deque).
	tiers := [][][]int{{{1}}, {{0}}, {}}
	withPool(t, []Option{WithWorkers(3), WithStealTiers(tiers), WithName("tiers")}, func(p *Pool) {
		for i := 0; i < 10; i++ {
			if got := doW(t, p, func(w *Worker) int { return fibArgs(w, 16) }); got != seqFib(16) {
				t.Fatalf("fib = %d", got)
			}
		}
	})
}

// TestSpinRoundsMaxParks checks that the largest spin count still lets an
// idle pool stop: every worker parks after its rounds, on each backend that
// parks.
func TestSpinRoundsMaxParks(t *testing.T) {
	ks := []Parking{ParkingPortable}
	if runtime.GOOS == "linux" {
		ks = append(ks, ParkingFutex)
	}
	for _, k := range ks {
		t.Run("parking="+k.String(), func(t *testing.T) {
			const n = 2
			withPool(t, []Option{WithParking(k), WithWorkers(n), WithSpinRounds(MaxSpinRounds)}, func(p *Pool) {
				require.Equal(t, 3, doW(t, p, func(w *Worker) int { return fibArgs(w, 4) }))
				// Each worker goes idle after the task and parks once its
				// rounds are spent: Sleeps counts a park per worker.
				eventually(t, "every idle worker parked", func() bool { return p.Stats().Sleeps >= n })
			})
		})
	}
}

// TestBadServerOptions checks that negative capacities and sampling
// intervals are constructor errors, and that the valid extremes construct.
func TestBadServerOptions(t *testing.T) {
	defer verifyNone(t)
	for _, c := range []struct {
		opt  Option
		want string
	}{
		{WithCapacity(-1), "WithCapacity(-1)"},
		{WithCapacity(math.MinInt), "WithCapacity("},
		{WithLatencySampling(-1), "WithLatencySampling(-1)"},
	} {
		p, err := New(c.opt)
		if err == nil {
			p.Close()
			t.Errorf("New with a bad option: no error, want one naming %q", c.want)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("New: %v; want it to name %q", err, c.want)
		}
	}
	for _, opts := range [][]Option{
		{WithCapacity(0)}, {WithCapacity(1)}, {WithCapacity(math.MaxInt)},
		{WithLatencySampling(0)}, {WithLatencySampling(1)}, {WithLatencySampling(math.MaxInt)},
	} {
		p, err := New(append(opts, WithWorkers(1))...)
		if err != nil {
			t.Errorf("New: %v", err)
			continue
		}
		if got := doW(t, p, func(w *Worker) int { return fibArgs(w, 10) }); got != 55 {
			t.Errorf("Do = %d", got)
		}
		within(t, "Close", func() {
			if err := p.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		})
	}
}
