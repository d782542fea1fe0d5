package topology

import (
	"os"
	"testing"
)

// The pool pays for these once, when it starts: they are here to show that
// the cost is negligible next to starting its workers.

func BenchmarkDetectFrom(b *testing.B) {
	for _, name := range []string{"this-vm", "epyc-nps2"} {
		b.Run("fixture="+name, func(b *testing.B) {
			fsys := os.DirFS("testdata/" + name)
			b.ReportAllocs()
			for b.Loop() {
				DetectFrom(fsys, CPUSet{})
			}
		})
	}
}

func BenchmarkPlaceAndTiers(b *testing.B) {
	topo := DetectFrom(os.DirFS("testdata/epyc-nps2"), CPUSet{})
	for _, p := range []Policy{PolicyCompact, PolicyScatter} {
		b.Run("fixture=epyc-nps2/workers=32/policy="+p.String(), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				pl, _ := topo.Place(32, p)
				topo.StealTiers(pl.CPUs)
			}
		})
	}
}
