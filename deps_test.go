package blitz

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/blitz-go/blitz/internal/testkit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// heavyPackages are the standard library packages that importing the
// package must not link: the network stack (expvar imports net/http and
// registers /debug/vars in every program that links it; Pool.Expvar
// satisfies expvar.Var without importing it), runtime/pprof with its
// profile encoder and compress/gzip (taskctx.go reaches the runtime's label
// functions without it), encoding/json (Expvar writes its JSON by hand),
// and flag, which github.com/klauspost/cpuid/v2 registered its flags with
// (internal/cpuid reads CPUID instead).
var heavyPackages = []string{
	"net", "net/http", "expvar", "crypto/tls", "os/exec",
	"runtime/pprof", "compress/gzip", "encoding/json", "flag",
}

// TestImportGraph pins what importing the package links into a program: the
// modules chosen on purpose, and none of heavyPackages.
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
	for _, banned := range heavyPackages {
		assert.NotContains(t, std, banned, "importing the package links %s", banned)
	}
	slices.Sort(other)
	assert.Equal(t, []string{
		"golang.org/x/sys/cpu",
		"golang.org/x/sys/unix",
	}, other, "the modules the package links")
}

// TestFootprint builds a program that imports the package and uses the
// default pool, as a user's first program does, and checks what the linker
// kept: nothing of heavyPackages, and nothing of the topology's detection
// and pinning, which only the placement options link (placement.go:
// linkPlacement). It logs the program's size beside the standard library's
// one-line program: the README's figures.
func TestFootprint(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two programs")
	}
	testkit.SkipIfEmulated(t)
	gotool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build with")
	}
	dir := t.TempDir()
	build := func(name, src string) string {
		file := filepath.Join(dir, name+".go")
		require.NoError(t, os.WriteFile(file, []byte(src), 0o644))
		bin := filepath.Join(dir, name)
		cmd := exec.Command(gotool, "build", "-o", bin, file)
		cmd.Env = append(os.Environ(), "GOWORK=off")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "go build %s: %s", name, out)
		return bin
	}
	std := build("std", "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hello\") }\n")
	pool := build("pool", "package main\n\nimport (\n\t\"fmt\"\n\n\t\"github.com/blitz-go/blitz\"\n)\n\n"+
		"func main() { fmt.Println(blitz.Default().Workers()) }\n")

	out, err := exec.Command(gotool, "tool", "nm", pool).Output()
	require.NoError(t, err, "go tool nm")
	var symbols []string
	for _, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) >= 3 {
			symbols = append(symbols, f[len(f)-1])
		}
	}
	linked := func(prefix string) []string {
		var found []string
		for _, s := range symbols {
			// The runtime defines the two label functions under
			// runtime/pprof's names (taskctx.go).
			if strings.HasPrefix(s, prefix) && !strings.HasPrefix(s, "runtime/pprof.runtime_") {
				found = append(found, s)
			}
		}
		return found[:min(len(found), 5)]
	}
	require.NotEmpty(t, linked("github.com/blitz-go/blitz."), "no symbol of the package: nm's output is not what the test reads")
	for _, pkg := range append(slices.Clone(heavyPackages), "github.com/klauspost/cpuid/v2") {
		assert.Empty(t, linked(pkg+"."), "the program links %s", pkg)
	}
	for _, fn := range []string{"topology.Detect", "topology.Pin", "topology.(*Topology).Place"} {
		assert.Empty(t, linked("github.com/blitz-go/blitz/"+fn), "the program links %s, which only a placement needs", fn)
	}
	size := func(bin string) int64 {
		fi, err := os.Stat(bin)
		require.NoError(t, err)
		return fi.Size()
	}
	t.Logf("one-line program: %d bytes with the package, %d with the standard library alone (+%d)",
		size(pool), size(std), size(pool)-size(std))
}
