package deque_test

import (
	"fmt"
	"sync"

	"github.com/blitz-go/blitz/deque"
)

// The owner pushes and pops at the bottom (newest first); thieves steal
// from the top (oldest first).
func Example() {
	d := deque.New[uint64](0)
	for i := uint64(1); i <= 4; i++ {
		d.Push(i)
	}
	v, _ := d.Pop()
	fmt.Println("owner popped", v)
	s, st := d.Steal()
	fmt.Println("thief stole", s, st)
	fmt.Println("left", d.Len())
	// Output:
	// owner popped 4
	// thief stole 1 Success
	// left 2
}

// A thief's loop: Retry means it lost a race, not that the deque is empty.
func ExampleDeque_Steal() {
	d := deque.New[int64](2)
	for i := range int64(1000) {
		d.Push(i)
	}
	var (
		mu    sync.Mutex
		total int64
		wg    sync.WaitGroup
	)
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine int64
			for {
				v, st := d.Steal()
				if st == deque.Empty {
					break
				}
				if st == deque.Success {
					mine += v
				}
				// deque.Retry: try again.
			}
			mu.Lock()
			total += mine
			mu.Unlock()
		}()
	}
	wg.Wait()
	fmt.Println(total)
	// Output: 499500
}
