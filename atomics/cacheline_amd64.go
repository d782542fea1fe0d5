package atomics

// CacheLineSize is the padding granule on amd64: 128 bytes, two 64-byte
// lines. The line itself is 64 bytes on every x86-64 part, but Intel cores
// since Sandy Bridge (and AMD Zen) run an adjacent-line ("spatial") prefetcher
// that pulls the buddy line of each 128-byte-aligned pair on a miss, so two
// hot fields 64 bytes apart still drag each other's lines between cores.
// crossbeam-utils' CachePadded and Folly's hardware_destructive_interference
// use 128 on x86-64 for that reason. See doc.go for the false-sharing
// measurement on this machine and what it can and cannot show.
const CacheLineSize = 128
