package topology

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"reflect"
	"sort"
	"strings"
	"testing"
	"testing/fstest"
)

// # Testing
//
// testdata/ holds plain sysfs trees: intel-2s, epyc-nps2 (4 CCXs, NPS2),
// arm64-biglittle (two clusters of different capacity), container-1cpu (most
// of sysfs hidden, affinity one CPU), holes (offline CPUs and malformed
// files), and this-vm (copied from the development machine by
// testdata/capture.sh, which captures any Linux machine the same way). The
// synthetic ones are written by fixtures_gen_test.go (-genfixtures).

// fixtures lists every fixture under testdata/.
var fixtures = []string{"intel-2s", "epyc-nps2", "arm64-biglittle", "container-1cpu", "holes", "this-vm"}

func load(t testing.TB, name string) *Topology {
	t.Helper()
	if _, err := os.Stat("testdata/" + name); err != nil {
		t.Fatal(err)
	}
	return DetectFrom(os.DirFS("testdata/"+name), CPUSet{})
}

// want is a small assertion helper: it fails the test when got != want.
func want[T any](t testing.TB, what string, got, want T) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

func wantSet(t testing.TB, what string, got CPUSet, list string) {
	t.Helper()
	if !got.Equal(MustParseCPUList(list)) {
		t.Errorf("%s = %q, want %q", what, got, list)
	}
}

func cpuOf(t testing.TB, topo *Topology, id int) CPU {
	t.Helper()
	c, ok := topo.CPU(id)
	if !ok {
		t.Fatalf("cpu %d not found", id)
	}
	return c
}

// groupSets returns the CPU sets of groups, as strings, in order.
func groupSets(gs []Group) []string {
	var out []string
	for _, g := range gs {
		out = append(out, g.CPUs.String())
	}
	return out
}

// cacheSets returns the sharing sets of the caches of one level and type.
func cacheSets(topo *Topology, level int, typ CacheType) []string {
	var out []string
	for _, c := range topo.Caches {
		if c.Level == level && c.Type == typ {
			out = append(out, c.CPUs.String())
		}
	}
	return out
}

// checkInvariants asserts what must hold of any detected topology, however
// broken its source; strict adds what holds of a consistent source.
func checkInvariants(t testing.TB, topo *Topology, strict bool) {
	t.Helper()
	if topo.Online.IsEmpty() || topo.Allowed.IsEmpty() {
		t.Fatalf("empty online %q or allowed %q", topo.Online, topo.Allowed)
	}
	if !topo.Allowed.IsSubset(topo.Online) {
		t.Errorf("allowed %q not within online %q", topo.Allowed, topo.Online)
	}
	if !topo.Offline.Intersect(topo.Online).IsEmpty() {
		t.Errorf("offline %q overlaps online %q", topo.Offline, topo.Online)
	}
	ids := make([]int, len(topo.CPUs))
	for i, c := range topo.CPUs {
		ids[i] = c.ID
		if !c.Threads.Contains(c.ID) || !c.Threads.IsSubset(topo.Online) {
			t.Errorf("cpu %d: threads %q", c.ID, c.Threads)
		}
		if c.Allowed != topo.Allowed.Contains(c.ID) {
			t.Errorf("cpu %d: Allowed %v disagrees with %q", c.ID, c.Allowed, topo.Allowed)
		}
		for _, k := range c.Caches {
			if k < 0 || k >= len(topo.Caches) || !topo.Caches[k].CPUs.Contains(c.ID) {
				t.Errorf("cpu %d: bad cache reference %d", c.ID, k)
			}
		}
		if !sort.IntsAreSorted(c.Caches) {
			t.Errorf("cpu %d: caches %v out of order", c.ID, c.Caches)
		}
	}
	want(t, "CPU ids", ids, topo.Online.List())
	if strict {
		// Cores, packages and caches of one level/type partition the CPUs.
		partition := func(what string, sets []CPUSet) {
			t.Helper()
			var all CPUSet
			n := 0
			for _, s := range sets {
				all = all.Union(s)
				n += s.Len()
			}
			if !all.Equal(topo.Online) || n != topo.Online.Len() {
				t.Errorf("%s do not partition the online CPUs: %v", what, sets)
			}
		}
		var cores, pkgs []CPUSet
		for _, g := range topo.Cores {
			cores = append(cores, g.CPUs)
		}
		for _, g := range topo.Packages {
			pkgs = append(pkgs, g.CPUs)
		}
		partition("cores", cores)
		partition("packages", pkgs)
		for _, lt := range []struct {
			l int
			t CacheType
		}{{1, CacheData}, {2, CacheUnified}, {3, CacheUnified}} {
			var sets []CPUSet
			for _, c := range topo.Caches {
				if c.Level == lt.l && c.Type == lt.t {
					sets = append(sets, c.CPUs)
				}
			}
			if len(sets) > 0 {
				partition(fmt.Sprintf("L%d %s caches", lt.l, lt.t), sets)
			}
		}
	}
	// Placement and tiers work on whatever was detected.
	for _, p := range []Policy{PolicyCompact, PolicyScatter} {
		pl, err := topo.Place(topo.Allowed.Len(), p)
		if err != nil {
			t.Fatalf("%v: %v", p, err)
		}
		sorted := append([]int(nil), pl.CPUs...)
		sort.Ints(sorted)
		want(t, fmt.Sprintf("%v placement as a set", p), sorted, topo.Allowed.List())
		checkTiers(t, topo, pl.CPUs)
	}
}

