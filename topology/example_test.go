package topology_test

import (
	"fmt"
	"os"

	"github.com/blitz-go/blitz/topology"
)

// A pool's start-up: read the machine's topology (here a captured
// two-socket server; on a live system, topology.Detect()), choose a CPU for
// each worker, and give each worker its steal victims, nearest first. Each
// worker goroutine would then call topology.Pin with its CPU, and run
// unpinned if that fails (see the example of Pin).
func Example() {
	t := topology.DetectFrom(os.DirFS("testdata/intel-2s"), topology.CPUSet{})
	fmt.Println(len(t.Packages), "packages,", len(t.Cores), "cores,", t.Allowed.Len(), "CPUs allowed")

	pl, err := t.Place(4, topology.PolicyScatter)
	if err != nil {
		panic(err)
	}
	fmt.Println("worker CPUs:", pl.CPUs)

	for _, tier := range t.StealTiersLabelled(pl.CPUs)[0] {
		fmt.Println("worker 0 steals from", tier.Kind, tier.Workers)
	}
	// Output:
	// 2 packages, 8 cores, 16 CPUs allowed
	// worker CPUs: [0 4 1 5]
	// worker 0 steals from l3 [2]
	// worker 0 steals from remote [1 3]
}

func ExampleParseCPUList() {
	set, err := topology.ParseCPUList("0-7,^5,12-15:2\n")
	if err != nil {
		panic(err)
	}
	fmt.Println(set, set.Len(), set.Contains(5))
	// Output: 0-4,6-7,12,14 9 false
}

func ExampleDetectFrom() {
	// A two-socket server: 2 x 4 cores x 2 threads, an L3 and a NUMA node
	// per socket. On a live system, use topology.Detect().
	t := topology.DetectFrom(os.DirFS("testdata/intel-2s"), topology.CPUSet{})
	fmt.Println("packages:", len(t.Packages), "cores:", len(t.Cores), "threads per core:", t.ThreadsPerCore())
	c, _ := t.CPU(0)
	fmt.Println("cpu 0 siblings:", c.Threads, "L3:", t.SharedCache(0, 3), "node:", c.Node)
	fmt.Println("distance node 0 to 1:", t.Distance(0, 1), "degraded:", len(t.Degraded))
	// Output:
	// packages: 2 cores: 8 threads per core: 2
	// cpu 0 siblings: 0,8 L3: 0-3,8-11 node: 0
	// distance node 0 to 1: 21 degraded: 0
}

func ExampleTopology_Place() {
	t := topology.DetectFrom(os.DirFS("testdata/intel-2s"), topology.CPUSet{})
	compact, _ := t.Place(4, topology.PolicyCompact)
	scatter, _ := t.Place(4, topology.PolicyScatter)
	fmt.Println("compact:", compact.CPUs)
	fmt.Println("scatter:", scatter.CPUs)
	over, _ := t.Place(18, topology.PolicyScatter)
	fmt.Println(over.Oversubscribed, over.Notes[0])
	// Output:
	// compact: [0 8 1 9]
	// scatter: [0 4 1 5]
	// true oversubscribed: 18 workers on 16 CPUs (scatter); CPUs are reused in order, up to 2 workers per CPU
}

func ExampleTopology_StealTiers() {
	t := topology.DetectFrom(os.DirFS("testdata/intel-2s"), topology.CPUSet{})
	pl, _ := t.Place(6, topology.PolicyCompact) // CPUs 0 8 1 9 2 10
	pl.CPUs = append(pl.CPUs, 4)                // a 7th worker on the other socket
	for _, tier := range t.StealTiersLabelled(pl.CPUs)[0] {
		fmt.Println(tier.Kind, tier.Workers)
	}
	fmt.Println(t.StealTiers(pl.CPUs)[0])
	// Output:
	// smt [1]
	// l3 [2 3 4 5]
	// remote [6]
	// [[1] [2 3 4 5] [6]]
}

// A worker goroutine pins itself for its whole life and falls back to running
// unpinned when the CPU cannot be had.
func ExamplePin() {
	t := topology.Detect()
	pl, err := t.Place(1, topology.PolicyCompact)
	if err != nil {
		panic(err)
	}
	done := make(chan string)
	go func() {
		status := "pinned"
		if _, err := topology.Pin(pl.CPUs[0]); err != nil {
			status = "unpinned: " + err.Error() // report it in the pool's stats
		}
		// ... the worker loop runs here; returning while still locked ends
		// the OS thread, so its one-CPU mask dies with it.
		done <- status
	}()
	fmt.Println(<-done != "")
	// Output: true
}
