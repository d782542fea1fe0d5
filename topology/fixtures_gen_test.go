package topology

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The fixtures under testdata/ are plain file trees in git; this file is how
// the synthetic ones were written. Regenerate them with
//
//	go test ./topology -run TestGenerateFixtures -genfixtures
//
// testdata/this-vm was copied from a real machine by testdata/capture.sh.
var genFixtures = flag.Bool("genfixtures", false, "rewrite the synthetic fixtures under testdata/")

// fixture is a file tree: path (relative to the fixture root) -> contents.
type fixture map[string]string

const cpuRoot = "sys/devices/system/cpu/"

func (f fixture) cpuTopo(cpu, pkg, die, cluster, core int, threads string) {
	p := fmt.Sprintf("%scpu%d/topology/", cpuRoot, cpu)
	f[p+"physical_package_id"] = fmt.Sprint(pkg)
	f[p+"die_id"] = fmt.Sprint(die)
	f[p+"cluster_id"] = fmt.Sprint(cluster)
	f[p+"core_id"] = fmt.Sprint(core)
	f[p+"core_cpus_list"] = threads
	f[p+"thread_siblings_list"] = threads
}

// cache writes cpuN/cache/indexK; id < 0 leaves the id file out (arm64
// without ACPI PPTT has none).
func (f fixture) cache(cpu, index, level int, typ, size, shared string, id int) {
	p := fmt.Sprintf("%scpu%d/cache/index%d/", cpuRoot, cpu, index)
	f[p+"level"] = fmt.Sprint(level)
	f[p+"type"] = typ
	f[p+"size"] = size
	f[p+"shared_cpu_list"] = shared
	f[p+"coherency_line_size"] = "64"
	if id >= 0 {
		f[p+"id"] = fmt.Sprint(id)
	}
}

func (f fixture) node(id int, cpulist, distance string) {
	p := fmt.Sprintf("sys/devices/system/node/node%d/", id)
	f[p+"cpulist"] = cpulist
	f[p+"distance"] = distance
}

func (f fixture) cpus(online, offline, possible, allowed string) {
	f[cpuRoot+"online"] = online
	f[cpuRoot+"offline"] = offline
	f[cpuRoot+"possible"] = possible
	f["proc/self/status"] = "Cpus_allowed_list:\t" + allowed
}

// intel2S: two sockets of 4 cores x 2 threads (Linux numbers the first
// threads of every core first: socket 0 = 0-3,8-11, socket 1 = 4-7,12-15),
// sparse core ids as on Xeon SP, an L3 per socket, one NUMA node per socket.
func intel2S() fixture {
	f := fixture{}
	f.cpus("0-15", "", "0-15", "0-15")
	coreIDs := []int{0, 1, 8, 9}
	for c := 0; c < 16; c++ {
		s, k := (c/4)%2, c%4
		first := s*4 + k
		threads := fmt.Sprintf("%d,%d", first, first+8)
		f.cpuTopo(c, s, 0, s*32+coreIDs[k]*2, coreIDs[k], threads)
		l3 := fmt.Sprintf("%d-%d,%d-%d", s*4, s*4+3, s*4+8, s*4+11)
		f.cache(c, 0, 1, "Data", "48K", threads, coreIDs[k]+s*32)
		f.cache(c, 1, 1, "Instruction", "32K", threads, coreIDs[k]+s*32)
		f.cache(c, 2, 2, "Unified", "2048K", threads, coreIDs[k]+s*32)
		f.cache(c, 3, 3, "Unified", "30720K", l3, s)
	}
	f.node(0, "0-3,8-11", "10 21")
	f.node(1, "4-7,12-15", "21 10")
	return f
}

// epycNPS2: one socket of 16 cores x 2 threads (core k = CPUs k, k+16), four
// CCXs of 4 cores each with its own 16 MiB L3, in NPS2 mode (two NUMA nodes
// of two CCXs each, distance 12).
func epycNPS2() fixture {
	f := fixture{}
	f.cpus("0-31", "", "0-31", "0-31")
	for c := 0; c < 32; c++ {
		k := c % 16
		x := k / 4
		threads := fmt.Sprintf("%d,%d", k, k+16)
		f.cpuTopo(c, 0, 0, k, k, threads)
		l3 := fmt.Sprintf("%d-%d,%d-%d", x*4, x*4+3, x*4+16, x*4+19)
		f.cache(c, 0, 1, "Data", "32K", threads, k)
		f.cache(c, 1, 1, "Instruction", "32K", threads, k)
		f.cache(c, 2, 2, "Unified", "512K", threads, k)
		f.cache(c, 3, 3, "Unified", "16384K", l3, x)
	}
	f.node(0, "0-7,16-23", "10 12")
	f.node(1, "8-15,24-31", "12 10")
	return f
}

