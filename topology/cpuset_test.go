package topology

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestParseCPUList(t *testing.T) {
	cases := []struct {
		in   string
		want []int
		str  string // canonical String of the result
	}{
		{"", nil, ""},
		{"\n", nil, ""},
		{"0", []int{0}, "0"},
		{"0-3", []int{0, 1, 2, 3}, "0-3"},
		{"0-3,8-11\n", []int{0, 1, 2, 3, 8, 9, 10, 11}, "0-3,8-11"},
		{" 0 - 1 , 4 ", []int{0, 1, 4}, "0-1,4"},
		{"4,5", []int{4, 5}, "4-5"},
		{"3,1,2,1", []int{1, 2, 3}, "1-3"},
		{"0-7,^5", []int{0, 1, 2, 3, 4, 6, 7}, "0-4,6-7"},
		{"^5,0-7", []int{0, 1, 2, 3, 4, 6, 7}, "0-4,6-7"},
		{"0-7,^2-5", []int{0, 1, 6, 7}, "0-1,6-7"},
		{"0-7, ^ 0", []int{1, 2, 3, 4, 5, 6, 7}, "1-7"},
		{"0-6:2", []int{0, 2, 4, 6}, "0,2,4,6"},
		{"1-9:4", []int{1, 5, 9}, "1,5,9"},
		{"0-3,^0-3", nil, ""},
		{"63-65", []int{63, 64, 65}, "63-65"},
		{fmt.Sprint(MaxCPUs - 1), []int{MaxCPUs - 1}, fmt.Sprint(MaxCPUs - 1)},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%q", c.in), func(t *testing.T) {
			s, err := ParseCPUList(c.in)
			if err != nil {
				t.Fatal(err)
			}
			if got := s.List(); fmt.Sprint(got) != fmt.Sprint(c.want) && !(len(got) == 0 && len(c.want) == 0) {
				t.Errorf("List() = %v, want %v", got, c.want)
			}
			if got := s.String(); got != c.str {
				t.Errorf("String() = %q, want %q", got, c.str)
			}
			if s.Len() != len(c.want) {
				t.Errorf("Len() = %d, want %d", s.Len(), len(c.want))
			}
		})
	}
}

func TestParseCPUListErrors(t *testing.T) {
	for _, in := range []string{
		",", "0,", ",0", "0,,1", "-", "-1", "1-", "a", "0x1", "1.5", "+1",
		"3-1", "^3", "^0-3,^5", "0-4:0", "0:2", "0-4:", "0-4:x", "1-2-3",
		fmt.Sprint(MaxCPUs), "0-4000000000", "99999999999999999999", "0-3\x00", "٣",
	} {
		s, err := ParseCPUList(in)
		switch {
		case err == nil:
			t.Errorf("ParseCPUList(%q) = %v, want an error", in, s)
		case !errors.Is(err, ErrCPUList):
			t.Errorf("ParseCPUList(%q): %v does not wrap ErrCPUList", in, err)
		case !strings.Contains(err.Error(), fmt.Sprintf("%q", strings.TrimSpace(in))):
			t.Errorf("ParseCPUList(%q): error %q does not quote the input", in, err)
		}
	}
}

func TestCPUSetOps(t *testing.T) {
	a := MustParseCPUList("0-3,64,130")
	b := MustParseCPUList("2-5,130")
	eq := func(what string, got CPUSet, want string) {
		t.Helper()
		if got.String() != want {
			t.Errorf("%s = %q, want %q", what, got, want)
		}
	}
	eq("a∪b", a.Union(b), "0-5,64,130")
	eq("a∩b", a.Intersect(b), "2-3,130")
	eq("a\\b", a.Difference(b), "0-1,64")
	eq("b\\a", b.Difference(a), "4-5")
	eq("RangeCPUSet(3, 7)", RangeCPUSet(3, 7), "3-7")
	check := func(what string, ok bool) {
		t.Helper()
		if !ok {
			t.Errorf("%s: false", what)
		}
	}
	check("a∩b ⊆ a", a.Intersect(b).IsSubset(a))
	check("a ⊄ b", !a.IsSubset(b))
	check("Min", a.Min() == 0)
	check("Max", a.Max() == 130)
	check("Contains(64)", a.Contains(64))
	check("!Contains(65)", !a.Contains(65))
	check("!Contains(-1)", !a.Contains(-1))
	check("!Contains(1<<20)", !a.Contains(1<<20))
	// Equal ignores how a set was built: no trailing zero words survive.
	check("{1,200}\\{200} == {1}", MustParseCPUList("1,200,^200").Equal(NewCPUSet(1)))
	check("a\\a == {}", a.Difference(a).Equal(CPUSet{}))
	check("{} empty", CPUSet{}.IsEmpty())
	check("{}.Min", CPUSet{}.Min() == -1)
	check("{}.Max", CPUSet{}.Max() == -1)
	check("{}.String", CPUSet{}.String() == "")
	check("RangeCPUSet(7, 3) empty", RangeCPUSet(7, 3).IsEmpty())

	// Immutability: operations never write into their operands.
	before := a.String()
	_, _, _ = a.Union(b), a.Difference(b), a.Intersect(b)
	eq("a after operations", a, before)

	for _, bad := range []func(){
		func() { NewCPUSet(-1) },
		func() { NewCPUSet(MaxCPUs) },
		func() { RangeCPUSet(0, MaxCPUs) },
		func() { MustParseCPUList("x") },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Error("no panic on a programmer error")
				}
			}()
			bad()
		}()
	}
}

