// Package lib is a fixture: names for examples to attach to.
package lib

// F is a function.
func F() {}

// T is a type.
type T struct{}

// M is a method.
func (T) M() {}

// C is a constant: examples never attach to constants.
const C = 1
