//go:build race

package deque

// raceEnabled scales the stress tests down under -race, where every
// atomic access is a call into the detector (about 10x slower).
const raceEnabled = true
