package blitz

// Temporary until atomics/ lands: replaced by atomics.SpinHint.
func spinHint() {}
