package deque

import "strconv"

// Status is the outcome of a Steal.
type Status uint8

const (
	// Empty: the deque held no element when the thief looked. Not a promise
	// about the future: the owner may push at any moment.
	Empty Status = iota
	// Success: the thief took the oldest element; it is the returned value.
	Success
	// Retry: the deque was not empty but the thief lost a race (another thief
	// or the owner's Pop took the element it was after, or the owner swapped
	// in a bigger buffer while it read). Nothing was taken; trying again may
	// succeed. A thief that moves on to another victim instead loses nothing.
	Retry
)

// String returns "Empty", "Success" or "Retry".
func (s Status) String() string {
	switch s {
	case Empty:
		return "Empty"
	case Success:
		return "Success"
	case Retry:
		return "Retry"
	}
	return "Status(" + strconv.Itoa(int(s)) + ")"
}
