package par_test

import (
	"fmt"
	"strings"

	"github.com/blitz-go/blitz"
	"github.com/blitz-go/blitz/par"
)

var logLines = []string{
	"GET /index 200",
	"GET /login 200",
	"POST /login 500",
	"GET /about 200",
	"POST /upload 500",
}

func failed(line string) bool { return strings.HasSuffix(line, " 500") }

func ExampleAll() {
	fmt.Println(par.All(blitz.Default(), logLines, func(l string) bool { return strings.Contains(l, " /") }))
	// Output: true
}

func ExampleIndexFunc() {
	// The leftmost match, as slices.IndexFunc.
	fmt.Println(par.IndexFunc(blitz.Default(), logLines, failed))
	// Output: 2
}

func ExampleLastIndexFunc() {
	fmt.Println(par.LastIndexFunc(blitz.Default(), logLines, failed))
	// Output: 4
}

func ExampleIndexAnyFunc() {
	// Some match, whichever a worker found first: 2 or 4 here.
	i := par.IndexAnyFunc(blitz.Default(), logLines, failed)
	fmt.Println(failed(logLines[i]))
	// The only match: its element is s[i].
	if i := par.IndexAnyFunc(blitz.Default(), logLines, func(l string) bool { return strings.HasPrefix(l, "GET /a") }); i >= 0 {
		fmt.Println(logLines[i])
	}
	// Output:
	// true
	// GET /about 200
}

func ExampleContains() {
	ids := []int{17, 4, 99, 23}
	fmt.Println(par.Contains(blitz.Default(), ids, 99), par.Contains(blitz.Default(), ids, 5))
	// Output: true false
}

func ExampleContainsFunc() {
	// Every worker stops once one found a match.
	fmt.Println(par.ContainsFunc(blitz.Default(), logLines, failed))
	fmt.Println(par.ContainsFunc(blitz.Default(), logLines, func(l string) bool { return strings.HasPrefix(l, "DELETE") }))
	// Output:
	// true
	// false
}

func ExampleIndex() {
	fmt.Println(par.Index(blitz.Default(), []string{"a", "b", "c", "b"}, "b"))
	// Output: 1
}
