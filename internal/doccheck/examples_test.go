package doccheck

import (
	"go/build"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// platforms are the build contexts the examples are listed under: pkgsite
// shows linux/amd64 first, and an example in a file for one OS or
// architecture must attach there too.
var platforms = [][2]string{{"linux", "amd64"}, {"linux", "arm64"}, {"darwin", "arm64"}, {"windows", "amd64"}}

// TestExamplesAttach lists the examples of every package in the repository
// (nested modules included) as pkgsite groups them and fails naming each one
// that attaches to nothing.
func TestExamplesAttach(t *testing.T) {
	dirs, err := PackageDirs(filepath.Join("..", ".."), true)
	require.NoError(t, err)
	require.Greater(t, len(dirs), 10, "the walk found the repository's packages")
	for _, p := range platforms {
		ctxt := build.Default
		ctxt.GOOS, ctxt.GOARCH, ctxt.CgoEnabled = p[0], p[1], false
		for _, dir := range dirs {
			lost, err := UnattachedExamples(&ctxt, dir)
			require.NoError(t, err, dir)
			assert.Empty(t, lost, "%s (%s/%s): examples that attach to no exported name of the package; "+
				"name them after one (ExampleT_suffix for type T), or move them to the package that holds the name",
				dir, p[0], p[1])
		}
	}
}

// TestUnattachedExamplesFixture pins what counts as attached on a package
// made for it.
func TestUnattachedExamplesFixture(t *testing.T) {
	lost, err := UnattachedExamples(&build.Default, filepath.Join("testdata", "examples"))
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"ExampleFor", "ExampleC", "ExampleT_Nope"}, lost)
}
