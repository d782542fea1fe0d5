package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBump moves the fixture to v0.2.0: VERSION, every require of a
// published module and go.work's replace lines, nothing else (comments
// stay); check then passes at the new version.
func TestBump(t *testing.T) {
	r := newFixture(t)
	var out bytes.Buffer
	require.NoError(t, r.bump("v0.2.0", &out))
	assert.Equal(t, "v0.2.0\n", readFile(t, r.root, versionFile))
	assert.Equal(t, strings.ReplaceAll(fixture["blitzprom/go.mod"], "v0.1.0", "v0.2.0"), readFile(t, r.root, "blitzprom/go.mod"))
	assert.Equal(t, strings.ReplaceAll(fixture["tools/go.mod"], "v0.1.0", "v0.2.0"), readFile(t, r.root, "tools/go.mod"))
	assert.Equal(t, strings.ReplaceAll(fixture["go.work"], "v0.1.0", "v0.2.0"), readFile(t, r.root, "go.work"))
	assert.Equal(t, fixture["go.mod"], readFile(t, r.root, "go.mod"))
	assert.Equal(t, fixture["testdata/other/go.mod"], readFile(t, r.root, "testdata/other/go.mod"))
	require.NoError(t, r.check("v0.2.0"))
	assert.Contains(t, out.String(), "tools/go.mod: requires the published modules at v0.2.0")
}

// TestBumpRefuses a version that is not above the current one or the last
// release, or is no semantic version, and changes nothing then.
func TestBumpRefuses(t *testing.T) {
	r := newFixture(t)
	gitIn(t, r.root, "tag", "v0.3.0")
	for _, v := range []string{"v0.1.0", "v0.0.9", "v0.2.0", "v0.3.0", "0.4.0", "v0.4"} {
		require.Error(t, r.bump(v, &bytes.Buffer{}), v)
	}
	assert.Equal(t, fixture[versionFile], readFile(t, r.root, versionFile))
	assert.Equal(t, fixture["go.work"], readFile(t, r.root, "go.work"))
	require.NoError(t, r.bump("v0.4.0", &bytes.Buffer{}))
}
