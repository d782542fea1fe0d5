package blitz_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/blitz-go/blitz"
)

func ExampleSubmit() {
	p := blitz.Default()
	// Submit returns at once; the functions run on the pool meanwhile.
	a := blitz.Submit(p, func(*blitz.Worker) (int, error) { return strconv.Atoi("12") })
	b := blitz.Submit(p, func(*blitz.Worker) (int, error) { return strconv.Atoi("x") })
	c := blitz.Submit(p, func(*blitz.Worker) (int, error) { panic("out of range") })

	fmt.Println(a.Wait())
	_, err := b.Wait()
	fmt.Println(errors.Is(err, strconv.ErrSyntax))
	_, err = c.Wait() // a panic comes back as an error
	var pe *blitz.PanicError
	fmt.Println(errors.As(err, &pe), pe.Value)
	// Output:
	// 12 <nil>
	// true
	// true out of range
}

// On a Sub, the function takes one of the Sub's slots like any of its
// tasks.
func ExampleSubmit_sub() {
	p := blitz.Default()
	reports, err := p.Sub(2, 100) // at most 2 reports at once
	if err != nil {
		panic(err)
	}
	defer reports.Close()
	f := blitz.Submit(reports, func(*blitz.Worker) (string, error) { return "report ready", nil })
	fmt.Println(f.Wait())
	// Output: report ready <nil>
}

// WaitContext stops waiting when the context ends; the function still
// runs, and a later Wait gets its result.
func ExampleFuture_WaitContext() {
	release := make(chan struct{})
	f := blitz.Submit(blitz.Default(), func(*blitz.Worker) (string, error) {
		<-release
		return "late", nil
	})
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the request went away
	_, err := f.WaitContext(ctx)
	fmt.Println(err)

	close(release)
	fmt.Println(f.Wait())
	// Output:
	// context canceled
	// late <nil>
}
