package sleep

import "sync/atomic"

// Temporary until atomics/ lands: replaced by atomics.SeqCstFence and
// atomics.Pad.

var fenceWord atomic.Uint32

func seqCstFence() { fenceWord.Add(0) }

type pad [128]byte
