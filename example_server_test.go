package blitz_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/blitz-go/blitz"
)

// hold occupies the pool's only worker until the returned function is
// called, so that the examples can fill the queue exactly. Their pools are
// made WithMaxWorkers(1): a pool otherwise adds a worker for the one held
// (see "Blocking" in the package documentation).
func hold(p *blitz.Pool) (release func()) {
	started, done := make(chan struct{}), make(chan struct{})
	if err := p.Go(func(*blitz.Worker) { close(started); <-done }); err != nil {
		panic(err)
	}
	<-started
	return func() { close(done) }
}

// A request handler hands its CPU work to a bounded pool with TryDo and
// answers 503 Service Unavailable when the queue is full, instead of letting
// requests pile up.
func ExampleTryDo() {
	p, err := blitz.New(blitz.WithWorkers(1), blitz.WithMaxWorkers(1), blitz.WithCapacity(1))
	if err != nil {
		panic(err)
	}
	defer p.Close()

	handler := func(w http.ResponseWriter, r *http.Request) {
		word := r.URL.Query().Get("word")
		upper, err := blitz.TryDo(r.Context(), p, func(*blitz.Worker) string {
			return strings.ToUpper(word) // the CPU work
		})
		switch {
		case errors.Is(err, blitz.ErrQueueFull), errors.Is(err, blitz.ErrClosed):
			http.Error(w, "busy, try again later", http.StatusServiceUnavailable)
			return
		case errors.Is(err, context.DeadlineExceeded):
			http.Error(w, "timeout", http.StatusGatewayTimeout)
			return
		case errors.Is(err, context.Canceled): // the client left: nobody reads an answer
			return
		case err != nil: // the task panicked (ErrPanic) or called runtime.Goexit
			http.Error(w, "internal error", http.StatusInternalServerError)
			return
		}
		fmt.Fprintln(w, upper)
	}
	get := func() {
		rec := httptest.NewRecorder()
		handler(rec, httptest.NewRequest("GET", "/?word=steal", nil))
		fmt.Print(rec.Code, " ", rec.Body.String())
	}

	get()
	// Overload: the worker is busy and one task waits, so the queue
	// (capacity 1) is full.
	release := hold(p)
	drained := make(chan struct{})
	p.Go(func(*blitz.Worker) { close(drained) })
	get()
	release()
	<-drained
	get()
	// Output:
	// 200 STEAL
	// 503 busy, try again later
	// 200 STEAL
}

// GoContext waits for room in a full queue, but no longer than its context
// allows; a task that was not let in never runs.
func ExamplePool_GoContext() {
	p, err := blitz.New(blitz.WithWorkers(1), blitz.WithMaxWorkers(1), blitz.WithCapacity(1))
	if err != nil {
		panic(err)
	}
	release := hold(p)
	p.Go(func(*blitz.Worker) { fmt.Println("queued task ran") }) // the queue is full now

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	err = p.GoContext(ctx, func(*blitz.Worker) { fmt.Println("never runs") })
	fmt.Println(errors.Is(err, context.DeadlineExceeded))

	release()
	err = p.GoContext(context.Background(), func(*blitz.Worker) { fmt.Println("admitted task ran") })
	p.Close() // runs every accepted task, in order
	fmt.Println(err)
	// Output:
	// true
	// queued task ran
	// admitted task ran
	// <nil>
}

// Shutdown stops accepting work and waits for what was accepted. If its
// context ends first it says how much was left; the pool goes on draining,
// and a later Close (or Shutdown) waits for the rest.
func ExamplePool_Shutdown() {
	p, err := blitz.New(blitz.WithWorkers(1), blitz.WithMaxWorkers(1))
	if err != nil {
		panic(err)
	}
	release := hold(p)
	ran := 0
	for i := 0; i < 3; i++ {
		p.Go(func(*blitz.Worker) { ran++ }) // one worker: no race on ran
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	err = p.Shutdown(ctx)
	var se *blitz.ShutdownError
	if errors.As(err, &se) {
		fmt.Printf("%d queued, %d running, deadline passed: %v\n", se.Queued, se.Running, errors.Is(err, context.DeadlineExceeded))
	}
	fmt.Println(p.Go(func(*blitz.Worker) {}))

	release()
	fmt.Println(p.Shutdown(context.Background()), ran)
	// Output:
	// 3 queued, 1 running, deadline passed: true
	// blitz: pool is closed
	// <nil> 3
}

// WithCapacity bounds the queue of tasks waiting for a worker: TryGo refuses
// at once when it is full, and Go waits for room.
func ExampleWithCapacity() {
	p, err := blitz.New(blitz.WithWorkers(1), blitz.WithMaxWorkers(1), blitz.WithCapacity(2))
	if err != nil {
		panic(err)
	}
	defer p.Close()
	release := hold(p)
	for i := 0; i < 3; i++ {
		fmt.Println(p.TryGo(func(*blitz.Worker) {}))
	}
	release()

	_, err = blitz.New(blitz.WithCapacity(-1))
	fmt.Println(err)
	// Output:
	// <nil>
	// <nil>
	// blitz: queue is full
	// blitz: WithCapacity(-1): the capacity must not be negative
}
