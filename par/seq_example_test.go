package par_test

import (
	"fmt"
	"maps"
	"sync/atomic"

	"github.com/blitz-go/blitz"
	"github.com/blitz-go/blitz/par"
)

func ExampleForEachSeq() {
	stock := map[string]int{"apples": 3, "pears": 5, "plums": 7}
	var total atomic.Int64
	// Any iter.Seq: values arrive in no particular order.
	par.ForEachSeq(blitz.Default(), maps.Values(stock), func(n int) { total.Add(int64(n)) })
	fmt.Println(total.Load())
	// Output: 15
}
