//go:build !linux

package topology

import (
	"errors"
	"strings"
	"testing"
)

func TestPinUnsupported(t *testing.T) {
	if _, err := Pin(0); !errors.Is(err, ErrPinUnsupported) || !errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("Pin(0) = %v, want ErrPinUnsupported", err)
	}
	if _, err := ThreadAffinity(); !errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("ThreadAffinity() = %v, want ErrPinUnsupported", err)
	}
	if PinSupported {
		t.Error("PinSupported is true")
	}
}

func TestDetectFlat(t *testing.T) {
	topo := Detect()
	if topo.Online.Len() < 1 || len(topo.Degraded) != 1 || !strings.HasPrefix(topo.Source, "flat") {
		t.Errorf("Detect() = %+v", topo)
	}
}
