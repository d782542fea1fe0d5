//go:build linux

package topology

import "testing"

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
