package blitz

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPanicErrorIs checks errors.Is both ways: every *PanicError matches
// ErrPanic, and it still unwraps to the panic value when that is an error.
func TestPanicErrorIs(t *testing.T) {
	plain := &PanicError{Value: "boom"}
	withErr := &PanicError{Value: io.EOF}
	for _, c := range []struct {
		name   string
		err    error
		target error
		want   bool
	}{
		{"string value matches ErrPanic", plain, ErrPanic, true},
		{"error value matches ErrPanic", withErr, ErrPanic, true},
		{"error value matches the value", withErr, io.EOF, true},
		{"string value does not match io.EOF", plain, io.EOF, false},
		{"wrapped matches ErrPanic", fmt.Errorf("handler: %w", withErr), ErrPanic, true},
		{"wrapped matches the value", fmt.Errorf("handler: %w", withErr), io.EOF, true},
		{"nil value matches ErrPanic", &PanicError{}, ErrPanic, true},
		{"ErrPanic is not a PanicError's value", ErrPanic, io.EOF, false},
		{"other errors do not match ErrPanic", io.EOF, ErrPanic, false},
		{"ErrGoexit does not match ErrPanic", ErrGoexit, ErrPanic, false},
		{"a PanicError does not match other sentinels", plain, ErrGoexit, false},
	} {
		if got := errors.Is(c.err, c.target); got != c.want {
			t.Errorf("%s: errors.Is(%v, %v) = %v, want %v", c.name, c.err, c.target, got, c.want)
		}
	}
	var pe *PanicError
	if !errors.As(fmt.Errorf("handler: %w", withErr), &pe) || pe != withErr {
		t.Errorf("errors.As did not find the *PanicError through a wrapper")
	}
}

// TestPanicErrorFromDoContext checks the error a panicking task returns
// through DoContext: ErrPanic, the value, and the stack of the panic.
func TestPanicErrorFromDoContext(t *testing.T) {
	withPool(t, []Option{WithWorkers(2)}, func(p *Pool) {
		var err error
		within(t, "DoContext", func() {
			_, err = DoContext(context.Background(), p, func(*Worker) int { panic(io.ErrUnexpectedEOF) })
		})
		if !errors.Is(err, ErrPanic) || !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("DoContext of a panicking task: %v; want it to match ErrPanic and io.ErrUnexpectedEOF", err)
		}
		var pe *PanicError
		if !errors.As(err, &pe) || len(pe.Stack) == 0 {
			t.Fatalf("DoContext of a panicking task: %#v, want a *PanicError with a stack", err)
		}
	})
}

// TestPanicErrorText checks what a *PanicError prints: Error is the value
// on one line, %+v adds the stack where the task panicked, %#v is Go syntax.
func TestPanicErrorText(t *testing.T) {
	withPool(t, []Option{WithWorkers(2)}, func(p *Pool) {
		var err error
		within(t, "DoContext", func() {
			_, err = DoContext(context.Background(), p, func(*Worker) int { return panickingTask() })
		})
		var pe *PanicError
		require.ErrorAs(t, err, &pe)
		require.Contains(t, string(pe.Stack), "panickingTask", "the stack where the task panicked")

		assert.Equal(t, "blitz: task panicked: out of cheese", pe.Error())
		assert.Equal(t, pe.Error(), fmt.Sprint(pe))
		assert.Equal(t, pe.Error(), fmt.Sprintf("%v", pe))
		assert.Equal(t, pe.Error(), fmt.Sprintf("%s", pe))
		assert.Equal(t, `"blitz: task panicked: out of cheese"`, fmt.Sprintf("%q", pe))
		assert.Equal(t, "[blitz: task panicked: out of cheese]", fmt.Sprintf("%v", []error{pe}))
		assert.Equal(t, "blitz: task panicked: out of cheese\n\n"+string(pe.Stack), fmt.Sprintf("%+v", pe))
		assert.True(t, strings.HasPrefix(fmt.Sprintf("%#v", pe), `&blitz.PanicError{Value:"out of cheese", Stack:[]byte{`),
			"%%#v: %.60s", fmt.Sprintf("%#v", pe))
		// Wrapped, the wrapper's text holds the line, and errors.As the stack.
		assert.Equal(t, "handler: blitz: task panicked: out of cheese", fmt.Errorf("handler: %w", pe).Error())
	})
}

func panickingTask() int { panic("out of cheese") }

// TestPanicNilIsAPanic checks, in a child process running with
// GODEBUG=panicnil=1 (where recover returns nil for panic(nil), as for a
// Goexit), that panic(nil) in a task, a join half, a scope task and an
// inline call is reported as a panic, with a *runtime.PanicNilError value,
// never as a Goexit.
func TestPanicNilIsAPanic(t *testing.T) {
	if os.Getenv("BLITZ_PANICNIL_CHILD") != "1" {
		runChild(t, "TestPanicNilIsAPanic", "GODEBUG=panicnil=1", "BLITZ_PANICNIL_CHILD=1")
		return
	}
	require.Nil(t, catchPanic(func() { panic(nil) }), "the child does not run with panicnil=1")
	isNilPanic := func(t *testing.T, v any) {
		t.Helper()
		pe, ok := v.(*PanicError)
		require.True(t, ok, "got %v (%T), want a *PanicError", v, v)
		require.IsType(t, new(runtime.PanicNilError), pe.Value)
	}
	handled := make(chan any, 1)
	withPool(t, []Option{WithWorkers(2), WithPanicHandler(func(v any, _ []byte) { handled <- v })}, func(p *Pool) {
		_, err := DoContext(context.Background(), p, func(*Worker) int { panic(nil) })
		require.ErrorIs(t, err, ErrPanic)
		require.NotErrorIs(t, err, ErrGoexit)
		isNilPanic(t, err)
		isNilPanic(t, catchPanic(func() {
			Do(p, func(w *Worker) int {
				a, _ := Join(w, func(*Worker) int { panic(nil) }, func(*Worker) int { return 1 })
				return a
			})
		}))
		isNilPanic(t, catchPanic(func() {
			Do(p, func(w *Worker) int {
				_, b := Join(w, func(*Worker) int { return 1 }, func(*Worker) int { panic(nil) })
				return b
			})
		}))
		isNilPanic(t, catchPanic(func() {
			p.Run(func(w *Worker) { w.Scope(func(s *Scope) { s.Spawn(func(*Worker, *Scope) { panic(nil) }) }) })
		}))
		isNilPanic(t, catchPanic(func() {
			p.Run(func(w *Worker) { Do(p, func(*Worker) int { panic(nil) }) })
		}))
		require.NoError(t, p.Go(func(*Worker) { panic(nil) }))
		var got any
		within(t, "the panic handler", func() { got = <-handled })
		assert.IsType(t, new(runtime.PanicNilError), got)
	})
}
