package atomics_test

import (
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/blitz-go/blitz/atomics"
)

// A producer publishes a result with a release store; a consumer that sees
// the flag with an acquire load also sees everything written before it.
func ExampleStoreRelease64() {
	var (
		result uint64 // plain data, written before the flag
		ready  uint64 // 0 until result is published
	)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		result = 42
		atomics.StoreRelease64(&ready, 1) // pairs with the LoadAcquire64 below
	}()
	wg.Wait() // (a real consumer would spin on the flag instead)
	if atomics.LoadAcquire64(&ready) == 1 {
		fmt.Println(result)
	}
	// Output: 42
}

// Two counters written by different goroutines, kept on different cache
// lines (and, on amd64, different adjacent-line pairs), so that neither
// writer invalidates the other's line.
func ExamplePad() {
	type counters struct {
		produced atomic.Uint64 // written by the producer only
		_        atomics.Pad
		consumed atomic.Uint64 // written by the consumer only
	}
	var c counters
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); c.produced.Add(1000) }()
	go func() { defer wg.Done(); c.consumed.Add(1000) }()
	wg.Wait()
	fmt.Println(c.produced.Load(), c.consumed.Load(), unsafe.Offsetof(c.consumed) >= atomics.CacheLineSize)
	// Output: 1000 1000 true
}

// Announce-then-check, the pattern a full fence exists for: store our own
// flag, fence, then read the other side's. Two goroutines doing this cannot
// both miss each other's store.
func ExampleSeqCstFence() {
	var mine, theirs uint32
	atomics.StoreRelease32(&mine, 1)
	atomics.SeqCstFence() // pairs with the other side's fence between its store and its load
	fmt.Println(atomic.LoadUint32(&theirs))
	// Output: 0
}