// FuzzParseCPUList checks that no input panics, and that whatever parses
// round-trips: formatting the set and parsing that gives an equal set, and
// the canonical form is a fixed point.
func FuzzParseCPUList(f *testing.F) {
	for _, s := range []string{
		"", "\n", "0", "0-3,8-11\n", "0-7,^5", "^5,0-7", "0-6:2", " 1 , 3 - 4 ",
		"0-65535", "4095", "0-1,4-5", "0,2,4,6",
		",", "-", "3-1", "^3", "0-4:0", "a-b", "0--1", "1-2-3", "0x10", "99999999", "\x00",
		"0-3:", "^", "^^1", "0-3,^", " , ", "0\n1",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		s, err := ParseCPUList(in)
		if err != nil {
			if !errors.Is(err, ErrCPUList) {
				t.Fatalf("%q: error %v does not wrap ErrCPUList", in, err)
			}
			return
		}
		if s.Max() >= MaxCPUs {
			t.Fatalf("%q: cpu %d beyond MaxCPUs", in, s.Max())
		}
		out := s.String()
		back, err := ParseCPUList(out)
		if err != nil {
			t.Fatalf("%q formats to %q, which does not parse: %v", in, out, err)
		}
		if !back.Equal(s) {
			t.Fatalf("%q -> %q -> %q: round trip changed the set", in, out, back)
		}
		if again := back.String(); again != out {
			t.Fatalf("canonical form not stable: %q then %q", out, again)
		}
		if got := NewCPUSet(s.List()...); !got.Equal(s) {
			t.Fatalf("%q: List/NewCPUSet round trip changed the set", in)
		}
	})
}

// FuzzCPUSetOps checks the set operations against a map-based model on two
// parsed lists (the bitmap is offset and trimmed, so spans matter).
func FuzzCPUSetOps(f *testing.F) {
	f.Add("0-3,64,130", "2-5,130")
	f.Add("4095", "0")
	f.Add("", "1-200:7")
	f.Add("60-70", "64-127")
	f.Add("500-600", "100-520,^510")
	f.Fuzz(func(t *testing.T, as, bs string) {
		a, errA := ParseCPUList(as)
		b, errB := ParseCPUList(bs)
		if errA != nil || errB != nil {
			return
		}
		ma, mb := map[int]bool{}, map[int]bool{}
		for _, c := range a.List() {
			ma[c] = true
		}
		for _, c := range b.List() {
			mb[c] = true
		}
		var union, inter, diff []int
		for c := 0; c <= max(a.Max(), b.Max()); c++ {
			if ma[c] || mb[c] {
				union = append(union, c)
			}
			if ma[c] && mb[c] {
				inter = append(inter, c)
			}
			if ma[c] && !mb[c] {
				diff = append(diff, c)
			}
		}
		for _, chk := range []struct {
			what string
			got  CPUSet
			want []int
		}{{"union", a.Union(b), union}, {"intersect", a.Intersect(b), inter}, {"difference", a.Difference(b), diff}} {
			if !chk.got.Equal(NewCPUSet(chk.want...)) || chk.got.Len() != len(chk.want) {
				t.Fatalf("%q %s %q = %q, want %v", as, chk.what, bs, chk.got, chk.want)
			}
		}
		if a.IsSubset(b) != (len(diff) == 0) {
			t.Fatalf("%q IsSubset %q = %v", as, bs, a.IsSubset(b))
		}
		if a.Equal(b) != (len(diff) == 0 && len(union) == len(inter)) {
			t.Fatalf("%q Equal %q = %v", as, bs, a.Equal(b))
		}
		for c := range ma {
			if !a.Contains(c) {
				t.Fatalf("%q does not contain %d", as, c)
			}
		}
	})
}
