package atomics

// CacheLineSize is 128 bytes on arm64. Most Cortex/Neoverse cores have
// 64-byte lines, but Apple M-series and several server parts (Cavium
// ThunderX2, Fujitsu A64FX) use 128-byte lines, and Neoverse pairs lines in
// its prefetchers; golang.org/x/sys/cpu.CacheLinePad is 128 bytes on arm64
// too. Over-padding costs 64 bytes per hot field; under-padding costs a
// cross-core line transfer per write. (github.com/klauspost/cpuid/v2
// reports 64 on arm64 by hard-coding it, not by detection.)
const CacheLineSize = 128
