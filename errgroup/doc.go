// Package errgroup is golang.org/x/sync/errgroup on blitz's pool: it
// provides synchronization, error propagation, and Context cancellation for
// groups of tasks working on subtasks of a common task, and runs them on the
// workers of blitz.Default() instead of on new goroutines.
//
// It has errgroup's API and documented behaviour, so a program switches by
// changing one import line:
//
//	import "github.com/blitz-go/blitz/errgroup" // was "golang.org/x/sync/errgroup"
//
//	func fetchAll(ctx context.Context, urls []string) ([]string, error) {
//		g, ctx := errgroup.WithContext(ctx)
//		g.SetLimit(8) // at most 8 fetches at once
//		bodies := make([]string, len(urls))
//		for i, url := range urls {
//			g.Go(func() error {
//				body, err := fetch(ctx, url)
//				bodies[i] = body
//				return err
//			})
//		}
//		if err := g.Wait(); err != nil {
//			return nil, err // the first error; ctx was cancelled by it
//		}
//		return bodies, nil
//	}
//
// A Group is a thin face over a blitz.Group on blitz.Default(), not a
// second engine: blitz.NewGroup gives the same group on a pool of one's
// choice, with tasks that receive their *blitz.Worker for fork-join work.
// As errgroup's, the zero Group is ready to use and has no context, and a
// Group may be given more functions after Wait returned; the first error is
// the group's for good. Functions may block, on I/O, channels or each other,
// as goroutines do: the pool adds workers while its workers are blocked and
// work waits.
//
// Where it differs from golang.org/x/sync/errgroup (as of v0.19.0), it keeps
// blitz's rules (package blitz, "Panics and Goexit"):
//
//   - A panic in a function is recovered on the worker, cancels the group's
//     context, and is raised again by Wait, once every function returned,
//     as a *blitz.PanicError carrying the value and the stack where it
//     happened; errgroup lets it crash the program, as in a plain goroutine
//     (its v0.14.0 and v0.15.0 raised it in Wait too). A function that calls
//     runtime.Goexit ends, and Wait then calls runtime.Goexit; errgroup's
//     Wait returns as if the function had returned nil. A panic or Goexit is
//     reported by every Wait until Go or TryGo, after Wait returned, starts
//     a new batch.
//   - Go called from a task of blitz.Default(), a function of a group
//     included, queues the function and returns when the group is at its
//     limit, instead of blocking: the task that must finish to free a slot
//     may be the caller itself. Functions over the limit start in the order
//     of Go, and TryGo refuses while some wait.
//   - Wait called from a function of the same group panics, where errgroup
//     waits forever.
package errgroup
