//go:build linux

package topology

import (
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// TestDetectLive runs detection on the machine the tests run on: whatever it
// is, the result must be usable and its allowed set must be the process's
// affinity mask.
func TestDetectLive(t *testing.T) {
	topo := Detect()
	checkInvariants(t, topo, false)
	mask := processMask(t)
	if !topo.Allowed.Equal(mask.Intersect(topo.Online)) {
		t.Errorf("allowed %s, want the affinity mask %s within online %s", topo.Allowed, mask, topo.Online)
	}
	t.Logf("online %s, allowed %s, %d cores, %d caches, %d nodes, identity %+v, degraded %q",
		topo.Online, topo.Allowed, len(topo.Cores), len(topo.Caches), len(topo.Nodes), topo.Identity, topo.Degraded)
}

// TestDetectFromPinnedThread: a pinned worker that builds a topology (a pool
// created from inside another pool's worker) still sees the process's CPUs,
// not its own one-CPU mask.
func TestDetectFromPinnedThread(t *testing.T) {
	mask := processMask(t)
	var allowed CPUSet
	var err error
	onLockedThread(t, func() {
		var unpin func()
		if unpin, err = Pin(mask.Max()); err != nil {
			return
		}
		defer unpin()
		allowed = Detect().Allowed
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := mask.Intersect(Detect().Online); !allowed.Equal(want) {
		t.Errorf("Detect on a thread pinned to %d: allowed %s, want %s", mask.Max(), allowed, want)
	}
}

func BenchmarkDetect(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		Detect()
	}
}

func BenchmarkPin(b *testing.B) {
	cpu := Detect().Allowed.Min()
	b.ReportAllocs()
	for b.Loop() {
		unpin, err := Pin(cpu)
		if err != nil {
			b.Fatal(err)
		}
		unpin()
	}
}

// TestAffinityCPUs pins the size of unix.CPUSet that Pin and fromUnix assume.
func TestAffinityCPUs(t *testing.T) {
	var u unix.CPUSet
	u.Set(affinityCPUs - 1)
	if !u.IsSet(affinityCPUs-1) || u.Count() != 1 {
		t.Fatalf("unix.CPUSet cannot hold cpu %d", affinityCPUs-1)
	}
	if got := int(unsafe.Sizeof(u)) * 8; got != affinityCPUs {
		t.Fatalf("unix.CPUSet holds %d CPUs, want %d", got, affinityCPUs)
	}
}
