package blitz

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/blitz-go/blitz/internal/testkit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readmeOutput is where a README block shows what it prints: an
// "// Output:" or "// Unordered output:" comment, as in a Go example, with
// the lines after it up to the first line that is not a comment.
var readmeOutput = regexp.MustCompile(`(?m)^[ \t]*// (Output|Unordered output):(.*)\n((?:[ \t]*//.*\n)*)`)

// TestReadmeBlocks pins the README's Go blocks. Each is a complete program:
// all of them compile and pass go vet as shown, against this checkout, and
// each one that shows its output in an Output comment prints exactly that
// (in any line order under "Unordered output", as go test compares
// examples). A block without one must be a server, which listens until it
// is stopped and so is only compiled: any other block has to show what it
// prints.
func TestReadmeBlocks(t *testing.T) {
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

	// One module, a main package per block, built at once.
	dir := t.TempDir()
	mod := "module readmeblock\n\ngo 1.24\n\nrequire github.com/blitz-go/blitz v0.0.0\n\nreplace github.com/blitz-go/blitz => " + root + "\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte(mod), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644))
	for i, b := range blocks {
		pkg := filepath.Join(dir, fmt.Sprintf("block%d", i+1))
		require.NoError(t, os.Mkdir(pkg, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(pkg, "main.go"), b[1], 0o644))
	}
	gocmd := func(args ...string) {
		t.Helper()
		cmd := exec.Command(gotool, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "go %s over the README's Go blocks (blockN is the Nth):\n%s", strings.Join(args, " "), out)
	}
	gocmd("vet", "./...")
	gocmd("build", "-o", "bin"+string(filepath.Separator), "./...")

	ran := 0
	for i, b := range blocks {
		name := fmt.Sprintf("block%d", i+1)
		m := readmeOutput.FindSubmatch(b[1])
		if m == nil {
			assert.Contains(t, string(b[1]), "ListenAndServe",
				"README Go block %d shows no Output comment, and only a server may leave it out:\n%s", i+1, b[1])
			continue
		}
		want := string(m[2]) + "\n"
		for _, line := range strings.Split(strings.TrimRight(string(m[3]), "\n"), "\n") {
			line = strings.TrimSpace(line)
			line = strings.TrimPrefix(strings.TrimPrefix(line, "//"), " ")
			want += line + "\n"
		}
		ctx, cancel := context.WithTimeout(context.Background(), testkit.WatchdogTimeout)
		out, err := exec.CommandContext(ctx, filepath.Join(dir, "bin", name)).CombinedOutput()
		cancel()
		require.NoError(t, err, "README Go block %d:\n%s", i+1, out)
		got, wantText := strings.TrimSpace(string(out)), strings.TrimSpace(want)
		if string(m[1]) == "Unordered output" {
			got, wantText = sortedLines(got), sortedLines(wantText)
		}
		assert.Equal(t, wantText, got, "README Go block %d prints other than its Output comment says:\n%s", i+1, b[1])
		ran++
	}
	assert.Positive(t, ran, "no README block was run")
}

// sortedLines returns s's lines, each trimmed, in sorted order.
func sortedLines(s string) string {
	lines := strings.Split(s, "\n")
	for i := range lines {
		lines[i] = strings.TrimSpace(lines[i])
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}
