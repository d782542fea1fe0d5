package par_test

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/blitz-go/blitz"
	"github.com/blitz-go/blitz/par"
)

func ExampleMapSeq() {
	words := slices.Values([]string{"a", "stream", "of", "words"})
	// At most 8 words are held at once, however long the input.
	for s := range par.MapSeq(blitz.Default(), words, 8, strings.ToUpper) {
		fmt.Print(s, " ")
	}
	fmt.Println()
	// Output: A STREAM OF WORDS
}

func ExampleMapSeq2() {
	stock := map[string]int{"apples": 3, "pears": 5, "plums": 7}
	sorted := func(yield func(string, int) bool) {
		for _, k := range slices.Sorted(maps.Keys(stock)) {
			if !yield(k, stock[k]) {
				return
			}
		}
	}
	for k, v := range par.MapSeq2(blitz.Default(), sorted, 4, func(k string, n int) int { return 10 * n }) {
		fmt.Println(k, v)
	}
	// Output:
	// apples 30
	// pears 50
	// plums 70
}

func ExampleMapSeqErr() {
	ids := slices.Values([]int{1, 2, 3, -4, 5})
	for name, err := range par.MapSeqErr(blitz.Default(), ids, 4, func(id int) (string, error) {
		if id < 0 {
			return "", errors.New("bad id")
		}
		return fmt.Sprint("user", id), nil
	}) {
		if err != nil {
			fmt.Println("error:", err) // the last value of the sequence
			break
		}
		fmt.Println(name)
	}
	// Output:
	// user1
	// user2
	// user3
	// error: bad id
}

func ExampleForEachSeq2() {
	var total [3]int
	par.ForEachSeq2(blitz.Default(), slices.All([]int{10, 20, 30}), func(i, v int) { total[i] = v * 2 })
	fmt.Println(total)
	// Output: [20 40 60]
}
