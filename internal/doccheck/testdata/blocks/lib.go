// Package lib is a fixture: doc comments with code blocks, some of which
// no longer compile.
//
// A complete program, which compiles:
//
//	package main
//
//	import "fmt"
//
//	func main() { fmt.Println("ok") }
//
// A table, which is not Go:
//
//	to ...        call
//	count words   Count
package lib

// Count counts s's words. A fragment that leaves s and n to the reader:
//
//	n := strings.Count(s, " ") + 1
func Count(s string) int { return 0 }

// Gone says a name its package lacks:
//
//	strings.NoSuchFunc(s)
func Gone() {}

// Args calls with too few arguments:
//
//	fmt.Println(strings.Repeat("a"))
func Args() {}

// Program is a complete program that uses a name nothing defines, which a
// fragment could, but a program cannot:
//
//	package main
//
//	func main() { println(total) }
func Program() {}

// Decls are declarations that import what they use, and some they do not:
//
//	import "strconv"
//
//	func itoa(ctx context.Context, n int) string { return strconv.Itoa(n) + fetch(ctx) }
func Decls() {}

// unexported is not shown by go doc:
//
//	strings.NoSuchFunc(s)
func unexported() {}
