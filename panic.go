package blitz

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// PanicError carries a panic out of the goroutine where it happened.
//
// When a task panics on a worker and the panic belongs to someone else — the
// caller of Join, Scope, Run or Do — the pool recovers it on the worker, lets
// the other half of the fork-join finish, and panics again in the waiting
// caller with a *PanicError. Value is what the task passed to panic and Stack
// is the stack of the goroutine that panicked, taken at the panic, so the
// origin is never lost even though the panic resurfaces elsewhere. A
// *PanicError that travels through several nested joins is not wrapped again:
// the innermost (original) one arrives.
//
// The type is the same whether or not the panicking half happened to be
// stolen by another worker, so a recover in user code sees one shape.
//
// Its Error is one line, the value only, fit for a log line or an HTTP
// error. The stack is in Stack, and formatting with %+v prints both (as
// zap's errorVerbose field and pkg/errors-style loggers do); a program that
// dies of an unrecovered *PanicError shows both in its crash report.
type PanicError struct {
	// Value is the value passed to panic.
	Value any
	// Stack is the formatted stack of the panicking goroutine at the panic
	// (runtime/debug.Stack): where the task really panicked, which the
	// goroutine that receives the *PanicError does not show.
	Stack []byte
}

// Error returns "blitz: task panicked: " and the value, without the stack.
//
// One caller gets the stack too: the runtime, when it prints the report of
// a program that dies of an unrecovered *PanicError (a Join re-panicking in
// a caller that does not recover, a Go task's panic without a panic handler).
// That report otherwise shows only the goroutine that re-panicked, not where
// the task panicked.
func (e *PanicError) Error() string {
	line := fmt.Sprintf("blitz: task panicked: %v", e.Value)
	if calledByCrashReport() {
		return line + "\n\noriginal stack:\n" + string(e.Stack)
	}
	return line
}

// Format prints Error's line for %v and %s (and any other verb a string
// takes), Go syntax for %#v, and for %+v the line, a blank line and the
// stack where the task panicked.
func (e *PanicError) Format(s fmt.State, verb rune) {
	switch {
	case verb == 'v' && s.Flag('+'):
		fmt.Fprintf(s, "%s\n\n%s", e.Error(), e.Stack)
	case verb == 'v' && s.Flag('#'):
		fmt.Fprintf(s, "&blitz.PanicError{Value:%#v, Stack:%#v}", e.Value, e.Stack)
	default:
		fmt.Fprintf(s, fmt.FormatString(s, verb), e.Error())
	}
}

// calledByCrashReport reports whether Error's caller is the runtime turning
// the panic values of a dying program into text (runtime.preprintpanics,
// which calls Error on each). It walks two frames, so it is for Error only.
func calledByCrashReport() bool {
	var pcs [1]uintptr
	if runtime.Callers(3, pcs[:]) == 0 { // skip Callers, calledByCrashReport, Error
		return false
	}
	f, _ := runtime.CallersFrames(pcs[:]).Next()
	return f.Function == "runtime.preprintpanics"
}

// Unwrap returns Value if it is an error, so errors.Is and errors.As see
// through the wrapper.
func (e *PanicError) Unwrap() error {
	if err, ok := e.Value.(error); ok {
		return err
	}
	return nil
}

// Is reports whether target is ErrPanic, so that errors.Is(err, ErrPanic)
// holds for every *PanicError, wrapped or not, whatever its Value. It only
// adds a match: errors.Is still unwraps to a Value that is an error, so a
// task that panicked with io.EOF matches both ErrPanic and io.EOF.
func (e *PanicError) Is(target error) bool { return target == ErrPanic }

// Catch calls f and returns nil if it returned, or its panic as the
// *PanicError that a task's panic becomes: the value and the stack where it
// happened (panic(nil) too, as everywhere in the package, also under
// GODEBUG=panicnil=1). A runtime.Goexit in f goes on. It is for functions
// that, like the par package's, run short work on the caller and must
// report a panic in the same shape as work run on the pool.
func Catch(f func()) (pe *PanicError) {
	returned := false
	defer func() {
		if !returned {
			pe = unwinding(recover())
		}
	}()
	f()
	returned = true
	return nil
}

// newPanicError wraps a recovered value. It must be called from the deferred
// function that recovered v, while the panicking frames are still on the
// stack, so that debug.Stack shows them.
func newPanicError(v any) *PanicError {
	if pe, ok := v.(*PanicError); ok {
		return pe
	}
	return &PanicError{Value: v, Stack: debug.Stack()}
}

// unwinding classifies how a function the pool ran ended without returning,
// from the value its deferred function recovered: a panic (pe != nil) or a
// Goexit (pe == nil). recover returns nil for a Goexit, and also for
// panic(nil) when the program runs with GODEBUG=panicnil=1; goexiting tells
// the two apart, and such a panic is reported with a *runtime.PanicNilError
// as its Value. It must be called by the deferred function that recovered
// v (directly: it looks at that function's caller).
func unwinding(v any) *PanicError {
	if v == nil && goexiting() {
		return nil
	}
	if v == nil {
		v = new(runtime.PanicNilError)
	}
	return newPanicError(v)
}

// goexiting reports whether the deferred function that called unwinding
// runs because of runtime.Goexit rather than a panic: the runtime calls a
// deferred function from runtime.Goexit or from runtime.gopanic, and the
// nearer of the two on the stack is the one that is running it. It walks a
// few frames, so it is only for the rare paths.
func goexiting() bool {
	var pcs [16]uintptr
	n := runtime.Callers(3, pcs[:]) // skip Callers, goexiting, unwinding
	frames := runtime.CallersFrames(pcs[:n])
	for {
		f, more := frames.Next()
		switch f.Function {
		case "runtime.Goexit":
			return true
		case "runtime.gopanic":
			return false
		}
		if !more {
			return true
		}
	}
}
