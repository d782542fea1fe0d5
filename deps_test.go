package blitz

import (
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/blitz-go/blitz/internal/testkit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestImportGraph pins what importing the package links into a program: the
// modules chosen on purpose, and none of the standard library's network
// stack (expvar imports net/http and registers /debug/vars in every program
// that links it; Pool.Expvar satisfies expvar.Var without importing it).
func TestImportGraph(t *testing.T) {
	testkit.SkipIfEmulated(t)
	gotool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to list the import graph with")
	}
	out, err := exec.Command(gotool, "list", "-deps", "-f", "{{.Standard}} {{.ImportPath}}", ".").Output()
	require.NoError(t, err, "go list -deps")
	var std, other []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		isStd, path, _ := strings.Cut(line, " ")
		if isStd == "true" {
			std = append(std, path)
		} else if !strings.HasPrefix(path, "github.com/blitz-go/blitz") {
			other = append(other, path)
		}
	}
	for _, banned := range []string{"net", "net/http", "expvar", "crypto/tls", "os/exec"} {
		assert.NotContains(t, std, banned, "importing the package links %s", banned)
	}
	slices.Sort(other)
	assert.Equal(t, []string{
		"github.com/klauspost/cpuid/v2",
		"github.com/klauspost/cpuid/v2/topology",
		"golang.org/x/sys/cpu",
		"golang.org/x/sys/unix",
	}, other, "the modules the package links")
}