// TestFixturesListed: every fixture directory is in the list above and
// yields a usable topology.
func TestFixturesListed(t *testing.T) {
	ents, err := os.ReadDir("testdata")
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, e := range ents {
		if e.IsDir() && e.Name() != "fuzz" {
			dirs = append(dirs, e.Name())
		}
	}
	listed := append([]string(nil), fixtures...)
	sort.Strings(listed)
	want(t, "fixture directories", dirs, listed)
	for _, name := range fixtures {
		checkInvariants(t, load(t, name), name != "holes")
	}
}

func TestDetectIntel2S(t *testing.T) {
	topo := load(t, "intel-2s")
	checkInvariants(t, topo, true)
	want(t, "degraded", topo.Degraded, []string(nil))
	wantSet(t, "online", topo.Online, "0-15")
	wantSet(t, "allowed", topo.Allowed, "0-15")
	wantSet(t, "offline", topo.Offline, "")
	want(t, "packages", groupSets(topo.Packages), []string{"0-3,8-11", "4-7,12-15"})
	want(t, "package ids", []int{topo.Packages[0].ID, topo.Packages[1].ID}, []int{0, 1})
	want(t, "dies", groupSets(topo.Dies), []string{"0-3,8-11", "4-7,12-15"})
	want(t, "cores", len(topo.Cores), 8)
	want(t, "threads per core", topo.ThreadsPerCore(), 2)
	wantSet(t, "cpu 0 siblings", cpuOf(t, topo, 0).Threads, "0,8")
	wantSet(t, "cpu 13 siblings", cpuOf(t, topo, 13).Threads, "5,13")
	want(t, "cpu 2 core_id (sparse)", cpuOf(t, topo, 2).Core, 8)
	want(t, "cpu 12 package", cpuOf(t, topo, 12).Package, 1)
	want(t, "L2 groups", cacheSets(topo, 2, CacheUnified), []string{"0,8", "1,9", "2,10", "3,11", "4,12", "5,13", "6,14", "7,15"})
	want(t, "L3 groups", cacheSets(topo, 3, CacheUnified), []string{"0-3,8-11", "4-7,12-15"})
	want(t, "L1i groups", len(cacheSets(topo, 1, CacheInstruction)), 8)
	want(t, "caches", len(topo.Caches), 8+8+8+2)
	l3 := topo.Caches[len(topo.Caches)-1]
	want(t, "L3 size", l3.Size, int64(30<<20))
	want(t, "L3 line", l3.LineSize, 64)
	want(t, "L3 id", l3.ID, 1)
	want(t, "L3 name", l3.Name(), "L3")
	wantSet(t, "cpu 3 L2", topo.SharedCache(3, 2), "3,11")
	wantSet(t, "cpu 3 L1", topo.SharedCache(3, 1), "3,11")
	want(t, "nodes", len(topo.Nodes), 2)
	wantSet(t, "node 1", topo.Nodes[1].CPUs, "4-7,12-15")
	want(t, "node 0 distances", topo.Nodes[0].Distances, []int{10, 21})
	want(t, "distance 0-1", topo.Distance(0, 1), 21)
	want(t, "distance 1-1", topo.Distance(1, 1), 10)
	want(t, "distance to a missing node", topo.Distance(0, 7), -1)
	want(t, "cpu 12 node", cpuOf(t, topo, 12).Node, 1)
	want(t, "cpu 0 capacity (none on x86 servers)", cpuOf(t, topo, 0).Capacity, 0)
	want(t, "identity not detected from a fixture", topo.Identity.Known, false)
}

