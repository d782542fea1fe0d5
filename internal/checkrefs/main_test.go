package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFixture runs the check on a small tree with references that exist,
// references that do not, and words that are no references: exactly the
// missing ones are reported, each with its file and line.
func TestFixture(t *testing.T) {
	ps, err := check("testdata/repo")
	require.NoError(t, err)
	var got []string
	for _, p := range ps {
		got = append(got, p.String())
	}
	require.Equal(t, []string{
		"docs/guide.md:3: results/figures.txt does not exist",
		"pkg/present.go:5: gone.go does not exist",
		"pkg/present.go:5: docs/lost.md does not exist",
		"pkg/present.go:8: missing_too.txt does not exist",
		"run.sh:2: docs/missing.sh does not exist",
	}, got)
}

// TestRepository is the check itself, on this repository: every file that a
// comment or a document names exists.
func TestRepository(t *testing.T) {
	ps, err := check("../..")
	require.NoError(t, err)
	require.Empty(t, ps, "references to files that do not exist")
}

// TestGoComment: the comment part of a line of Go starts at the first "//"
// outside a string literal.
func TestGoComment(t *testing.T) {
	for line, want := range map[string]string{
		`x := 1 // a.go`:            " a.go",
		`s := "http://x" // b.go`:   " b.go",
		"s := `//` + c // d.go":     " d.go",
		`r := '"' // e.go`:          " e.go",
		`s := "\"//" // f.go`:       " f.go",
		`// g.go`:                   " g.go",
		`x := "no comment // here"`: "",
	} {
		require.Equal(t, want, goComment(line), line)
	}
}
