// Package doccheck checks what go doc and pkgsite show of the module's
// packages against the code: UnattachedExamples finds the Example functions
// that attach to no name, so that no page shows them, and CheckBlocks
// type-checks the Go code blocks of the doc comments, so that a snippet
// naming a function that moved or changed fails a test instead of a reader.
// Its tests run the first over every package of the repository (nested
// modules included) and the second over the root module's; the root
// package's readme_test.go builds and runs the README's programs.
package doccheck
