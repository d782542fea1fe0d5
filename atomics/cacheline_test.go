package atomics

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"unsafe"
)

// wantLineSize pins CacheLineSize per GOARCH (the reasons are in the
// cacheline_*.go files).
var wantLineSize = map[string]uintptr{
	"amd64": 128, "arm64": 128, "ppc64": 128, "ppc64le": 128, "s390x": 256,
}

func TestCacheLineSizePerArch(t *testing.T) {
	want, ok := wantLineSize[runtime.GOARCH]
	if !ok {
		want = 64
	}
	if CacheLineSize != want {
		t.Errorf("CacheLineSize on %s = %d, want %d", runtime.GOARCH, CacheLineSize, want)
	}
	if CacheLineSize&(CacheLineSize-1) != 0 {
		t.Errorf("CacheLineSize %d is not a power of two", CacheLineSize)
	}
	if got := unsafe.Sizeof(Pad{}); got != CacheLineSize {
		t.Errorf("unsafe.Sizeof(Pad{}) = %d, want %d", got, CacheLineSize)
	}
}

// TestPaddedLayout pins the layout of the padded structs the deque and the
// sleep counters use: two hot words separated by a Pad, and a padded tail.
func TestPaddedLayout(t *testing.T) {
	type twoWords struct {
		a uint64
		_ Pad
		b uint64
		_ Pad
	}
	var s twoWords
	if got, want := unsafe.Offsetof(s.b)-unsafe.Offsetof(s.a), uintptr(8+CacheLineSize); got != want {
		t.Errorf("distance a..b = %d, want %d", got, want)
	}
	if got, want := unsafe.Sizeof(s), uintptr(2*(8+CacheLineSize)); got != want {
		t.Errorf("Sizeof(twoWords) = %d, want %d", got, want)
	}

	type mixed struct {
		flag uint32
		_    Pad
		n    uint64
	}
	var m mixed
	// 4 bytes of flag, the pad, then n at its natural alignment (8 on 64-bit
	// platforms, 4 for uint64 on 386 and arm).
	align := unsafe.Alignof(m.n)
	if got, want := unsafe.Offsetof(m.n), (4+CacheLineSize+align-1)/align*align; got != want {
		t.Errorf("Offsetof(mixed.n) = %d, want %d (4 + pad, aligned to %d)", got, want, align)
	}
	// Whatever the struct's alignment, two fields a Pad apart can never share
	// an aligned CacheLineSize block.
	if unsafe.Offsetof(m.n)-unsafe.Offsetof(m.flag) < CacheLineSize {
		t.Errorf("fields a Pad apart are closer than a cache line")
	}
}

// TestCacheLineSizeCoversDetected is the check that the compiled padding is
// not smaller than the line of the machine running the tests.
func TestCacheLineSizeCoversDetected(t *testing.T) {
	size, src := DetectedCacheLineSize()
	t.Logf("detected cache line: %d bytes (%s); CacheLineSize = %d", size, src, CacheLineSize)
	if src == SourceFallback {
		t.Skipf("no cache-line size detectable on this machine (no sysfs file; cpuid only on x86): nothing to compare")
	}
	if size > CacheLineSize {
		t.Errorf("detected line %d bytes (%s) > CacheLineSize %d: padding too small for this machine", size, src, CacheLineSize)
	}
}

func TestDetectedCacheLineSizeSources(t *testing.T) {
	saved := coherencyLineSizePath
	t.Cleanup(func() { coherencyLineSizePath = saved })
	dir := t.TempDir()

	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}

	coherencyLineSizePath = write("ok", "256\n")
	if n, src := DetectedCacheLineSize(); n != 256 || src != SourceSysfs {
		t.Errorf("sysfs 256: got (%d, %q), want (256, %q)", n, src, SourceSysfs)
	}

	// A missing or unusable sysfs file falls through to CPUID (x86) or the
	// compiled constant; never to the bad value.
	for _, bad := range []string{"", "0\n", "-64", "96", "8192", "sixty-four"} {
		coherencyLineSizePath = write("bad", bad)
		n, src := DetectedCacheLineSize()
		if src == SourceSysfs {
			t.Errorf("sysfs %q accepted as (%d, %q)", bad, n, src)
		}
		if src == SourceFallback && n != CacheLineSize {
			t.Errorf("fallback reported %d, want CacheLineSize %d", n, CacheLineSize)
		}
		if n <= 0 || n&(n-1) != 0 {
			t.Errorf("sysfs %q: fell through to (%d, %q), not a power of two", bad, n, src)
		}
	}
	coherencyLineSizePath = filepath.Join(dir, "missing")
	n, src := DetectedCacheLineSize()
	switch runtime.GOARCH {
	case "amd64", "386":
		if src != SourceCPUID && src != SourceFallback {
			t.Errorf("no sysfs on x86: source %q, want cpuid or fallback", src)
		}
	default:
		if src != SourceFallback || n != CacheLineSize {
			t.Errorf("no sysfs off x86: got (%d, %q), want (%d, %q)", n, src, CacheLineSize, SourceFallback)
		}
	}
}

func TestValidLineSize(t *testing.T) {
	for in, want := range map[string]int{"32": 32, "64": 64, "128": 128, "4096": 4096} {
		if n, ok := validLineSize(in); !ok || n != want {
			t.Errorf("validLineSize(%q) = (%d, %v), want (%d, true)", in, n, ok, want)
		}
	}
	for _, in := range []string{"", "0", "-1", "3", "96", "8192", "x"} {
		if n, ok := validLineSize(in); ok {
			t.Errorf("validLineSize(%q) = (%d, true), want rejection", in, n)
		}
	}
}
