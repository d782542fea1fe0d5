package errgroup_test

import (
	"context"
	"crypto/md5"
	"fmt"
	"io/fs"
	"log"
	"maps"
	"os"
	"slices"
	"testing/fstest"

	"github.com/blitz-go/blitz/errgroup"
)

// The examples of golang.org/x/sync/errgroup's documentation, with the
// import line changed, and fakes for the network and the file system so
// that their output can be checked.

// fetch stands for http.Get in the JustErrors example.
func fetch(url string) error {
	if url == "" {
		return fmt.Errorf("fetch: empty URL")
	}
	return nil
}

// JustErrors illustrates the use of a Group in place of a sync.WaitGroup to
// simplify goroutine counting and error handling. This example is derived from
// the sync.WaitGroup example at https://golang.org/pkg/sync/#example_WaitGroup.
func ExampleGroup_justErrors() {
	g := new(errgroup.Group)
	var urls = []string{
		"http://www.golang.org/",
		"http://www.google.com/",
		"http://www.somestupidname.com/",
	}
	for _, url := range urls {
		// Launch a task to fetch the URL.
		g.Go(func() error {
			// Fetch the URL.
			return fetch(url)
		})
	}
	// Wait for all HTTP fetches to complete.
	if err := g.Wait(); err == nil {
		fmt.Println("Successfully fetched all URLs.")
	}
	// Output: Successfully fetched all URLs.
}

type Result string
type Search func(ctx context.Context, query string) (Result, error)

func fakeSearch(kind string) Search {
	return func(_ context.Context, query string) (Result, error) {
		return Result(fmt.Sprintf("%s result for %q", kind, query)), nil
	}
}

var (
	Web   = fakeSearch("web")
	Image = fakeSearch("image")
	Video = fakeSearch("video")
)

// Parallel illustrates the use of a Group for synchronizing a simple parallel
// task: the "Google Search 2.0" function from
// https://talks.golang.org/2012/concurrency.slide#46, augmented with a Context
// and error-handling.
func ExampleGroup_parallel() {
	Google := func(ctx context.Context, query string) ([]Result, error) {
		g, ctx := errgroup.WithContext(ctx)

		searches := []Search{Web, Image, Video}
		results := make([]Result, len(searches))
		for i, search := range searches {
			g.Go(func() error {
				result, err := search(ctx, query)
				if err == nil {
					results[i] = result
				}
				return err
			})
		}
		if err := g.Wait(); err != nil {
			return nil, err
		}
		return results, nil
	}

	results, err := Google(context.Background(), "golang")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	for _, result := range results {
		fmt.Println(result)
	}

	// Output:
	// web result for "golang"
	// image result for "golang"
	// video result for "golang"
}

// Pipeline demonstrates the use of a Group to implement a multi-stage
// pipeline: a version of the MD5All function with bounded parallelism from
// https://blog.golang.org/pipelines. Its stages wait for each other on
// channels: on a pool of one worker, it needs the pool to add workers while
// its workers are blocked (see blocking_test.go).
func ExampleGroup_pipeline() {
	fsys := fstest.MapFS{
		"alpha":       {Data: []byte("alpha\n")},
		"b/gamma":     {Data: []byte("gamma\n")},
		"b/d/epsilon": {Data: []byte("epsilon\n")},
	}
	m, err := MD5All(context.Background(), fsys)
	if err != nil {
		log.Fatal(err)
	}

	for _, k := range slices.Sorted(maps.Keys(m)) {
		fmt.Printf("%s:\t%x\n", k, m[k])
	}
	// Output:
	// alpha:	9f9f90dbe3e5ee1218c86b8839db1995
	// b/d/epsilon:	c40719840583e3f3e6744c02828d7cd9
	// b/gamma:	303febb9068384eca46b5b6516843b35
}

type result struct {
	path string
	sum  [md5.Size]byte
}

// MD5All reads all the files in the file tree fsys and returns a map
// from file path to the MD5 sum of the file's contents. If the directory walk
// fails or any read operation fails, MD5All returns an error.
func MD5All(ctx context.Context, fsys fs.FS) (map[string][md5.Size]byte, error) {
	// ctx is canceled when g.Wait() returns. When this version of MD5All returns
	// - even in case of error! - we know that all of the tasks have finished
	// and the memory they were using can be garbage-collected.
	g, ctx := errgroup.WithContext(ctx)
	paths := make(chan string)

	g.Go(func() error {
		defer close(paths)
		return fs.WalkDir(fsys, ".", func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.Type().IsRegular() {
				return nil
			}
			select {
			case paths <- path:
			case <-ctx.Done():
				return ctx.Err()
			}
			return nil
		})
	})

	// Start a fixed number of tasks to read and digest files.
	c := make(chan result)
	const numDigesters = 20
	for i := 0; i < numDigesters; i++ {
		g.Go(func() error {
			for path := range paths {
				data, err := fs.ReadFile(fsys, path)
				if err != nil {
					return err
				}
				select {
				case c <- result{path, md5.Sum(data)}:
				case <-ctx.Done():
					return ctx.Err()
				}
			}
			return nil
		})
	}
	go func() {
		g.Wait()
		close(c)
	}()

	m := make(map[string][md5.Size]byte)
	for r := range c {
		m[r.path] = r.sum
	}
	// Check whether any of the tasks failed. Since g is accumulating the
	// errors, we don't need to send them (or check for them) in the individual
	// results sent on the channel.
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return m, nil
}
