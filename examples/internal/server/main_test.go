package server

import (
	"os"
	"testing"

	"github.com/panjf2000/ants/v2"
)

func TestMain(m *testing.M) {
	// ants starts a package-level default pool, with a purge and a clock
	// goroutine, at init. Release it so goleak's checks see only the
	// goroutines our own pools and servers leave behind.
	ants.Release()
	os.Exit(m.Run())
}