func TestDetectEPYC(t *testing.T) {
	topo := load(t, "epyc-nps2")
	checkInvariants(t, topo, true)
	want(t, "degraded", topo.Degraded, []string(nil))
	wantSet(t, "online", topo.Online, "0-31")
	want(t, "packages", groupSets(topo.Packages), []string{"0-31"})
	want(t, "cores", len(topo.Cores), 16)
	want(t, "threads per core", topo.ThreadsPerCore(), 2)
	wantSet(t, "cpu 21 siblings", cpuOf(t, topo, 21).Threads, "5,21")
	want(t, "L3 groups (CCXs)", cacheSets(topo, 3, CacheUnified), []string{"0-3,16-19", "4-7,20-23", "8-11,24-27", "12-15,28-31"})
	want(t, "L2 groups", len(cacheSets(topo, 2, CacheUnified)), 16)
	wantSet(t, "cpu 22 L3", topo.SharedCache(22, 3), "4-7,20-23")
	for _, c := range topo.Caches {
		if c.Level == 3 && c.Size != 16<<20 {
			t.Errorf("L3 %q size %d, want 16 MiB", c.CPUs, c.Size)
		}
	}
	want(t, "nodes (NPS2)", []string{topo.Nodes[0].CPUs.String(), topo.Nodes[1].CPUs.String()}, []string{"0-7,16-23", "8-15,24-31"})
	want(t, "distance 0-1", topo.Distance(0, 1), 12)
	want(t, "cpu 9 node", cpuOf(t, topo, 9).Node, 1)
	want(t, "cpu 20 node", cpuOf(t, topo, 20).Node, 0)
}

func TestDetectBigLittle(t *testing.T) {
	topo := load(t, "arm64-biglittle")
	checkInvariants(t, topo, true)
	want(t, "degraded", topo.Degraded, []string(nil))
	want(t, "packages", groupSets(topo.Packages), []string{"0-7"})
	want(t, "dies (die_id -1 on arm64)", len(topo.Dies), 0)
	want(t, "clusters", groupSets(topo.Clusters), []string{"0-3", "4-7"})
	want(t, "cores (core_id restarts per cluster)", len(topo.Cores), 8)
	want(t, "cpu 0 and cpu 4 share core_id", cpuOf(t, topo, 0).Core == cpuOf(t, topo, 4).Core, true)
	want(t, "threads per core", topo.ThreadsPerCore(), 1)
	var caps []int
	for _, c := range topo.CPUs {
		caps = append(caps, c.Capacity)
	}
	want(t, "capacities", caps, []int{446, 446, 446, 446, 1024, 1024, 1024, 1024})
	want(t, "L2 groups", cacheSets(topo, 2, CacheUnified), []string{"0-3", "4-7"})
	want(t, "L3 groups", cacheSets(topo, 3, CacheUnified), []string{"0-7"})
	want(t, "L1d groups", len(cacheSets(topo, 1, CacheData)), 8)
	for _, c := range topo.Caches {
		if c.ID != -1 {
			t.Errorf("%s %q: id %d, want -1 (no id files)", c.Name(), c.CPUs, c.ID)
		}
		if c.Level == 2 {
			wantSize := int64(512 << 10)
			if c.CPUs.Contains(4) {
				wantSize = 2 << 20
			}
			want(t, "L2 size of "+c.CPUs.String(), c.Size, wantSize)
		}
	}
	want(t, "nodes", len(topo.Nodes), 1)
	want(t, "node 0 distances", topo.Nodes[0].Distances, []int{10})
}

