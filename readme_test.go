package blitz

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/blitz-go/blitz/internal/testkit"
	"github.com/stretchr/testify/require"
)

// TestReadmeBlocksCompile pins the README's Go blocks: each is a complete
// program that compiles (and passes go vet) as shown, against this checkout.
func TestReadmeBlocksCompile(t *testing.T) {
	testkit.SkipIfEmulated(t)
	gotool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build the README's blocks with")
	}
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	blocks := regexp.MustCompile("(?s)```go\n(.*?)```").FindAllSubmatch(readme, -1)
	require.NotEmpty(t, blocks, "the README has no Go block")
	root, err := filepath.Abs(".")
	require.NoError(t, err)
	sum, err := os.ReadFile("go.sum")
	require.NoError(t, err)
	for i, b := range blocks {
		dir := t.TempDir()
		mod := "module readmeblock\n\ngo 1.24\n\nrequire github.com/blitz-go/blitz v0.0.0\n\nreplace github.com/blitz-go/blitz => " + root + "\n"
		require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte(mod), 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "main.go"), b[1], 0o644))
		cmd := exec.Command(gotool, "vet", "-mod=mod", ".")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=", "GOWORK=off")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "README Go block %d does not compile as shown:\n%s\n%s", i+1, out, b[1])
	}
}
