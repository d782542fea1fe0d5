package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCheckPasses: the fixture follows every rule; its testdata module,
// which requires a version that will never exist, is no module of the
// repository.
func TestCheckPasses(t *testing.T) {
	r := newFixture(t)
	v, err := r.version()
	require.NoError(t, err)
	assert.Equal(t, "v0.1.0", v)
	require.NoError(t, r.check(v))
}

// TestCheckReports breaks each rule once and finds each break named.
func TestCheckReports(t *testing.T) {
	for _, c := range []struct {
		name, file, data, want string
	}{
		{"replace in a go.mod", "tools/go.mod", fixture["tools/go.mod"] + "\nreplace example.com/lib => ../\n",
			"tools/go.mod: replace example.com/lib: develop through go.work instead"},
		{"stale require", "blitzprom/go.mod", "module example.com/lib/blitzprom\n\ngo 1.24.0\n\nrequire example.com/lib v0.0.0\n",
			"blitzprom/go.mod: requires example.com/lib v0.0.0, want v0.1.0"},
		{"module outside go.work", "extra/go.mod", "module example.com/lib/extra\n\ngo 1.24.0\n",
			"go.work: does not use extra"},
		{"go.work replaces another version", "go.work", "go 1.24.0\n\nuse (\n\t.\n\t./blitzprom\n\t./tools\n)\n\nreplace example.com/lib v0.0.9 => ./\n\nreplace example.com/lib/blitzprom v0.1.0 => ./blitzprom\n",
			"go.work: replace example.com/lib@v0.0.9 => ./, want example.com/lib v0.1.0 => ./"},
		{"go.work replaces with another directory", "go.work", "go 1.24.0\n\nuse (\n\t.\n\t./blitzprom\n\t./tools\n)\n\nreplace example.com/lib v0.1.0 => ./\n\nreplace example.com/lib/blitzprom v0.1.0 => ./tools\n",
			"go.work: replace example.com/lib/blitzprom@v0.1.0 => ./tools, want example.com/lib/blitzprom v0.1.0 => ./blitzprom"},
		{"go.work replaces nothing", "go.work", "go 1.24.0\n\nuse (\n\t.\n\t./blitzprom\n\t./tools\n)\n\nreplace example.com/lib v0.1.0 => ./\n",
			"go.work: 0 replace lines for example.com/lib/blitzprom, want one"},
		{"bad VERSION", versionFile, "0.1\n", `version "0.1": want a semantic version`},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newFixture(t)
			writeFile(t, r.root, c.file, c.data)
			v, err := r.version()
			if err == nil {
				err = r.check(v)
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
		})
	}
}