func TestDetectContainer(t *testing.T) {
	topo := load(t, "container-1cpu")
	checkInvariants(t, topo, true)
	wantSet(t, "online", topo.Online, "0-7")
	wantSet(t, "allowed", topo.Allowed, "3")
	wantSet(t, "offline", topo.Offline, "")
	want(t, "cpu 3 allowed", cpuOf(t, topo, 3).Allowed, true)
	want(t, "cpu 2 allowed", cpuOf(t, topo, 2).Allowed, false)
	want(t, "cores (each CPU its own)", len(topo.Cores), 8)
	want(t, "packages (one, id unknown)", len(topo.Packages), 1)
	want(t, "package id", topo.Packages[0].ID, -1)
	want(t, "caches", len(topo.Caches), 0)
	want(t, "nodes", len(topo.Nodes), 0)
	want(t, "cpu 3 node", cpuOf(t, topo, 3).Node, -1)
	want(t, "degraded", topo.Degraded, []string{
		"cpus 0-7: topology missing: each CPU taken as its own core, package unknown",
		"cpus 0-7: cache information missing: shared caches unknown",
		"NUMA information missing (sys/devices/system/node): one node assumed",
	})
	pl, err := topo.Place(1, PolicyCompact)
	if err != nil {
		t.Fatal(err)
	}
	want(t, "compact placement of 1 worker", pl.CPUs, []int{3})
}

func TestDetectHoles(t *testing.T) {
	topo := load(t, "holes")
	checkInvariants(t, topo, false)
	wantSet(t, "online", topo.Online, "0-1,4-5")
	wantSet(t, "offline", topo.Offline, "2-3,6-7")
	wantSet(t, "allowed (affinity 0-7 cut to online)", topo.Allowed, "0-1,4-5")
	want(t, "cpu 1 package (garbage id, taken from cpu 0)", cpuOf(t, topo, 1).Package, 0)
	want(t, "cpu 0 package", cpuOf(t, topo, 0).Package, 0)
	wantSet(t, "cpu 5 siblings (from thread_siblings_list)", cpuOf(t, topo, 5).Threads, "4-5")
	wantSet(t, "cpu 4 L2 (garbage list: private)", topo.SharedCache(4, 2), "4")
	wantSet(t, "cpu 5 L2", topo.SharedCache(5, 2), "4-5")
	wantSet(t, "cpu 0 L3", topo.SharedCache(0, 3), "0-1,4-5")
	want(t, "distances dropped", topo.Nodes[0].Distances, []int(nil))
	want(t, "distance unknown", topo.Distance(0, 0), -1)
	wantReasons := []string{
		"cpu 1: physical_package_id sys/devices/system/cpu/cpu1/topology/physical_package_id: \"zero\" is not a number: package unknown",
		"cpu 4: L2 shared_cpu_list sys/devices/system/cpu/cpu4/cache/index2/shared_cpu_list: topology: bad cpu list \"zz\": item \"zz\": \"zz\" is not a number: cache taken as private",
		"cpu 5: sys/devices/system/cpu/cpu5/topology/core_cpus_list: topology: bad cpu list \"4-x\": item \"4-x\": \"x\" is not a number: thread_siblings_list tried instead",
		"node0 distance \"10 20\": 2 entries for 1 nodes: NUMA distances unknown",
		"cpu 1: package taken from an SMT sibling",
	}
	if len(topo.Degraded) != len(wantReasons) {
		t.Fatalf("degraded:\n%s\nwant %d reasons", strings.Join(topo.Degraded, "\n"), len(wantReasons))
	}
	for i, r := range wantReasons {
		if topo.Degraded[i] != r {
			t.Errorf("reason %d = %q\n         want %q", i, topo.Degraded[i], r)
		}
	}
}

func TestDetectThisVM(t *testing.T) {
	topo := load(t, "this-vm")
	checkInvariants(t, topo, true)
	want(t, "degraded", topo.Degraded, []string(nil))
	wantSet(t, "online", topo.Online, "0-1")
	want(t, "packages", groupSets(topo.Packages), []string{"0-1"})
	want(t, "cores", groupSets(topo.Cores), []string{"0", "1"})
	want(t, "L2 groups (private)", cacheSets(topo, 2, CacheUnified), []string{"0", "1"})
	want(t, "L3 groups (shared)", cacheSets(topo, 3, CacheUnified), []string{"0-1"})
	want(t, "cpu 1 capacity", cpuOf(t, topo, 1).Capacity, 1024)
	want(t, "node 0 distances", topo.Nodes[0].Distances, []int{10})
}

