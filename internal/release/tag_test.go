package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTagDryRun prints the commit and the tags, creates none, and reports
// the changes that would not be in the release.
func TestTagDryRun(t *testing.T) {
	r := newFixture(t)
	var out bytes.Buffer
	err := r.tag(true, &out)
	require.Error(t, err, "the fixture has an uncommitted file")
	assert.Contains(t, err.Error(), "?? blitzprom/new.go")
	head := gitIn(t, r.root, "rev-parse", "HEAD")
	assert.Equal(t, "would tag "+head[:12]+" (lib: first):\n\tv0.1.0\n\tblitzprom/v0.1.0\n", out.String())

	require.NoError(t, os.Remove(filepath.Join(r.root, "blitzprom", "new.go")))
	out.Reset()
	require.NoError(t, r.tag(true, &out))
	assert.Contains(t, out.String(), "\tblitzprom/v0.1.0\n")
	assert.Empty(t, gitIn(t, r.root, "tag", "--list"))
}

// TestTag tags both published modules at HEAD, annotated, then refuses to
// tag the same version again; after a bump and a commit it tags the next.
func TestTag(t *testing.T) {
	r := newFixture(t)
	commitAll(t, r, "blitzprom: new file")
	head := gitIn(t, r.root, "rev-parse", "HEAD")
	var out bytes.Buffer
	require.NoError(t, r.tag(false, &out))
	assert.Contains(t, out.String(), "git push origin v0.1.0 blitzprom/v0.1.0")
	for _, tag := range []string{"v0.1.0", "blitzprom/v0.1.0"} {
		assert.Equal(t, head, gitIn(t, r.root, "rev-list", "-n", "1", tag), tag)
		assert.Equal(t, "tag", gitIn(t, r.root, "cat-file", "-t", tag), "%s is annotated", tag)
	}

	err := r.tag(false, &bytes.Buffer{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "tag v0.1.0 exists already")
	assert.Contains(t, err.Error(), "tag blitzprom/v0.1.0 exists already")
	assert.Contains(t, err.Error(), "v0.1.0 is not above the last release v0.1.0")

	require.NoError(t, r.bump("v0.2.0", &bytes.Buffer{}))
	require.Error(t, r.tag(false, &bytes.Buffer{}), "the bump is not committed")
	commitAll(t, r, "all: release v0.2.0")
	require.NoError(t, r.tag(false, &bytes.Buffer{}))
	assert.Equal(t, "blitzprom/v0.1.0\nblitzprom/v0.2.0\nv0.1.0\nv0.2.0", gitIn(t, r.root, "tag", "--list"))
}

// TestTagRefusesABrokenCheck: a module that requires another version of a
// published one is no release.
func TestTagRefusesABrokenCheck(t *testing.T) {
	r := newFixture(t)
	writeFile(t, r.root, "blitzprom/go.mod", "module example.com/lib/blitzprom\n\ngo 1.24.0\n\nrequire example.com/lib v0.0.1\n")
	commitAll(t, r, "blitzprom: stale require")
	err := r.tag(false, &bytes.Buffer{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "requires example.com/lib v0.0.1, want v0.1.0")
	assert.Empty(t, gitIn(t, r.root, "tag", "--list"))
}
