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
