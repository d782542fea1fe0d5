//go:build !unix

package main

// readUsage reports nothing where getrusage does not exist.
func readUsage() usage { return usage{} }
