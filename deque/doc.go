// Package deque is a Chase-Lev work-stealing deque of integers, the one
// each worker of the Blitz pool owns: its owner pushes and pops at one end
// (LIFO, the newest element, whose data is hot in its cache), other
// goroutines steal from the other end (FIFO, the oldest element, usually
// the biggest piece of a divide-and-conquer).
//
// # Which function
//
//	to ...                                            call          who
//	make a deque                                      New           anyone
//	add an element at the bottom                      Push          owner
//	  only if the ring has room (never allocates)     TryPush       owner
//	take the newest element back                      Pop           owner
//	  when one is expected (the element just pushed)  PopFenced     owner
//	  while nobody steals from this deque             PopUnshared   owner
//	take the oldest element                           Steal         any goroutine
//	  only if a condition still holds at the claim    StealIf       any goroutine
//	look at the size                                  Len, IsEmpty  any goroutine
//	look at the ring's capacity                       Cap           any goroutine
//
// # Rules
//
//   - One goroutine, the owner, calls Push, TryPush, Pop, PopFenced and
//     PopUnshared. Any goroutine, the owner included, may call Steal,
//     StealIf, Len, IsEmpty and Cap at any time. PopUnshared is correct only
//     while no Steal or StealIf runs on the deque: with a concurrent thief,
//     an element can be taken twice.
//   - No element is lost or taken twice: each pushed element stays in the
//     deque until one Pop, Steal or StealIf takes it. What the owner wrote
//     before pushing an element is visible to the goroutine whose Steal or
//     StealIf takes it.
//   - Pop reports false when the deque is empty, and also when its last
//     element went to a thief that won the race for it.
//   - Steal reports Success with the element, Empty when there was none,
//     or Retry when it lost a race and took nothing: the deque was not
//     empty. A caller that decides whether to sleep must not take Retry for
//     "no work"; it tries again or tries another deque.
//   - Len, IsEmpty and Cap are snapshots; concurrent pushes and steals make
//     them approximate.
//   - Elements are 64-bit integers (Word), meant to be indexes into the
//     owner's own arrays: the deque holds no Go pointer and allocates
//     nothing per element. The ring doubles when full (Push allocates only
//     then) and never shrinks. The deque's indexes may wrap around 2^64, so
//     a deque can run for ever. New panics on a negative capacity or one
//     above 2^40 (2^28 where int is 32 bits); Push panics rather than grow
//     the ring past that.
//   - Create a Deque with New and never copy it (go vet reports a copy).
//
// # Example
//
// The package example (example_test.go) shows the owner's end and a
// thief's; the example of Deque.Steal is a thief's loop that handles Retry.
// In short:
//
//	d := deque.New[uint64](0)
//	d.Push(1)
//	d.Push(2)
//	v, ok := d.Pop()       // 2, true: the owner takes the newest
//	w, st := d.Steal()     // 1, Success: a thief takes the oldest
//
// The protocol (its steps, the fences and why they suffice) is told at the
// top of deque.go, with the ring's lifetime in buffer.go and Retry's
// meaning in steal.go.
package deque
