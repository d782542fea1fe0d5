package blitz_test

import (
	"fmt"
	"strings"

	"github.com/blitz-go/blitz"
)

var logLines = []string{
	"GET /index 200",
	"GET /login 200",
	"POST /login 500",
	"GET /about 200",
	"POST /upload 500",
}

func failed(line string) bool { return strings.HasSuffix(line, " 500") }

func ExampleAny() {
	// Every worker stops once one found a match.
	fmt.Println(blitz.Any(blitz.Default(), logLines, failed))
	// Output: true
}

func ExampleAll() {
	fmt.Println(blitz.All(blitz.Default(), logLines, func(l string) bool { return strings.Contains(l, " /") }))
	// Output: true
}

func ExampleIndexFunc() {
	// The leftmost match, as slices.IndexFunc.
	fmt.Println(blitz.IndexFunc(blitz.Default(), logLines, failed))
	// Output: 2
}

func ExampleLastIndexFunc() {
	fmt.Println(blitz.LastIndexFunc(blitz.Default(), logLines, failed))
	// Output: 4
}

func ExampleIndexAnyFunc() {
	// Some match, whichever a worker found first: 2 or 4 here.
	i := blitz.IndexAnyFunc(blitz.Default(), logLines, failed)
	fmt.Println(failed(logLines[i]))
	// Output: true
}

func ExampleFindAny() {
	line, ok := blitz.FindAny(blitz.Default(), logLines, func(l string) bool { return strings.HasPrefix(l, "GET /a") })
	fmt.Println(line, ok)
	// Output: GET /about 200 true
}

func ExampleContains() {
	ids := []int{17, 4, 99, 23}
	fmt.Println(blitz.Contains(blitz.Default(), ids, 99), blitz.Contains(blitz.Default(), ids, 5))
	// Output: true false
}

func ExampleContainsFunc() {
	fmt.Println(blitz.ContainsFunc(blitz.Default(), logLines, func(l string) bool { return strings.HasPrefix(l, "DELETE") }))
	// Output: false
}

func ExampleIndex() {
	fmt.Println(blitz.Index(blitz.Default(), []string{"a", "b", "c", "b"}, "b"))
	// Output: 1
}
