package par_test

import (
	"context"
	"fmt"
	"strconv"

	"github.com/blitz-go/blitz"
	"github.com/blitz-go/blitz/par"
)

func ExampleForEachErr() {
	records := []string{"12", "7", "x1", "40", "y"}
	err := par.ForEachErr(context.Background(), blitz.Default(), records, func(ctx context.Context, rec string) error {
		_, err := strconv.Atoi(rec)
		return err
	})
	// The error of the first bad record, as a loop would report it.
	fmt.Println(err)
	// Output: strconv.Atoi: parsing "x1": invalid syntax
}

func ExampleMapErr() {
	ports, err := par.MapErr(context.Background(), blitz.Default(), []string{"80", "443", "8080"},
		func(ctx context.Context, s string) (int, error) { return strconv.Atoi(s) })
	fmt.Println(ports, err)
	// Output: [80 443 8080] <nil>
}

func ExampleForErr() {
	data := make([]int, 1000)
	data[600] = -1
	err := par.ForErr(context.Background(), blitz.Default(), 0, len(data), 100,
		func(ctx context.Context, w *blitz.Worker, lo, hi int) error {
			for i := lo; i < hi; i++ {
				if ctx.Err() != nil {
					return ctx.Err() // a lower index failed: stop early
				}
				if data[i] < 0 {
					return fmt.Errorf("negative at %d", i)
				}
			}
			return nil
		})
	fmt.Println(err)
	// Output: negative at 600
}

func ExampleMapReduceErr() {
	lines := []string{"1", "2", "3", "4"}
	sum, err := par.MapReduceErr(context.Background(), blitz.Default(), 0, len(lines), 1, 0,
		func(ctx context.Context, w *blitz.Worker, lo, hi int) (int, error) {
			s := 0
			for _, l := range lines[lo:hi] {
				n, err := strconv.Atoi(l)
				if err != nil {
					return 0, err
				}
				s += n
			}
			return s, nil
		},
		func(a, b int) int { return a + b })
	fmt.Println(sum, err)
	// Output: 10 <nil>
}
