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
// PopUnshared; a steal byte with bit 2 set is a StealIf whose condition is
// bit 3). Pushes go through Push, which takes TryPush's path until the ring
// is full.
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
		var model []uint64
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
				steal := d.Steal
				if op&4 != 0 { // StealIf: claims the oldest only if the condition holds
					cond := op&8 != 0
					steal = func() (uint64, Status) { return d.StealIf(func() bool { return cond }) }
					if !cond {
						if v, st := steal(); st != Empty {
							t.Fatalf("op %d: StealIf(false) = (%d, %v), want Empty", i, v, st)
						}
						break
					}
				}
				v, st := steal()
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
	})
}
