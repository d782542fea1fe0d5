package blitz_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/blitz-go/blitz"
	"github.com/blitz-go/blitz/par"
)

func ExampleNewGroup() {
	inputs := []string{"12", "7", "x9", "40"}
	parsed := make([]int, len(inputs))
	g, ctx := blitz.NewGroup(context.Background(), blitz.Default())
	for i, in := range inputs {
		g.Go(func(*blitz.Worker) error {
			if ctx.Err() != nil {
				return nil // another task failed: stop early
			}
			n, err := strconv.Atoi(in)
			parsed[i] = n
			return err
		})
	}
	err := g.Wait()
	var numErr *strconv.NumError
	fmt.Println(errors.As(err, &numErr), numErr.Num)
	// Output: true x9
}

func ExampleGroup_Go() {
	// Inside a task, bind the group to the task's worker: Wait then runs
	// the tasks no other worker has started itself, on that worker.
	total := blitz.Do(blitz.Default(), func(w *blitz.Worker) int {
		sums := make([]int, 3)
		g, _ := blitz.NewGroup(context.Background(), w)
		for i := range sums {
			g.Go(func(w *blitz.Worker) error {
				sums[i] = par.Sum(w, []int{i, i, i})
				return nil
			})
		}
		if err := g.Wait(); err != nil {
			panic(err)
		}
		return sums[0] + sums[1] + sums[2]
	})
	fmt.Println(total)
	// Output: 9
}

func ExampleGroup_Wait() {
	g, _ := blitz.NewGroup(context.Background(), blitz.Default())
	g.Go(func(*blitz.Worker) error { return nil })
	g.Go(func(*blitz.Worker) error { return errors.New("disk full") })
	fmt.Println(g.Wait()) // the first error
	// Output: disk full
}

// SetLimit bounds how many tasks of a group run at once: here at most 2
// fetches are under way, however many Go queues.
func ExampleGroup_SetLimit() {
	g, _ := blitz.NewGroup(context.Background(), blitz.Default())
	g.SetLimit(2)
	results := make([]int, 10)
	for i := range results {
		g.Go(func(*blitz.Worker) error { // waits while 2 are under way
			results[i] = i * i
			return nil
		})
	}
	fmt.Println(g.Wait(), results)
	// Output: <nil> [0 1 4 9 16 25 36 49 64 81]
}

// TryGo starts a task only if a slot is free, and returns ErrQueueFull
// otherwise, as a pool's TryGo does when its queue is full.
func ExampleGroup_TryGo() {
	g, _ := blitz.NewGroup(context.Background(), blitz.Default())
	g.SetLimit(1)
	release := make(chan struct{})
	fmt.Println(g.TryGo(func(*blitz.Worker) error { <-release; return nil }))
	err := g.TryGo(func(*blitz.Worker) error { return nil }) // the only slot is taken
	fmt.Println(err, errors.Is(err, blitz.ErrQueueFull))
	close(release)
	fmt.Println(g.Wait())
	// Output:
	// <nil>
	// blitz: queue is full true
	// <nil>
}
