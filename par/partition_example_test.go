package par_test

import (
	"fmt"

	"github.com/blitz-go/blitz"
	"github.com/blitz-go/blitz/par"
)

func ExamplePartition() {
	tasks := []string{"a!", "b", "c!", "d", "e!"}
	urgent := func(t string) bool { return t[len(t)-1] == '!' }
	k := par.Partition(blitz.Default(), tasks, urgent)
	// Stable: each group keeps its order.
	fmt.Println(tasks[:k], tasks[k:])
	// Output: [a! c! e!] [b d]
}
