package topology

// Flat returns a topology of n CPUs numbered 0 to n-1, all online and
// allowed, each its own core in one package of unknown id, with no cache or
// NUMA information; reason goes into Degraded. It is what Detect returns
// where the system offers no topology, and a stand-in for tests of code that
// takes a *Topology. n < 1 is taken as 1.
func Flat(n int, reason string) *Topology {
	n = max(n, 1)
	all := RangeCPUSet(0, n-1)
	t := &Topology{Online: all, Allowed: all, Source: "flat (no topology source)"}
	for id := 0; id < n; id++ {
		self := NewCPUSet(id)
		t.CPUs = append(t.CPUs, CPU{ID: id, Package: -1, Die: -1, Cluster: -1, Core: -1, Node: -1, Threads: self, Allowed: true})
		t.Cores = append(t.Cores, Group{ID: -1, Package: -1, CPUs: self})
	}
	t.Packages = []Group{{ID: -1, Package: -1, CPUs: all}}
	if reason != "" {
		t.Degraded = []string{reason}
	}
	return t
}
