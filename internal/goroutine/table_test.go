package goroutine

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSelfIsStableAndDistinct(t *testing.T) {
	me := Self()
	require.NotZero(t, me)
	require.Equal(t, me, Self())

	const n = 64
	ids := make([]ID, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			ids[i] = Self()
			<-start // all alive at once: their identities must differ
		}()
	}
	close(start)
	wg.Wait()
	seen := map[ID]bool{me: true}
	for _, id := range ids {
		require.NotZero(t, id)
		require.False(t, seen[id], "two live goroutines share identity %#x", id)
		seen[id] = true
	}
}

func TestTableSetGetClear(t *testing.T) {
	var tb Table[int]
	require.Nil(t, tb.Get())
	tb.Clear() // nothing to clear
	v, w := 1, 2
	tb.Set(&v)
	require.Same(t, &v, tb.Get())
	tb.Set(&w)
	require.Same(t, &w, tb.Get())
	require.Equal(t, 1, tb.Len())
	done := make(chan *int)
	go func() { done <- tb.Get() }()
	require.Nil(t, <-done, "another goroutine sees its own (absent) entry")
	tb.Clear()
	require.Nil(t, tb.Get())
	require.Equal(t, 0, tb.Len())
	require.Panics(t, func() { tb.Set(nil) })
}

// TestTableStorm has many goroutines set, read and clear their entries at
// once, enough of them to grow the table, each checking that it sees its own
// value while set and nothing before and after; goroutines that start after
// others exited check that a recycled identity finds nothing, and the test
// checks that identities were indeed recycled.
func TestTableStorm(t *testing.T) {
	live, rounds := 2048, 20
	if testing.Short() {
		live, rounds = 768, 5
	}
	var tb Table[int]
	var mu sync.Mutex
	used := map[ID]int{}
	for r := range rounds {
		var wg sync.WaitGroup
		start := make(chan struct{})
		set := make(chan struct{})
		var ready sync.WaitGroup
		ready.Add(live)
		errs := make(chan string, live)
		for i := range live {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				id := Self()
				mu.Lock()
				used[id]++
				mu.Unlock()
				if tb.Get() != nil {
					errs <- "a new goroutine found an entry"
				}
				v := r*live + i
				tb.Set(&v)
				ready.Done()
				<-set // every goroutine holds an entry now
				if p := tb.Get(); p != &v {
					errs <- "a goroutine did not find its own entry"
				}
				tb.Clear()
				if tb.Get() != nil {
					errs <- "a cleared entry was found"
				}
			}()
		}
		close(start)
		ready.Wait()
		require.Equal(t, live, tb.Len())
		close(set)
		wg.Wait()
		close(errs)
		for e := range errs {
			t.Fatal(e)
		}
		require.Equal(t, 0, tb.Len())
	}
	t.Logf("table: %d buckets", len(tb.cur.Load().buckets))
	assert.Greater(t, len(tb.cur.Load().buckets), initialBuckets, "the table never grew")
	reused := 0
	for _, n := range used {
		if n > 1 {
			reused++
		}
	}
	if identityIsAddress {
		assert.Positive(t, reused, "no identity was recycled: the rule for recycled identities was not exercised")
	} else {
		assert.Zero(t, reused, "goroutine ids were reused")
	}
}

func BenchmarkSelf(b *testing.B) {
	var s ID
	for b.Loop() {
		s += Self()
	}
	_ = s
}

func BenchmarkGet(b *testing.B) {
	var tb Table[int]
	v := 1
	b.Run("entry=absent", func(b *testing.B) {
		other := make(chan struct{})
		go func() { tb.Set(&v); other <- struct{}{}; <-other; tb.Clear(); other <- struct{}{} }()
		<-other // the table holds another goroutine's entry
		for b.Loop() {
			if tb.Get() != nil {
				b.Fatal("found")
			}
		}
		other <- struct{}{}
		<-other
	})
	b.Run("entry=present", func(b *testing.B) {
		tb.Set(&v)
		defer tb.Clear()
		for b.Loop() {
			if tb.Get() == nil {
				b.Fatal("missing")
			}
		}
	})
}
