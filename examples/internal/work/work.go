package work

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"time"
)

// DefaultSize is the default number of bytes hashed per request. On the
// 2-vCPU development VM (SHA extensions, about 1.7 GB/s) it costs about
// 100 µs.
const DefaultSize = 160 << 10

// MaxSize bounds the payload so that a typo in a flag cannot make every
// request take seconds.
const MaxSize = 64 << 20

// Hasher hashes a fixed payload. It is safe for concurrent use: the payload
// is written once, by New, and only read afterwards.
type Hasher struct {
	payload []byte
}

// New returns a Hasher over a deterministic payload of size bytes.
// size must be in [1, MaxSize].
func New(size int) (*Hasher, error) {
	if size < 1 || size > MaxSize {
		return nil, fmt.Errorf("work: size %d out of range [1, %d]", size, MaxSize)
	}
	p := make([]byte, size)
	// A xorshift stream: incompressible enough, and the same on every run.
	x := uint64(0x9E3779B97F4A7C15)
	for i := range p {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		p[i] = byte(x)
	}
	return &Hasher{payload: p}, nil
}

// Size returns the payload size in bytes.
func (h *Hasher) Size() int { return len(h.payload) }

// Do hashes the payload, mixed with seed so that no two requests can share
// a result, and returns the digest.
func (h *Hasher) Do(seed uint64) [sha256.Size]byte {
	d := sha256.New()
	var s [8]byte
	for i := range s {
		s[i] = byte(seed >> (8 * i))
	}
	d.Write(s[:])
	d.Write(h.payload)
	var out [sha256.Size]byte
	d.Sum(out[:0])
	return out
}

// DoPart hashes part i of n of the payload (parts are contiguous and
// differ in length by one byte at most; together they are the payload),
// mixed with seed and i, and returns the digest. The example server's
// request endpoints hash a request's parts on the pool, serially or in
// parallel, and combine the digests; the parts' cost adds up to Do's.
// n must be in [1, Size] and i in [0, n).
func (h *Hasher) DoPart(seed uint64, i, n int) [sha256.Size]byte {
	if n < 1 || n > len(h.payload) || i < 0 || i >= n {
		panic(fmt.Sprintf("work: DoPart(%d, %d, %d) on %d bytes", seed, i, n, len(h.payload)))
	}
	lo, hi := len(h.payload)*i/n, len(h.payload)*(i+1)/n
	d := sha256.New()
	var s [16]byte
	for k := range 8 {
		s[k] = byte(seed >> (8 * k))
		s[8+k] = byte(uint64(i) >> (8 * k))
	}
	d.Write(s[:])
	d.Write(h.payload[lo:hi])
	var out [sha256.Size]byte
	d.Sum(out[:0])
	return out
}

// Calibrate runs Do n times on the calling goroutine and returns the mean
// wall time per call. Run on an otherwise idle goroutine it is the CPU time
// of one request's work; the servers print it at startup.
func (h *Hasher) Calibrate(n int) (time.Duration, error) {
	if n < 1 {
		return 0, errors.New("work: Calibrate needs n >= 1")
	}
	h.Do(0) // warm up: page in the payload
	start := time.Now()
	for i := 0; i < n; i++ {
		h.Do(uint64(i))
	}
	return time.Since(start) / time.Duration(n), nil
}
