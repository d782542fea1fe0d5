package topology

import (
	"errors"
	"fmt"
	"math/bits"
	"strconv"
	"strings"
)

// MaxCPUs bounds the CPU numbers a CPUSet holds. Linux builds with at most
// NR_CPUS = 8192 today; the bound leaves room for that to grow while keeping a
// garbage list such as "0-4000000000" from allocating gigabytes.
const MaxCPUs = 1 << 16

// ErrCPUList is wrapped by every error ParseCPUList returns.
var ErrCPUList = errors.New("topology: bad cpu list")

// CPUSet is an immutable set of CPU numbers in [0, MaxCPUs). The zero value is
// the empty set. Every operation returns a new set, so a CPUSet may be copied
// and shared freely, across goroutines too.
type CPUSet struct {
	// words is a bitmap starting at word off: CPU n is bit n%64 of
	// words[n/64-off]. It is never written after construction and has no
	// leading or trailing zero words (the empty set has off 0 and no
	// words), so equal sets have equal fields, and a set costs memory in
	// proportion to its span, not to its highest CPU.
	off   int
	words []uint64
}

// NewCPUSet returns the set of the given CPUs. It panics on a CPU outside
// [0, MaxCPUs): that is a programmer error, unlike a bad string, which
// ParseCPUList reports as an error.
func NewCPUSet(cpus ...int) CPUSet {
	var b setBuilder
	for _, c := range cpus {
		if c < 0 || c >= MaxCPUs {
			panic(fmt.Sprintf("topology: NewCPUSet: cpu %d out of range [0, %d)", c, MaxCPUs))
		}
		b.add(c)
	}
	return b.set()
}

// RangeCPUSet returns the set {lo, ..., hi}; empty if hi < lo. It panics on a
// bound outside [0, MaxCPUs).
func RangeCPUSet(lo, hi int) CPUSet {
	if hi < lo {
		return CPUSet{}
	}
	if lo < 0 || hi >= MaxCPUs {
		panic(fmt.Sprintf("topology: RangeCPUSet: %d-%d out of range [0, %d)", lo, hi, MaxCPUs))
	}
	var b setBuilder
	for c := lo; c <= hi; c++ {
		b.add(c)
	}
	return b.set()
}

// setBuilder accumulates a set; set() freezes it into a CPUSet.
type setBuilder struct {
	off   int // word index of words[0]
	words []uint64
}

func (b *setBuilder) add(c int) {
	w := c / 64
	switch {
	case len(b.words) == 0:
		b.off, b.words = w, []uint64{0}
	case w < b.off:
		grown := make([]uint64, b.off-w+len(b.words))
		copy(grown[b.off-w:], b.words)
		b.off, b.words = w, grown
	}
	for w-b.off >= len(b.words) {
		b.words = append(b.words, 0)
	}
	b.words[w-b.off] |= 1 << (uint(c) % 64)
}

func (b *setBuilder) set() CPUSet {
	s := fromWords(b.off, b.words)
	*b = setBuilder{}
	return s
}

// fromWords trims leading and trailing zero words from a bitmap starting at
// word off. It takes ownership of w.
func fromWords(off int, w []uint64) CPUSet {
	for len(w) > 0 && w[len(w)-1] == 0 {
		w = w[:len(w)-1]
	}
	for len(w) > 0 && w[0] == 0 {
		w, off = w[1:], off+1
	}
	if len(w) == 0 {
		return CPUSet{}
	}
	return CPUSet{off: off, words: w}
}

// word returns the bitmap word with absolute index i (CPUs 64i to 64i+63).
func (s CPUSet) word(i int) uint64 {
	if j := i - s.off; j >= 0 && j < len(s.words) {
		return s.words[j]
	}
	return 0
}

// end is one past the last word index of s.
func (s CPUSet) end() int { return s.off + len(s.words) }

// Contains reports whether cpu is in s.
func (s CPUSet) Contains(cpu int) bool {
	return cpu >= 0 && s.word(cpu/64)&(1<<(uint(cpu)%64)) != 0
}

// Len returns the number of CPUs in s.
func (s CPUSet) Len() int {
	n := 0
	for _, w := range s.words {
		n += bits.OnesCount64(w)
	}
	return n
}

// IsEmpty reports whether s has no CPU.
func (s CPUSet) IsEmpty() bool { return len(s.words) == 0 }

// Min returns the lowest CPU in s, or -1 if s is empty.
func (s CPUSet) Min() int {
	if len(s.words) == 0 {
		return -1
	}
	return s.off*64 + bits.TrailingZeros64(s.words[0])
}

// Max returns the highest CPU in s, or -1 if s is empty.
func (s CPUSet) Max() int {
	if len(s.words) == 0 {
		return -1
	}
	i := len(s.words) - 1
	return (s.off+i)*64 + 63 - bits.LeadingZeros64(s.words[i])
}

// List returns the CPUs of s in ascending order.
func (s CPUSet) List() []int {
	out := make([]int, 0, s.Len())
	for i, w := range s.words {
		for w != 0 {
			out = append(out, (s.off+i)*64+bits.TrailingZeros64(w))
			w &= w - 1
		}
	}
	return out
}

// Equal reports whether s and o hold the same CPUs.
func (s CPUSet) Equal(o CPUSet) bool {
	if s.off != o.off || len(s.words) != len(o.words) {
		return false
	}
	for i := range s.words {
		if s.words[i] != o.words[i] {
			return false
		}
	}
	return true
}

