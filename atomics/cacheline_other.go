//go:build !amd64 && !arm64 && !ppc64 && !ppc64le && !s390x

package atomics

// CacheLineSize is 64 bytes on every other GOARCH: the line size of
// riscv64, loong64, 386 and wasm hosts, and an over-estimate (harmless: it
// only costs padding) for the 32-byte lines of older arm and mips cores.
const CacheLineSize = 64
