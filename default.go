package blitz

import (
	"fmt"
	"sync"
	"sync/atomic"
)

// The default pool: one per program, created on first use, never closed
// (its workers park when idle and cost nothing then).
var (
	defaultPool atomic.Pointer[Pool] // set once, under defaultMu
	defaultMu   sync.Mutex
)

// defaultName is the default pool's name (WithName), which labels its
// workers in CPU profiles.
const defaultName = "blitz-default"

// Default returns the pool a program shares when it has no pool of its own,
// for package par's data-parallel functions (Default is a Runner like any
// pool):
//
//	total := par.Sum(blitz.Default(), xs)
//
// The first call creates it with SetDefaultOptions's options if that was
// called, else with the options of New's defaults: runtime.GOMAXPROCS(0)
// workers (read then) and ParkingAuto (portable parking). The pool is never
// closed: it is shared by every package of the program, so Close and
// Shutdown on it return ErrDefaultPool and leave it open. Default panics
// only if the pool cannot be created at all.
func Default() *Pool {
	if p := defaultPool.Load(); p != nil {
		return p
	}
	defaultMu.Lock()
	defer defaultMu.Unlock()
	if p := defaultPool.Load(); p != nil {
		return p
	}
	p, err := New(WithName(defaultName))
	if err != nil {
		panic(fmt.Errorf("blitz: Default: %w", err))
	}
	p.isDefault = true
	defaultPool.Store(p)
	return p
}

// SetDefaultOptions creates the default pool now, with opts applied after
// the defaults (the name "blitz-default"; GOMAXPROCS
// workers unless opts set WithWorkers). It returns an error matching
// ErrDefaultStarted if the default pool exists already (Default or
// SetDefaultOptions was called before), and New's error for invalid
// options; in both cases the default pool is unchanged (or still not
// created). Call it early, from main, before anything uses Default.
func SetDefaultOptions(opts ...Option) error {
	defaultMu.Lock()
	defer defaultMu.Unlock()
	if defaultPool.Load() != nil {
		return ErrDefaultStarted
	}
	p, err := New(append([]Option{WithName(defaultName)}, opts...)...)
	if err != nil {
		return err
	}
	p.isDefault = true
	defaultPool.Store(p)
	return nil
}
