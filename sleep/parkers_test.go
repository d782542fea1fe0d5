package sleep_test

import (
	"runtime"
	"sync/atomic"

	"github.com/blitz-go/blitz/sleep"
)

// parkerKind names one of the Parkers the tests of this package run the
// protocol over. They are the package's own, so that its tests depend on
// nothing above it; the pool's parkers (futex, portable and spin, in the
// root package's park.go and futex_linux.go) run it in the root's
// TestBackendsRunSleepProtocol.
type parkerKind int

const (
	parkChan     parkerKind = iota // blocks on a channel that holds the token
	parkSpin                       // never blocks: spins and yields until the token appears
	parkSpurious                   // parkChan whose every other Park returns at once, token or not
)

func (k parkerKind) String() string {
	switch k {
	case parkChan:
		return "chan"
	case parkSpin:
		return "spin"
	case parkSpurious:
		return "spurious"
	}
	return "unknown"
}

// parkerKinds lists every kind, for the stress tests to run over.
func parkerKinds() []parkerKind { return []parkerKind{parkChan, parkSpin, parkSpurious} }

func newParker(k parkerKind) sleep.Parker {
	switch k {
	case parkSpin:
		return new(spinParker)
	case parkSpurious:
		return &spuriousParker{chanParker: newChanParker()}
	}
	return newChanParker()
}

// chanParker keeps the token in a channel of capacity one: Unpark is a
// non-blocking send (a second token is dropped), Park a receive.
type chanParker struct{ c chan struct{} }

func newChanParker() *chanParker { return &chanParker{c: make(chan struct{}, 1)} }

func (p *chanParker) Park() { <-p.c }

func (p *chanParker) Unpark() {
	select {
	case p.c <- struct{}{}:
	default:
	}
}

// spinParker's token is a word: Unpark stores 1, Park spins until it moves
// it from 1 to 0.
type spinParker struct{ token atomic.Uint32 }

func (p *spinParker) Park() {
	for !p.token.CompareAndSwap(1, 0) {
		runtime.Gosched()
	}
}

func (p *spinParker) Unpark() { p.token.Store(1) }

// spuriousParker returns from every other Park without waiting, as the
// Parker contract allows: the protocol must re-check and park again. Park
// is called by the owning worker alone, so calls needs no synchronisation.
type spuriousParker struct {
	*chanParker
	calls int
}

func (p *spuriousParker) Park() {
	p.calls++
	if p.calls%2 == 1 {
		return
	}
	p.chanParker.Park()
}
