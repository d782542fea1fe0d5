package blitz

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"
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
