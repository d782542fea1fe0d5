package atomics

// CacheLineSize is 256 bytes on s390x: IBM Z caches use 256-byte lines
// (golang.org/x/sys/cpu uses 256).
const CacheLineSize = 256
