package blitz_test

import (
	"fmt"
	"log"

	"github.com/blitz-go/blitz"
)

// A pool grows and shrinks while it runs; a shrink lets each retired worker
// finish what it holds first.
func ExamplePool_Resize() {
	p, err := blitz.New(blitz.WithWorkers(2))
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close()
	if err := p.Resize(4); err != nil {
		log.Fatal(err)
	}
	fmt.Println(p.Workers(), len(blitz.Broadcast(p, func(w *blitz.Worker) int { return w.Index() })))
	if err := p.Resize(1); err != nil {
		log.Fatal(err)
	}
	fmt.Println(p.Workers(), blitz.Do(p, func(w *blitz.Worker) int { return 6 * 7 }))
	// Output:
	// 4 4
	// 1 42
}

// Per-worker state set up by a start hook and visited with Broadcast.
func ExampleBroadcast() {
	scratch := make([][]byte, 4) // one buffer per worker index
	p, err := blitz.New(blitz.WithWorkers(4),
		blitz.WithWorkerStart(func(id int) { scratch[id] = make([]byte, 1<<10) }),
		blitz.WithWorkerExit(func(id int) { scratch[id] = nil }))
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close()
	fmt.Println(blitz.Broadcast(p, func(w *blitz.Worker) int { return len(scratch[w.Index()]) }))
	// Output: [1024 1024 1024 1024]
}
