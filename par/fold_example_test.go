package par_test

import (
	"fmt"
	"strings"

	"github.com/blitz-go/blitz"
	"github.com/blitz-go/blitz/par"
)

func ExampleFold() {
	words := strings.Fields("the cat saw the dog and the cat ran")
	// One map per piece, merged at the end: no lock, no map per word.
	counts := par.Fold(blitz.Default(), words,
		func() map[string]int { return map[string]int{} },
		func(m map[string]int, w string) map[string]int { m[w]++; return m },
		func(a, b map[string]int) map[string]int {
			for w, n := range b {
				a[w] += n
			}
			return a
		})
	fmt.Println(counts["the"], counts["cat"], counts["dog"])
	// Output: 3 2 1
}
