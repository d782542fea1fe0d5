package deque

import (
	"math"
	"testing"
)

// FuzzDeque drives one deque from one goroutine with a sequence of
// operations and checks every result against a slice model: Push appends,
// Pop takes the last element, Steal the first; with no concurrency a Steal
// never returns Retry. The first byte picks the initial capacity (1..8, so
// growth is exercised) and whether the indexes start just below 2^64; each
// following byte is one operation (low two bits: push, push, pop, steal;
// the pushed value is derived from the byte and the position; a pop byte
// with bit 2 set is a PopFenced, with bit 3 set (and not bit 2) a
// PopUnshared; a steal byte with bit 2 set is a StealBatch
// into a second deque, checked at the end). Pushes go through Push, which
// takes TryPush's path until the ring is full.
func FuzzDeque(f *testing.F) {
	f.Add([]byte{0, 0, 0, 2, 3, 2, 3})
	f.Add([]byte{0x80, 0, 1, 0, 1, 0, 1, 3, 3, 3, 2, 2, 2})
	f.Add([]byte{3, 0, 4, 8, 12, 16, 20, 24, 28, 32, 3, 7, 2, 6, 3, 3})
	f.Add([]byte{0x87, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 3, 2, 3, 2, 3, 2, 3, 2, 3, 2})
	f.Add([]byte{0x81, 2, 3, 2, 3, 0, 3, 0, 2, 0, 0, 3, 2})
	f.Add([]byte{0x82, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 7, 7, 2, 7, 7})
	f.Add([]byte{0x81, 0, 6, 6, 0, 0, 6, 3, 6, 0, 0, 0, 6, 2, 6, 6})
	f.Add([]byte{0x83, 0, 10, 10, 0, 0, 10, 3, 10, 0, 0, 0, 6, 10, 2, 10})
	f.Fuzz(func(t *testing.T, ops []byte) {
		if len(ops) == 0 {
			return
		}
		capacity := 1 + int(ops[0]&7)
		start := uint64(0)
		if ops[0]&0x80 != 0 {
			start = math.MaxUint64 - 3
		}
		d := newAt[uint64](capacity, start)
		dst := New[uint64](1)
		var model, dstModel []uint64
		for i, op := range ops[1:] {
			switch op & 3 {
			case 0, 1:
				v := uint64(op)<<32 | uint64(i)
				d.Push(v)
				model = append(model, v)
			case 2:
				pop := d.Pop
				switch op & 12 {
				case 4:
					pop = d.PopFenced
				case 8:
					pop = d.PopUnshared // valid: this test has no thieves
				}
				v, ok := pop()
				if len(model) == 0 {
					if ok {
						t.Fatalf("op %d: Pop on empty = (%d, true)", i, v)
					}
					continue
				}
				want := model[len(model)-1]
				model = model[:len(model)-1]
				if !ok || v != want {
					t.Fatalf("op %d: Pop = (%d, %v), want (%d, true)", i, v, ok, want)
				}
			case 3:
				if op&4 != 0 { // StealBatch into dst: the oldest returned, about half moved
					v, st := d.StealBatch(dst)
					if len(model) == 0 {
						if st != Empty {
							t.Fatalf("op %d: StealBatch on empty = (%d, %v), want Empty", i, v, st)
						}
						continue
					}
					moved := min((len(model)+1)/2, maxBatch)
					if st != Success || v != model[0] {
						t.Fatalf("op %d: StealBatch = (%d, %v), want (%d, Success)", i, v, st, model[0])
					}
					dstModel = append(dstModel, model[1:moved]...)
					model = model[moved:]
					break
				}
				v, st := d.Steal()
				if len(model) == 0 {
					if st != Empty {
						t.Fatalf("op %d: Steal on empty = (%d, %v), want Empty", i, v, st)
					}
					continue
				}
				want := model[0]
				model = model[1:]
				if st != Success || v != want {
					t.Fatalf("op %d: Steal = (%d, %v), want (%d, Success)", i, v, st, want)
				}
			}
			if d.Len() != len(model) || d.IsEmpty() != (len(model) == 0) {
				t.Fatalf("op %d: Len %d IsEmpty %v, model has %d", i, d.Len(), d.IsEmpty(), len(model))
			}
		}
		// dst holds what the batches moved, oldest first: its owner pops
		// them newest first.
		for len(dstModel) > 0 {
			want := dstModel[len(dstModel)-1]
			dstModel = dstModel[:len(dstModel)-1]
			if v, ok := dst.Pop(); !ok || v != want {
				t.Fatalf("dst.Pop = (%d, %v), want (%d, true)", v, ok, want)
			}
		}
		if !dst.IsEmpty() {
			t.Fatalf("dst holds %d more elements than the batches moved", dst.Len())
		}
	})
}
