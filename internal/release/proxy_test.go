package main

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/mod/module"
	modzip "golang.org/x/mod/zip"
)

// zipNames returns the names in a module zip, without the module@version/
// prefix every name carries.
func zipNames(t *testing.T, name string) []string {
	t.Helper()
	zr, err := zip.OpenReader(name)
	require.NoError(t, err)
	defer zr.Close()
	var names []string
	for _, f := range zr.File {
		_, rest, ok := strings.Cut(f.Name, "/@v0.1.0/")
		if !ok {
			_, rest, _ = strings.Cut(f.Name, "@v0.1.0/")
		}
		names = append(names, rest)
	}
	slices.Sort(names)
	return names
}

// TestProxyLayout publishes the fixture and reads the result as the go
// command would: list, info, mod and zip for each published module, each
// zip holding the committed files of its module only, the nested one with
// the root's LICENSE.
func TestProxyLayout(t *testing.T) {
	r := newFixture(t)
	dir := t.TempDir()
	var out bytes.Buffer
	require.NoError(t, r.proxy(dir, "HEAD", "v0.1.0", &out))
	assert.Contains(t, out.String(), "example.com/lib@v0.1.0: . at ")
	assert.Contains(t, out.String(), "example.com/lib/blitzprom@v0.1.0: blitzprom at ")

	for _, c := range []struct {
		path, dir string
		files     []string
	}{
		{"example.com/lib", ".", []string{".gitignore", "LICENSE", "go.mod", "go.work", "internal/release/VERSION", "lib.go"}},
		{"example.com/lib/blitzprom", "blitzprom", []string{"LICENSE", "go.mod", "prom.go"}},
	} {
		vdir := filepath.Join(dir, filepath.FromSlash(c.path), "@v")
		assert.Equal(t, "v0.1.0\n", readFile(t, vdir, "list"), c.path)
		assert.Equal(t, fixture[filepath.ToSlash(filepath.Join(c.dir, "go.mod"))], readFile(t, vdir, "v0.1.0.mod"), c.path)

		var info struct {
			Version string
			Time    time.Time
		}
		require.NoError(t, json.Unmarshal([]byte(readFile(t, vdir, "v0.1.0.info")), &info))
		assert.Equal(t, "v0.1.0", info.Version)
		want, _ := time.Parse(time.RFC3339, commitTime)
		assert.True(t, info.Time.Equal(want), "info time %v, want the commit's %v", info.Time, want)

		zipName := filepath.Join(vdir, "v0.1.0.zip")
		_, err := modzip.CheckZip(module.Version{Path: c.path, Version: "v0.1.0"}, zipName)
		require.NoError(t, err, c.path)
		assert.Equal(t, c.files, zipNames(t, zipName), c.path)
	}
	// The root's zip leaves out the nested modules (blitzprom, tools, and
	// testdata/other, whose go.mod makes it one to the zip though it is no
	// module of the repository's), the ignored build output and the file
	// not committed.
	zr, err := zip.OpenReader(filepath.Join(dir, "example.com/lib/@v/v0.1.0.zip"))
	require.NoError(t, err)
	defer zr.Close()
	for _, f := range zr.File {
		assert.NotContains(t, f.Name, "blitzprom")
		assert.NotContains(t, f.Name, "tools/")
		assert.NotContains(t, f.Name, "build.out")
	}
	blitzpromLicense := readZipEntry(t, filepath.Join(dir, "example.com/lib/blitzprom/@v/v0.1.0.zip"), "LICENSE")
	assert.Equal(t, fixture["LICENSE"], blitzpromLicense)
}

func readZipEntry(t *testing.T, zipName, name string) string {
	t.Helper()
	zr, err := zip.OpenReader(zipName)
	require.NoError(t, err)
	defer zr.Close()
	for _, f := range zr.File {
		if strings.HasSuffix(f.Name, "/"+name) {
			b, err := readZipFile(f)
			require.NoError(t, err)
			return string(b)
		}
	}
	t.Fatalf("%s: no %s", zipName, name)
	return ""
}

// TestProxyKeepsVersions publishes two versions into one directory: the
// list holds both, in semantic version order, once each.
func TestProxyKeepsVersions(t *testing.T) {
	r := newFixture(t)
	dir := t.TempDir()
	for _, v := range []string{"v0.10.0", "v0.9.0", "v0.10.0"} {
		require.NoError(t, r.proxy(dir, "HEAD", v, &bytes.Buffer{}))
	}
	assert.Equal(t, "v0.9.0\nv0.10.0\n", readFile(t, dir, "example.com/lib/@v/list"))
	require.Error(t, r.proxy(dir, "HEAD", "1.0", &bytes.Buffer{}), "a version that is not semver")
	require.Error(t, r.proxy(dir, "no-such-rev", "v1.0.0", &bytes.Buffer{}))
}

// TestProxyServesTheGoCommand points the go command at a published
// fixture, with no network and no checksum database, from a module that
// requires both published modules by version, and builds it.
func TestProxyServesTheGoCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	r := newFixture(t)
	dir := t.TempDir()
	require.NoError(t, r.proxy(dir, "HEAD", "v0.1.0", &bytes.Buffer{}))
	user := t.TempDir()
	writeFile(t, user, "go.mod", "module example.com/user\n\ngo 1.24.0\n\nrequire (\n\texample.com/lib v0.1.0\n\texample.com/lib/blitzprom v0.1.0\n)\n")
	writeFile(t, user, "main.go", "package main\n\nimport (\n\t\"fmt\"\n\n\t\"example.com/lib\"\n\t\"example.com/lib/blitzprom\"\n)\n\nfunc main() { fmt.Println(lib.Answer + blitzprom.Answer) }\n")
	goCmd := func(args ...string) string {
		cmd := exec.Command("go", args...)
		cmd.Dir = user
		cmd.Env = append(os.Environ(),
			"GOPROXY=file://"+filepath.ToSlash(dir), "GOSUMDB=off", "GOWORK=off", "GOTOOLCHAIN=local",
			"GOFLAGS=-modcacherw", "GOMODCACHE="+t.TempDir())
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		require.NoError(t, err, "go %s: %s", strings.Join(args, " "), stderr.String())
		return strings.TrimSpace(string(out))
	}
	goCmd("mod", "tidy")
	assert.Equal(t, "84", goCmd("run", "."))
	assert.Contains(t, readFile(t, user, "go.sum"), "example.com/lib/blitzprom v0.1.0 h1:")
}
