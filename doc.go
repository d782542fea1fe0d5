// Package blitz is a work-stealing pool for Go, tuned per CPU architecture.
//
// It follows the design of rayon-core (Rust) and Blitz (Zig): one Chase-Lev
// deque per worker, Rayon's sleep protocol (packed counters with a jobs event
// counter, a four-state CoreLatch, progressive sleep), a futex parking backend
// on Linux with a portable fallback everywhere else, and workers placed by CPU
// topology. The subsystems live in their own packages:
//
//   - atomics: acquire/release loads and stores, full fences and spin hints in
//     per-architecture assembly, and cache-line padding sized per GOARCH;
//   - deque: the Chase-Lev work-stealing deque;
//   - sleep: the sleep/wake protocol;
//   - topology: CPU topology detection and worker placement.
package blitz
