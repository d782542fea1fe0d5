package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// commitTime is the committer date of every commit of the fixture.
const commitTime = "2025-01-02T03:04:05Z"

// fixture files: a repository shaped like this one, with a published root
// (example.com/lib), a published nested module (blitzprom), an unpublished
// one (tools) that requires both, and files a release must leave out.
var fixture = map[string]string{
	"go.mod":     "module example.com/lib\n\ngo 1.24.0\n",
	"lib.go":     "package lib\n\n// Answer is the answer.\nconst Answer = 42\n",
	"LICENSE":    "the root's license\n",
	".gitignore": "*.out\n",
	"go.work": `go 1.24.0

use (
	.
	./blitzprom
	./tools
)

// Keep this comment.
replace (
	example.com/lib v0.1.0 => ./
	example.com/lib/blitzprom v0.1.0 => ./blitzprom
)
`,
	versionFile:         "v0.1.0\n",
	"blitzprom/go.mod":  "module example.com/lib/blitzprom\n\ngo 1.24.0\n\nrequire example.com/lib v0.1.0\n",
	"blitzprom/prom.go": "package blitzprom\n\nimport \"example.com/lib\"\n\n// Answer is lib's.\nconst Answer = lib.Answer\n",
	"tools/go.mod": `module example.com/lib/tools

go 1.24.0

require (
	example.com/lib v0.1.0
	example.com/lib/blitzprom v0.1.0 // a comment that stays
)
`,
	"tools/main.go":         "package main\n\nfunc main() {}\n",
	"testdata/other/go.mod": "module example.com/other\n\ngo 1.24.0\n\nrequire example.com/lib v0.0.0\n",
}

// newFixture writes the fixture into a new git repository, commits it,
// adds an ignored and an uncommitted file, and returns the repository.
func newFixture(t *testing.T) *repo {
	t.Helper()
	dir := t.TempDir()
	for name, data := range fixture {
		writeFile(t, dir, name, data)
	}
	for _, kv := range [][2]string{
		{"GIT_CONFIG_GLOBAL", os.DevNull}, {"GIT_CONFIG_NOSYSTEM", "1"},
		{"GIT_AUTHOR_NAME", "a"}, {"GIT_AUTHOR_EMAIL", "a@example.com"}, {"GIT_AUTHOR_DATE", commitTime},
		{"GIT_COMMITTER_NAME", "a"}, {"GIT_COMMITTER_EMAIL", "a@example.com"}, {"GIT_COMMITTER_DATE", commitTime},
	} {
		t.Setenv(kv[0], kv[1])
	}
	gitIn(t, dir, "init", "--quiet")
	gitIn(t, dir, "add", ".")
	gitIn(t, dir, "commit", "--quiet", "--message", "lib: first")
	writeFile(t, dir, "build.out", "ignored\n")
	writeFile(t, dir, "blitzprom/new.go", "package blitzprom\n")
	r, err := openRepo(dir)
	require.NoError(t, err)
	return r
}

// commitAll commits every change of the fixture, new files included.
func commitAll(t *testing.T, r *repo, msg string) {
	t.Helper()
	gitIn(t, r.root, "add", "--all")
	gitIn(t, r.root, "commit", "--quiet", "--message", msg)
}

func writeFile(t *testing.T, dir, name, data string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o777))
	require.NoError(t, os.WriteFile(p, []byte(data), 0o666))
}

func readFile(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
	require.NoError(t, err)
	return string(b)
}

func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "git %s: %s", strings.Join(args, " "), out)
	return strings.TrimSpace(string(out))
}