// Union returns s ∪ o.
func (s CPUSet) Union(o CPUSet) CPUSet {
	if s.IsEmpty() {
		return o
	}
	if o.IsEmpty() {
		return s
	}
	lo, hi := min(s.off, o.off), max(s.end(), o.end())
	w := make([]uint64, hi-lo)
	for i := range w {
		w[i] = s.word(lo+i) | o.word(lo+i)
	}
	return fromWords(lo, w)
}

// Intersect returns s ∩ o.
func (s CPUSet) Intersect(o CPUSet) CPUSet {
	lo, hi := max(s.off, o.off), min(s.end(), o.end())
	if hi <= lo {
		return CPUSet{}
	}
	w := make([]uint64, hi-lo)
	for i := range w {
		w[i] = s.word(lo+i) & o.word(lo+i)
	}
	return fromWords(lo, w)
}

// Difference returns s \ o.
func (s CPUSet) Difference(o CPUSet) CPUSet {
	w := make([]uint64, len(s.words))
	for i := range w {
		w[i] = s.words[i] &^ o.word(s.off+i)
	}
	return fromWords(s.off, w)
}

// IsSubset reports whether every CPU of s is in o.
func (s CPUSet) IsSubset(o CPUSet) bool {
	for i, w := range s.words {
		if w&^o.word(s.off+i) != 0 {
			return false
		}
	}
	return true
}

// String formats s in the kernel's cpulist style: ascending, every run of two
// or more consecutive CPUs written as a range ("0-3,8-11", "4-5"), the empty
// set as "". It is the canonical form: ParseCPUList reads it back to an equal
// set, and formatting that set gives the same string.
func (s CPUSet) String() string {
	var sb strings.Builder
	list := s.List()
	for i := 0; i < len(list); {
		j := i
		for j+1 < len(list) && list[j+1] == list[j]+1 {
			j++
		}
		if sb.Len() > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(strconv.Itoa(list[i]))
		if j > i {
			sb.WriteByte('-')
			sb.WriteString(strconv.Itoa(list[j]))
		}
		i = j + 1
	}
	return sb.String()
}

// ParseCPUList parses a CPU list as the kernel writes it in sysfs and as
// taskset -c and libvirt's cpuset read it. The grammar, with blanks allowed
// around every item and a trailing newline allowed:
//
//	list  = "" | item { "," item }
//	item  = [ "^" ] range
//	range = N | N "-" M | N "-" M ":" STRIDE
//
// N-M includes both ends (N <= M). N-M:S takes every S-th CPU from N (taskset
// style). An item with a leading "^" removes its CPUs; exclusions apply after
// every inclusion, whatever their position, so "^5,0-7" is 0-4,6-7. A list
// made only of exclusions is an error (it excludes from nothing). CPU numbers
// must be below MaxCPUs. Errors wrap ErrCPUList and quote the offending item.
func ParseCPUList(s string) (CPUSet, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return CPUSet{}, nil
	}
	var incl, excl setBuilder
	included := false
	for _, raw := range strings.Split(s, ",") {
		item := strings.TrimSpace(raw)
		neg := strings.HasPrefix(item, "^")
		if neg {
			item = strings.TrimSpace(item[1:])
		}
		lo, hi, stride, err := parseRange(item)
		if err != nil {
			return CPUSet{}, fmt.Errorf("%w %q: item %q: %v", ErrCPUList, s, strings.TrimSpace(raw), err)
		}
		b := &incl
		if neg {
			b = &excl
		} else {
			included = true
		}
		for c := lo; c <= hi; c += stride {
			b.add(c)
		}
	}
	if !included {
		return CPUSet{}, fmt.Errorf("%w %q: only exclusions, nothing to exclude from", ErrCPUList, s)
	}
	return incl.set().Difference(excl.set()), nil
}

// MustParseCPUList is ParseCPUList for constants in tests and examples; it
// panics on a bad list.
func MustParseCPUList(s string) CPUSet {
	set, err := ParseCPUList(s)
	if err != nil {
		panic(err)
	}
	return set
}

// parseRange parses N, N-M or N-M:S.
func parseRange(item string) (lo, hi, stride int, err error) {
	if item == "" {
		return 0, 0, 0, errors.New("empty item")
	}
	stride = 1
	if r, st, ok := strings.Cut(item, ":"); ok {
		if !strings.Contains(r, "-") {
			return 0, 0, 0, errors.New("a stride needs a range N-M")
		}
		if stride, err = parseCPU(st); err != nil {
			return 0, 0, 0, fmt.Errorf("stride: %v", err)
		}
		if stride == 0 {
			return 0, 0, 0, errors.New("stride 0")
		}
		item = r
	}
	a, b, isRange := strings.Cut(item, "-")
	if lo, err = parseCPU(a); err != nil {
		return 0, 0, 0, err
	}
	hi = lo
	if isRange {
		if hi, err = parseCPU(b); err != nil {
			return 0, 0, 0, err
		}
		if hi < lo {
			return 0, 0, 0, fmt.Errorf("range %d-%d runs backwards", lo, hi)
		}
	}
	return lo, hi, stride, nil
}

// parseCPU parses one decimal CPU number in [0, MaxCPUs), allowing blanks
// around it.
func parseCPU(s string) (int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, errors.New("missing number")
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return 0, fmt.Errorf("%q is not a number", s)
		}
	}
	if len(s) > 6 {
		return 0, fmt.Errorf("cpu %s out of range [0, %d)", s, MaxCPUs)
	}
	n, _ := strconv.Atoi(s) // at most 6 digits: cannot fail
	if n >= MaxCPUs {
		return 0, fmt.Errorf("cpu %d out of range [0, %d)", n, MaxCPUs)
	}
	return n, nil
}