// arm64BigLittle: 4 little cores (cluster 0, CPUs 0-3, capacity 446) and 4
// big ones (cluster 1, CPUs 4-7, capacity 1024), no SMT, an L2 per cluster
// and one L3 for all; core_id restarts in each cluster and die_id is -1, as
// the arm64 kernel reports them; no cache id files.
func arm64BigLittle() fixture {
	f := fixture{}
	f.cpus("0-7", "", "0-7", "0-7")
	for c := 0; c < 8; c++ {
		cl := c / 4
		f.cpuTopo(c, 0, -1, cl, c%4, fmt.Sprint(c))
		l1, l2, capacity, cluster := "32K", "512K", "446", "0-3"
		if cl == 1 {
			l1, l2, capacity, cluster = "64K", "2048K", "1024", "4-7"
		}
		f[fmt.Sprintf("%scpu%d/cpu_capacity", cpuRoot, c)] = capacity
		f.cache(c, 0, 1, "Data", l1, fmt.Sprint(c), -1)
		f.cache(c, 1, 1, "Instruction", l1, fmt.Sprint(c), -1)
		f.cache(c, 2, 2, "Unified", l2, cluster, -1)
		f.cache(c, 3, 3, "Unified", "4096K", "0-7", -1)
	}
	f.node(0, "0-7", "10")
	return f
}

// container1CPU: what a minimal container sandbox shows: the online list of
// an 8-CPU host, no per-CPU directories, no NUMA directory, and an affinity of
// one CPU.
func container1CPU() fixture {
	f := fixture{}
	f[cpuRoot+"online"] = "0-7"
	f[cpuRoot+"possible"] = "0-7"
	f["proc/self/status"] = "Cpus_allowed_list:\t3"
	return f
}

// holes: 8 possible CPUs of which 2-3 and 6-7 are offline (2-3 keep a cpuN
// directory holding only online = 0, as the kernel leaves it; 6-7 have none), and malformed files: a garbage
// physical_package_id, a garbage core_cpus_list (thread_siblings_list is
// good), a garbage L2 shared_cpu_list, a distance row of the wrong length, and
// an affinity naming offline CPUs.
func holes() fixture {
	f := fixture{}
	f.cpus("0-1,4-5", "2-3,6-7", "0-7", "0-7")
	for _, c := range []int{0, 1, 4, 5} {
		threads := "0-1"
		if c >= 4 {
			threads = "4-5"
		}
		f.cpuTopo(c, 0, 0, c/4, c/4, threads)
		f.cache(c, 0, 1, "Data", "32K", threads, c/4)
		f.cache(c, 2, 2, "Unified", "1024K", threads, c/4)
		f.cache(c, 3, 3, "Unified", "8192K", "0-1,4-5", 0)
	}
	f[cpuRoot+"cpu2/online"] = "0"
	f[cpuRoot+"cpu3/online"] = "0"
	f[cpuRoot+"cpu1/topology/physical_package_id"] = "zero"
	f[cpuRoot+"cpu5/topology/core_cpus_list"] = "4-x"
	f[cpuRoot+"cpu4/cache/index2/shared_cpu_list"] = "zz"
	f.node(0, "0-1,4-5", "10 20")
	return f
}

var synthetic = map[string]func() fixture{
	"intel-2s":        intel2S,
	"epyc-nps2":       epycNPS2,
	"arm64-biglittle": arm64BigLittle,
	"container-1cpu":  container1CPU,
	"holes":           holes,
}

func TestGenerateFixtures(t *testing.T) {
	if !*genFixtures {
		t.Skip("run with -genfixtures to rewrite testdata/")
	}
	for name, gen := range synthetic {
		root := filepath.Join("testdata", name)
		if err := os.RemoveAll(root); err != nil {
			t.Fatal(err)
		}
		for p, body := range gen() {
			full := filepath.Join(root, filepath.FromSlash(p))
			if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
				t.Fatal(err)
			}
			if !strings.HasSuffix(body, "\n") {
				body += "\n"
			}
			if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}
