// Package goroutine tells goroutines apart, so that a pool can recognise
// its own workers when they call into it (the thread-local "current worker"
// that rayon and Blitz read, which Go does not have).
//
// # The identity
//
// Self returns an ID of the calling goroutine. On amd64 and arm64 it is the
// address of the goroutine's g, the runtime's descriptor, read from where the
// runtime itself keeps it (thread-local storage on amd64, register R28 on
// arm64): one assembly call, about as costly as an empty function call. On
// other architectures it is the goroutine's id, parsed from a stack trace
// (about a microsecond).
//
// A g address is unique among live goroutines but is reused: the runtime
// recycles the g of a goroutine that has exited for a new one. An identity
// is therefore meaningful only while its goroutine lives, and Table is built
// so that it never outlives it (below). Goroutine ids are never reused.
//
// The assembly reads no memory that Go code shares (a register, or the
// thread's own TLS slot), so the race detector has nothing to miss in it:
// unlike the atomics package's assembly it needs no race twin, and the race
// builds run the same code as the others.
//
// # The table
//
// Table maps a goroutine to a value: Set and Clear are called by the
// goroutine itself, Get by any goroutine for its own entry. It is a hash
// table of buckets of eight slots, each slot a key (an ID) and a value.
// Get loads the table, hashes its ID to a bucket and compares the eight keys:
// no lock, no atomic read-modify-write, one or two cache lines that only Set
// and Clear write (rarely: when a goroutine starts or stops serving a pool).
// Set and Clear take their bucket's mutex; a Set that finds its bucket full
// doubles the table, holding every bucket's mutex while it copies, and
// publishes the copy.
//
// Why Get is exact, for a goroutine G whose identity is I:
//
//  1. If G called Set and not yet Clear, Get finds G's value. G's Set
//     happened before G's Get (program order). Set wrote the key into the
//     table that was current then (under its bucket's mutex, after checking
//     that the table was still current), and every later table is a copy
//     made under every bucket mutex of the one it replaces, so it includes
//     the entry; older tables are never written after they are replaced,
//     so whichever table G loads holds its entry.
//  2. Otherwise Get finds nothing. A key I in a table was written by a
//     goroutine that had identity I: G itself (but G cleared it, under its
//     bucket's mutex, in the current table, and G's Clear happened before
//     G's Get) or
//     an earlier goroutine H that exited before the runtime gave I to G.
//     Every goroutine clears its entry before it exits (the pool does this
//     in a deferred call, which runs on Goexit too), so H's Clear happened
//     before H's exit, before G started, before G's Get: G loads the table
//     current at H's Clear or a later copy, and neither holds H's key. A
//     table replaced before H's Clear may still hold it, but G cannot load
//     a table replaced before G started.
//
// So a goroutine that forgets to Clear before it exits leaves a key that a
// later goroutine could match: Set's contract is that the same goroutine
// calls Clear before it exits.
package goroutine
