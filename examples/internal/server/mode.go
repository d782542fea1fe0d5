package server

import "fmt"

// Mode selects where the server runs a request's work.
type Mode int

const (
	// Inline runs the work in the handler goroutine.
	Inline Mode = iota
	// Ants runs it on an ants pool, non-blocking, 503 when full.
	Ants
	// Blitz runs it on a blitz pool, 503 when Capacity requests are in flight.
	Blitz
)

// Modes lists every mode, in the order reports use.
var Modes = []Mode{Inline, Ants, Blitz}

// String returns the name used in flags and reports.
func (m Mode) String() string {
	switch m {
	case Inline:
		return "inline"
	case Ants:
		return "ants"
	case Blitz:
		return "blitz"
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// ParseMode parses a mode name (inline, ants, blitz).
func ParseMode(s string) (Mode, error) {
	for _, m := range Modes {
		if m.String() == s {
			return m, nil
		}
	}
	return 0, fmt.Errorf("server: unknown mode %q (want inline, ants or blitz)", s)
}
