//go:build 386 || amd64

package cpuid

import (
	"strings"
	"testing"

	klauspost "github.com/klauspost/cpuid/v2"
	"github.com/stretchr/testify/assert"
)

// TestReadMatchesKlauspost checks Read against github.com/klauspost/cpuid/v2,
// which the library used before, on the running processor. The counts of
// logical processors are compared on Intel only: on AMD that package takes
// leaf 1's count of addressable IDs (a power of two at least the count),
// where Read takes the extended topology leaf, or 0x80000008.
func TestReadMatchesKlauspost(t *testing.T) {
	ours, theirs := Read(), klauspost.CPU
	assert.Equal(t, theirs.VendorString, ours.Vendor)
	assert.Equal(t, strings.TrimSpace(theirs.BrandName), ours.Brand)
	assert.Equal(t, [3]int{theirs.Family, theirs.Model, theirs.Stepping}, [3]int{ours.Family, ours.Model, ours.Stepping}, "family, model, stepping")
	assert.Equal(t, theirs.CacheLine, ours.CacheLine)
	assert.Equal(t, [4]int{theirs.Cache.L1D, theirs.Cache.L1I, theirs.Cache.L2, theirs.Cache.L3}, [4]int{ours.L1D, ours.L1I, ours.L2, ours.L3}, "L1d, L1i, L2, L3")
	assert.Equal(t, theirs.ThreadsPerCore, ours.ThreadsPerCore)
	if theirs.VendorID == klauspost.Intel {
		assert.Equal(t, theirs.LogicalCores, ours.LogicalCores)
		assert.Equal(t, theirs.PhysicalCores, ours.PhysicalCores)
	}
	if ours.Hypervisor != "" {
		assert.Equal(t, strings.Trim(theirs.HypervisorVendorString, "\x00 "), ours.Hypervisor)
	}
}