// An explicit affinity overrides proc/self/status, and one with no online CPU
// falls back to every online CPU with a reason.
func TestDetectFromAllowed(t *testing.T) {
	fsys := os.DirFS("testdata/intel-2s")
	topo := DetectFrom(fsys, MustParseCPUList("4-7,100"))
	wantSet(t, "allowed", topo.Allowed, "4-7")
	want(t, "degraded", topo.Degraded, []string(nil))
	topo = DetectFrom(fsys, MustParseCPUList("100-101"))
	wantSet(t, "allowed", topo.Allowed, "0-15")
	want(t, "degraded", topo.Degraded, []string{"affinity 100-101 has no online CPU: every online CPU assumed allowed"})
}

// permFS makes every path under one of its prefixes unreadable, as a
// container's masked sysfs directories are.
type permFS struct {
	fs.FS
	deny []string
}

func (p permFS) Open(name string) (fs.File, error) {
	for _, d := range p.deny {
		if name == d || strings.HasPrefix(name, d+"/") {
			return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrPermission}
		}
	}
	return p.FS.Open(name)
}

func TestDetectUnreadable(t *testing.T) {
	fsys := permFS{os.DirFS("testdata/intel-2s"), []string{
		"sys/devices/system/node",
		"sys/devices/system/cpu/cpu3",
		"sys/devices/system/cpu/cpu5/cache",
		"sys/devices/system/cpu/online",
	}}
	topo := DetectFrom(fsys, CPUSet{})
	checkInvariants(t, topo, false)
	wantSet(t, "online (from the cpuN directories)", topo.Online, "0-15")
	wantSet(t, "cpu 3 threads", cpuOf(t, topo, 3).Threads, "3")
	wantSet(t, "cpu 11 threads (its own list still names 3)", cpuOf(t, topo, 11).Threads, "3,11")
	want(t, "cpu 5 caches", len(cpuOf(t, topo, 5).Caches), 0)
	want(t, "nodes", len(topo.Nodes), 0)
	want(t, "degraded", topo.Degraded, []string{
		"sys/devices/system/cpu/online unreadable (permission denied): online CPUs taken from the cpuN directories",
		"cpu 3: topology unreadable (permission denied): each CPU taken as its own core, package unknown",
		"cpus 3,5: cache information unreadable (permission denied): shared caches unknown",
		"NUMA information unreadable (permission denied) (sys/devices/system/node): one node assumed",
	})
}

// Without the online list, the cpuN directories are used, minus those whose
// cpuN/online says 0.
func TestDetectOnlineFromDirs(t *testing.T) {
	topo := DetectFrom(permFS{os.DirFS("testdata/holes"), []string{"sys/devices/system/cpu/online"}}, CPUSet{})
	wantSet(t, "online", topo.Online, "0-1,4-5")
	wantSet(t, "offline (from the offline list)", topo.Offline, "2-3,6-7")
	want(t, "first reason", topo.Degraded[0], "sys/devices/system/cpu/online unreadable (permission denied): online CPUs taken from the cpuN directories")
}

// TestDetectEmptyRoot: nothing at all under the root still gives a usable
// topology (runtime.NumCPU CPUs, flat).
func TestDetectEmptyRoot(t *testing.T) {
	topo := DetectFrom(fstest.MapFS{}, CPUSet{})
	checkInvariants(t, topo, true)
	if len(topo.Degraded) == 0 {
		t.Error("no degraded reason for an empty root")
	}
}

// TestDetectGarbage replaces each file of a fixture in turn with garbage: the
// result must always be a usable topology.
func TestDetectGarbage(t *testing.T) {
	base := fstest.MapFS{}
	root := "testdata/holes"
	err := fs.WalkDir(os.DirFS(root), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path.Join(root, p))
		base[p] = &fstest.MapFile{Data: b}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	garbage := []string{"", "x", "0-65535", "-1", "\n", "-", "99999999999999999999", "65535", "1 2 3", "0-3,^0-3", "\x00\xff"}
	if testing.Short() {
		garbage = garbage[:3]
	}
	names := make([]string, 0, len(base))
	for p := range base {
		names = append(names, p)
	}
	sort.Strings(names)
	runs := 0
	for _, p := range names {
		for _, g := range garbage {
			good := base[p]
			base[p] = &fstest.MapFile{Data: []byte(g)}
			topo := DetectFrom(base, CPUSet{})
			base[p] = good
			checkInvariants(t, topo, false)
			runs++
			if t.Failed() {
				t.Fatalf("after %s = %q", p, g)
			}
		}
	}
	t.Logf("%d garbage variants detected", runs)
}
