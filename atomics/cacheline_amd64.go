package atomics

// Measured on the 2-vCPU development VM (BenchmarkFalseSharing,
// bench/results/atomics-amd64.txt): counters 64 bytes apart cost the same as
// 128 apart (7.2 ns per LOCK XADD; 37.6 ns on the same line), so the guest
// shows no adjacent-line coupling. Two vCPUs cannot show what an SMT
// sibling, another socket or a host with the spatial prefetcher enabled
// does, and a binary built for amd64 runs on all of them; 128 keeps the
// guarantee for 64 extra bytes per padded field.

// CacheLineSize is the padding granule on amd64: 128 bytes, two 64-byte
// lines. The line itself is 64 bytes on every x86-64 part, but Intel cores
// since Sandy Bridge (and AMD Zen) run an adjacent-line ("spatial") prefetcher
// that pulls the buddy line of each 128-byte-aligned pair on a miss, so two
// hot fields 64 bytes apart still drag each other's lines between cores.
// crossbeam-utils' CachePadded and Folly's hardware_destructive_interference
// use 128 on x86-64 for that reason.
const CacheLineSize = 128
