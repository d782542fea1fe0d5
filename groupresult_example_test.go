package blitz_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/blitz-go/blitz"
)

// The results come in the order of Go, whichever task finished first.
func ExampleResultGroup() {
	var g blitz.ResultGroup[string] // the zero ResultGroup runs on Default()
	for _, word := range []string{"alpha", "beta", "gamma"} {
		g.Go(func(*blitz.Worker) (string, error) { return strings.ToUpper(word), nil })
	}
	words, err := g.Wait()
	fmt.Println(words, err)
	// Output: [ALPHA BETA GAMMA] <nil>
}

// A ResultGroup on a Sub runs its tasks in the Sub's slots, here at most
// two at once; the first error cancels the group's context.
func ExampleNewResultGroup() {
	thumbnails, err := blitz.Default().Sub(2, 100)
	if err != nil {
		panic(err)
	}
	defer thumbnails.Close()
	g, ctx := blitz.NewResultGroup[int](context.Background(), thumbnails)
	for _, size := range []int{64, 128, 256} {
		g.Go(func(*blitz.Worker) (int, error) {
			if ctx.Err() != nil {
				return 0, ctx.Err()
			}
			return size * size, nil
		})
	}
	pixels, err := g.Wait()
	fmt.Println(pixels, err)
	// Output: [4096 16384 65536] <nil>
}

// JoinErrors makes Wait return every task's error, in the order of Go,
// instead of the first; each failed task's result keeps its place.
func ExampleResultGroup_JoinErrors() {
	var g blitz.ResultGroup[int]
	g.JoinErrors()
	for _, s := range []string{"1", "two", "3", "four"} {
		g.Go(func(*blitz.Worker) (int, error) {
			var n int
			_, err := fmt.Sscan(s, &n)
			if err != nil {
				err = fmt.Errorf("%q is not a number", s)
			}
			return n, err
		})
	}
	numbers, err := g.Wait()
	fmt.Println(numbers)
	fmt.Println(err)
	// Output:
	// [1 0 3 0]
	// "two" is not a number
	// "four" is not a number
}
