package par_test

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/blitz-go/blitz"
	"github.com/blitz-go/blitz/par"
)

func ExampleFlatMap() {
	lines := []string{"fork join", "", "steal park wake"}
	words := par.FlatMap(blitz.Default(), lines, strings.Fields)
	fmt.Println(words, len(words))
	// Output: [fork join steal park wake] 5
}

func ExampleFilterMap() {
	fields := []string{"12", "x", "7", "", "40"}
	nums := par.FilterMap(blitz.Default(), fields, func(s string) (int, bool) {
		n, err := strconv.Atoi(s)
		return n, err == nil
	})
	fmt.Println(nums)
	// Output: [12 7 40]
}

func ExamplePartitionMap() {
	fields := []string{"12", "x", "7", "y"}
	nums, bad := par.PartitionMap(blitz.Default(), fields, func(s string) (int, error, bool) {
		n, err := strconv.Atoi(s)
		return n, err, err == nil
	})
	fmt.Println(nums, len(bad))
	// Output: [12 7] 2
}
