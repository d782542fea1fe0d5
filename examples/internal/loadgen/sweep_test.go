package loadgen_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/blitz-go/blitz"

	"github.com/blitz-go/blitz/examples/internal/chart"
	"github.com/blitz-go/blitz/examples/internal/loadgen"
	"github.com/blitz-go/blitz/examples/internal/server"
)

// sweepTargets are every mode and, in the blitz mode, the default backend
// and two named ones.
var sweepTargets = []loadgen.Target{
	{Mode: server.Inline}, {Mode: server.Ants}, {Mode: server.Blitz},
	{Mode: server.Blitz, Parking: blitz.ParkingPortable}, {Mode: server.Blitz, Parking: blitz.ParkingSpin},
}

// TestParseTarget checks that every target name round-trips and that bad
// names are refused with an error.
func TestParseTarget(t *testing.T) {
	for _, want := range sweepTargets {
		got, err := loadgen.ParseTarget(want.String())
		if err != nil || got != want {
			t.Errorf("ParseTarget(%q) = %+v, %v; want %+v", want.String(), got, err, want)
		}
	}
	if got, err := loadgen.ParseTarget("blitz-auto"); err != nil || got != (loadgen.Target{Mode: server.Blitz}) || got.String() != "blitz" {
		t.Errorf("ParseTarget(blitz-auto) = %+v (%v), %v", got, got, err)
	}
	for _, k := range []blitz.Parking{blitz.ParkingAuto, blitz.ParkingFutex, blitz.ParkingPortable, blitz.ParkingCond, blitz.ParkingSpin} {
		if got, err := loadgen.ParseParking(k.String()); err != nil || got != k {
			t.Errorf("ParseParking(%q) = %v, %v", k.String(), got, err)
		}
	}
	for _, bad := range []string{"", "blitz-", "blitz-condvr", "ants-futex", "inline-portable", "nope"} {
		if _, err := loadgen.ParseTarget(bad); err == nil {
			t.Errorf("ParseTarget(%q): no error", bad)
		}
	}
}

// TestSweepSmoke runs the whole pipeline at toy sizes: calibration, every
// mode at an underload and an overload, CSV, Markdown and the chart in both
// formats. It asserts that the pipeline works, not what it measured.
func TestSweepSmoke(t *testing.T) {
	defer goleak.VerifyNone(t)
	start, err := loadgen.InProcess(4<<10, 8)
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	capacity, rows, err := loadgen.Sweep(context.Background(), loadgen.SweepConfig{
		Start: start, Targets: sweepTargets, Loads: []int{50, 120},
		Point: 200 * time.Millisecond, Warmup: 50 * time.Millisecond, Calibration: 100 * time.Millisecond,
		MaxInFlight: 256, Timeout: 10 * time.Second, Seed: 1, Log: &log,
	})
	t.Log(log.String())
	if err != nil {
		t.Fatal(err)
	}
	if capacity <= 0 {
		t.Errorf("capacity %v", capacity)
	}
	if len(rows) != 2*len(sweepTargets) {
		t.Fatalf("%d rows, want %d", len(rows), 2*len(sweepTargets))
	}
	// Each point accounts for its requests; whether a 200-ms point at 120%
	// gets any 200 depends on the machine (on a saturated one, every send
	// of a point can find MaxInFlight requests outstanding and be dropped),
	// so only the sweep as a whole must have measured some.
	ok := 0
	for i, r := range rows {
		wantMode := sweepTargets[i%len(sweepTargets)].String()
		if r.Mode != wantMode || r.OK+r.Rejected+r.Errors == 0 {
			t.Errorf("row %d: %+v; want mode %s with its requests counted", i, r, wantMode)
		}
		ok += r.OK
	}
	if ok == 0 {
		t.Error("no point of the sweep got a 200")
	}
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "sweep.csv")
	f, err := os.Create(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := loadgen.WriteCSV(f, rows); err != nil {
		t.Fatal(err)
	}
	f.Close()
	f, err = os.Open(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	back, err := loadgen.ReadCSV(f)
	f.Close()
	if err != nil || len(back) != len(rows) {
		t.Fatalf("ReadCSV: %d rows, %v", len(back), err)
	}
	png, svg := filepath.Join(dir, "sweep.png"), filepath.Join(dir, "sweep.svg")
	if err := chart.Draw(back, "smoke", png, svg); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{png, svg} {
		if st, err := os.Stat(p); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", p, err)
		}
	}
}

func TestSweepRejectsBadConfig(t *testing.T) {
	start, err := loadgen.InProcess(1024, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := loadgen.Sweep(context.Background(), loadgen.SweepConfig{Start: start, Targets: sweepTargets}); err == nil {
		t.Error("no loads: no error")
	}
	if _, _, err := loadgen.Sweep(context.Background(), loadgen.SweepConfig{Start: start, Targets: sweepTargets, Loads: []int{0}}); err == nil {
		t.Error("load 0%: no error")
	}
	if _, err := loadgen.InProcess(0, 1); err == nil {
		t.Error("work size 0: no error")
	}
}
