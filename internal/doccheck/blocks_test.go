package doccheck

import (
	"go/build"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blitz-go/blitz/internal/testkit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// repoRoot is the root module's directory.
var repoRoot = filepath.Join("..", "..")

func needGo(t *testing.T) {
	t.Helper()
	testkit.SkipIfEmulated(t)
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command to list the packages and their export data with")
	}
}

// TestDocBlocksCompile type-checks the Go code blocks in the doc comments
// that go doc shows, for every package of the root module, by CheckBlocks's
// rule: complete programs as they are, fragments with the names they leave
// to the reader allowed. A block that names a function that moved (the
// root's Sum went to par) fails here.
func TestDocBlocksCompile(t *testing.T) {
	needGo(t)
	known, err := KnownPackages(repoRoot)
	require.NoError(t, err)
	require.Equal(t, "github.com/blitz-go/blitz/par", known["par"])
	require.Equal(t, "github.com/blitz-go/blitz/errgroup", known["errgroup"], "the module's packages come first")
	dirs, err := PackageDirs(repoRoot, false)
	require.NoError(t, err)
	var blocks []Block
	for _, dir := range dirs {
		bs, err := Blocks(&build.Default, dir)
		require.NoError(t, err, dir)
		blocks = append(blocks, bs...)
	}
	fails, skipped, err := CheckBlocks(repoRoot, blocks, known)
	require.NoError(t, err)
	assert.Empty(t, fails, "doc comment code blocks that do not compile")
	assert.Less(t, len(skipped), len(blocks), "some blocks were checked")
	for _, b := range skipped {
		t.Logf("not Go, skipped: %s: %.40q", b.Where, b.Text)
	}
}

// TestCheckBlocksFixture pins the rule on a package made for it: what
// fails, what passes, what is skipped.
func TestCheckBlocksFixture(t *testing.T) {
	needGo(t)
	known, err := KnownPackages(repoRoot)
	require.NoError(t, err)
	blocks, err := Blocks(&build.Default, filepath.Join("testdata", "blocks"))
	require.NoError(t, err)
	require.Len(t, blocks, 7, "the package's blocks and the exported names' (not unexported's)")
	fails, skipped, err := CheckBlocks(repoRoot, blocks, known)
	require.NoError(t, err)
	require.Len(t, skipped, 1)
	assert.Contains(t, skipped[0].Text, "to ...")
	require.Len(t, fails, 3, strings.Join(fails, "\n"))
	// In go/doc's order: by name.
	assert.Contains(t, fails[0], "(Args): line 1: not enough arguments in call to strings.Repeat")
	assert.Contains(t, fails[1], "(Gone): line 1: undefined: strings.NoSuchFunc")
	assert.Contains(t, fails[2], "(Program): line 3: undefined: total")
}
