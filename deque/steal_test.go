package deque

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestStealIfRefused: a false condition takes nothing and leaves the
// element for the next thief.
func TestStealIfRefused(t *testing.T) {
	d := New[uint64](4)
	d.Push(7)
	calls := 0
	_, st := d.StealIf(func() bool { calls++; return false })
	require.Equal(t, Empty, st)
	require.Equal(t, 1, calls)
	require.Equal(t, 1, d.Len())
	v, st := d.StealIf(func() bool { return true })
	require.Equal(t, Success, st)
	require.EqualValues(t, 7, v)
	require.True(t, d.IsEmpty())
}

// TestStealIfEmpty does not call the condition on an empty deque.
func TestStealIfEmpty(t *testing.T) {
	d := New[uint64](4)
	_, st := d.StealIf(func() bool { t.Fatal("condition called on an empty deque"); return true })
	require.Equal(t, Empty, st)
}

// TestStealIfConditionBeforeClaim: the condition runs after the element
// was read and before it is claimed. Here the owner pops the only element
// from inside the condition: the thief's claim must then fail (Retry), and
// the element is the owner's alone.
func TestStealIfConditionBeforeClaim(t *testing.T) {
	d := New[uint64](4)
	d.Push(9)
	var popped uint64
	_, st := d.StealIf(func() bool {
		v, ok := d.Pop()
		require.True(t, ok)
		popped = v
		return true
	})
	require.Equal(t, Retry, st)
	require.EqualValues(t, 9, popped)
	require.True(t, d.IsEmpty())
}
