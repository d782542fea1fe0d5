package workload

import (
	"fmt"
	"sync"
	"testing"

	"github.com/blitz-go/blitz"
)

// The pool's side of every workload: how a row gets its pool. The rows
// themselves live in the workload's file beside the sequential and peer
// versions.

// parkings maps the -parking names to the pool's backends.
var parkings = map[string]blitz.Parking{
	"auto":     blitz.ParkingAuto,
	"futex":    blitz.ParkingFutex,
	"portable": blitz.ParkingPortable,
	"spin":     blitz.ParkingSpin,
	"cond":     blitz.ParkingCond,
}

// ParkingNames are the backends -parking accepts, in report order; "all"
// runs each.
func ParkingNames() []string { return []string{"auto", "futex", "portable", "spin", "cond"} }

// ResolveParking returns the backend the pool picks for a -parking name
// ("auto" -> "portable"), or why the system lacks it.
func ResolveParking(name string) (string, error) {
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

// OpenPool starts a pool with the given workers and backend (a -parking
// name).
func OpenPool(workers int, parking string) (*blitz.Pool, error) {
	kind, ok := parkings[parking]
	if !ok {
		return nil, fmt.Errorf("unknown parking backend %q", parking)
	}
	return blitz.New(blitz.WithWorkers(workers), blitz.WithParking(kind))
}

// newPool starts a pool for one row, failing b if the options are refused
// (ParkingFutex off Linux, for example).
func newPool(b *testing.B, c *Case) *blitz.Pool {
	p, err := OpenPool(c.Workers, c.Parking)
	if err != nil {
		Fail(b, c, "blitz.New: %v", err)
	}
	return p
}

// closePool closes p at the end of a row, failing b on an error.
func closePool(b *testing.B, c *Case, p *blitz.Pool) {
	if err := p.Close(); err != nil {
		Fail(b, c, "Close: %v", err)
	}
}

// poolRows returns one row per parking backend and worker count of cfg:
// the Case mk returns, with its Parking set and its body bound to a pool of
// that size and backend. setup builds the row's input, checks the pool's
// answer (failing b if it is wrong) and returns one op; prepare, if not nil,
// runs untimed before each op.
func poolRows(cfg Config, mk func(workers int) Case, setup func(b *testing.B, c *Case, p *blitz.Pool) (prepare, op func())) []Case {
	return rowsOnPools(cfg, false, mk, setup)
}

// longLivedRows is poolRows for the fork-join rows (fib, fork-join): at 2
// workers and more each row comes twice, on a new pool (pool=fresh) and on a
// long-lived one (pool=warm: warmPool), because a pool's speed must not
// depend on what it ran before.
func longLivedRows(cfg Config, mk func(workers int) Case, setup func(b *testing.B, c *Case, p *blitz.Pool) (prepare, op func())) []Case {
	return rowsOnPools(cfg, true, mk, setup)
}

// rowsOnPools is poolRows, and longLivedRows if longLived.
func rowsOnPools(cfg Config, longLived bool, mk func(workers int) Case, setup func(b *testing.B, c *Case, p *blitz.Pool) (prepare, op func())) []Case {
	var out []Case
	for _, parking := range cfg.Parkings {
		for _, w := range cfg.Workers {
			pools := []string{""}
			if longLived && w >= 2 {
				pools = []string{poolFresh, PoolWarm}
			}
			for _, pool := range pools {
				c := mk(w)
				c.Parking, c.Pool = parking, pool
				warmUp := cfg.Sizes.WarmUp
				out = append(out, bind(c, func(b *testing.B, c *Case) {
					var p *blitz.Pool
					if c.Pool == PoolWarm {
						p = warmPool(b, c, warmUp)
					} else {
						p = newPool(b, c)
						defer closePool(b, c, p)
					}
					prepare, op := setup(b, c, p)
					measure(b, c, prepare, op)
				}))
			}
		}
	}
	return out
}

// The pools a row runs on (Case.Pool).
const (
	poolFresh = "fresh" // a new pool, made for the row
	PoolWarm  = "warm"  // a long-lived pool, shared (warmPool)
)

// warmPools are the long-lived pools of the pool=warm rows, one per worker
// count and backend, kept from the first row that needs one until
// ClosePools.
var warmPools struct {
	sync.Mutex
	m map[warmKey]*blitz.Pool
}

type warmKey struct {
	workers int
	parking string
}

// warmPool returns the long-lived pool of c's size and backend: made by the
// first row that asks, which runs the warm-up on it first (fib(n) with a
// join at every call, k>>(n-20) times in one Do per size, n = 20, 22, ...,
// 28; at least once each), and shared by every warm row after it until
// ClosePools (the report command closes them when it moves on to the next
// benchmark function, and before its probes: an idle pool with spin parking
// spins, and burnt both CPUs under every later row and in the idle probes
// while the pools lasted the whole run). After that warm-up, before the
// pool padded its join jobs, a 2-worker pool ran fib(30) no faster than
// one worker. The warm-up runs before the row's timed loop.
func warmPool(b *testing.B, c *Case, k int) *blitz.Pool {
	warmPools.Lock()
	defer warmPools.Unlock()
	key := warmKey{c.Workers, c.Parking}
	if p := warmPools.m[key]; p != nil {
		return p
	}
	p := newPool(b, c)
	for n := 20; n <= 28; n += 2 {
		blitz.Do(p, func(w *blitz.Worker) int {
			s := 0
			for range max(k>>(n-20), 1) {
				s += fibArgs(w, n)
			}
			return s
		})
	}
	if warmPools.m == nil {
		warmPools.m = map[warmKey]*blitz.Pool{}
	}
	warmPools.m[key] = p
	return p
}

// ClosePools closes the long-lived pools of the pool=warm rows: the report
// command calls it after its rows, a Benchmark function after its
// sub-benchmarks.
func ClosePools() {
	warmPools.Lock()
	defer warmPools.Unlock()
	for k, p := range warmPools.m {
		p.Close()
		delete(warmPools.m, k)
	}
}
