//go:build !race

package deque

// raceEnabled: see race_test.go.
const raceEnabled = false
