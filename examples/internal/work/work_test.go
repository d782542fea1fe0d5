package work

import "testing"

func TestNewRejectsBadSizes(t *testing.T) {
	for _, n := range []int{0, -1, MaxSize + 1} {
		if _, err := New(n); err == nil {
			t.Errorf("New(%d): no error", n)
		}
	}
}

func TestDoIsDeterministicAndSeeded(t *testing.T) {
	a, err := New(1000)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := New(1000)
	if a.Do(7) != b.Do(7) {
		t.Error("same size and seed gave different digests")
	}
	if a.Do(7) == a.Do(8) {
		t.Error("different seeds gave the same digest")
	}
	if _, err := a.Calibrate(0); err == nil {
		t.Error("Calibrate(0): no error")
	}
	if d, err := a.Calibrate(3); err != nil || d <= 0 {
		t.Errorf("Calibrate(3) = %v, %v", d, err)
	}
}

func TestDoPartCoversThePayloadAndDiffers(t *testing.T) {
	h, err := New(10)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{1, 3, 10} {
		seen := map[[32]byte]bool{}
		for i := 0; i < n; i++ {
			d := h.DoPart(7, i, n)
			if seen[d] {
				t.Errorf("n=%d: part %d repeats a digest", n, i)
			}
			seen[d] = true
			if d != h.DoPart(7, i, n) {
				t.Errorf("n=%d: part %d is not deterministic", n, i)
			}
			if d == h.DoPart(8, i, n) {
				t.Errorf("n=%d: part %d ignores the seed", n, i)
			}
		}
	}
	for _, bad := range [][2]int{{0, 0}, {-1, 2}, {2, 2}, {0, 11}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("DoPart(_, %d, %d) did not panic", bad[0], bad[1])
				}
			}()
			h.DoPart(0, bad[0], bad[1])
		}()
	}
}
