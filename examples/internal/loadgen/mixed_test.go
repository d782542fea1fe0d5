package loadgen_test

import (
	"context"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/blitz-go/blitz/examples/internal/loadgen"
)

// TestMixed runs the mixed workload briefly in both modes: the quiet
// endpoint is measured, every burst request is answered (200 or 503) and
// nothing is left running.
func TestMixed(t *testing.T) {
	defer goleak.VerifyNone(t)
	for _, mode := range []loadgen.MixedMode{loadgen.MixedShared, loadgen.MixedSub} {
		t.Run(string(mode), func(t *testing.T) {
			res, err := loadgen.Mixed(context.Background(), loadgen.MixedConfig{
				Mode: mode, Workers: 2, Capacity: 4, Work: func(uint64) {}, CapacityRPS: 2000,
				QuietPct: 20, BurstPct: 20, BurstSize: 8, Duration: 200 * time.Millisecond,
				Timeout: 10 * time.Second, MaxInFlight: 1000, Seed: 1,
			})
			if err != nil {
				t.Fatal(err)
			}
			if res.Quiet.OK == 0 || res.Quiet.Errors != 0 {
				t.Errorf("quiet endpoint: %v", res.Quiet)
			}
			if res.BurstBursts == 0 || res.BurstOK+res.BurstRejected != res.BurstBursts*8 || res.BurstErrors != 0 {
				t.Errorf("bursts: %d sent, %d ok, %d 503, %d errors", res.BurstBursts, res.BurstOK, res.BurstRejected, res.BurstErrors)
			}
		})
	}
	if _, err := loadgen.Mixed(context.Background(), loadgen.MixedConfig{Mode: "x", Capacity: 1, BurstSize: 1, CapacityRPS: 1, Work: func(uint64) {}}); err == nil {
		t.Error("an unknown mode was accepted")
	}
}
