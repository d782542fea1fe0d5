package main

import (
	"fmt"
	"testing"

	"github.com/blitz-go/blitz"
)

// The pool's side of every workload: how a row gets its pool. The rows
// themselves live in the workload's file beside the sequential and peer
// versions.

// parkings maps the -parking names to the pool's backends; parkingNames is
// their order in reports.
var parkings = map[string]blitz.Parking{
	"auto":     blitz.ParkingAuto,
	"futex":    blitz.ParkingFutex,
	"portable": blitz.ParkingPortable,
	"spin":     blitz.ParkingSpin,
	"cond":     blitz.ParkingCond,
}

// parkingNames are the backends -parking accepts; "all" runs each.
var parkingNames = []string{"auto", "futex", "portable", "spin", "cond"}

// resolveParking returns the backend the pool picks for a -parking name
// ("auto" -> "futex" on Linux), or why the system lacks it.
func resolveParking(name string) (string, error) {
	kind, ok := parkings[name]
	if !ok {
		return "", fmt.Errorf("unknown parking backend %q", name)
	}
	p, err := blitz.New(blitz.WithWorkers(1), blitz.WithParking(kind))
	if err != nil {
		return "", err
	}
	defer p.Close()
	return p.Parking().String(), nil
}

// openPool starts a pool with the given workers and backend.
func openPool(workers int, parking string) (*blitz.Pool, error) {
	kind, ok := parkings[parking]
	if !ok {
		return nil, fmt.Errorf("unknown parking backend %q", parking)
	}
	return blitz.New(blitz.WithWorkers(workers), blitz.WithParking(kind))
}

// newPool starts a pool for one row, failing b if the options are refused
// (ParkingFutex off Linux, for example).
func newPool(b *testing.B, c *Case) *blitz.Pool {
	p, err := openPool(c.Workers, c.Parking)
	if err != nil {
		fail(b, c, "blitz.New: %v", err)
	}
	return p
}

// closePool closes p at the end of a row, failing b on an error.
func closePool(b *testing.B, c *Case, p *blitz.Pool) {
	if err := p.Close(); err != nil {
		fail(b, c, "Close: %v", err)
	}
}

// poolRows returns one row per parking backend and worker count of cfg:
// the Case mk returns, with its Parking set and its body bound to a pool of
// that size and backend. setup builds the row's input, checks the pool's
// answer (failing b if it is wrong) and returns one op; prepare, if not nil,
// runs untimed before each op.
func poolRows(cfg Config, mk func(workers int) Case, setup func(b *testing.B, c *Case, p *blitz.Pool) (prepare, op func())) []Case {
	var out []Case
	for _, parking := range cfg.Parkings {
		for _, w := range cfg.Workers {
			c := mk(w)
			c.Parking = parking
			out = append(out, bind(c, func(b *testing.B, c *Case) {
				p := newPool(b, c)
				defer closePool(b, c, p)
				prepare, op := setup(b, c, p)
				measure(b, c, prepare, op)
			}))
		}
	}
	return out
}
