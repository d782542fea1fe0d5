package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/semver"
)

// published are the directories, relative to the repository root, of the
// modules a release tags. The root's tag is the bare version; a nested
// module's is its directory, a slash and the version (Go's rule for a
// module in a subdirectory of its repository).
var published = []string{".", "blitzprom"}

// versionFile holds the version every module of the repository requires
// of the published ones, relative to the repository root.
const versionFile = "internal/release/VERSION"

// tagName returns the tag of version v of the module in directory dir.
func tagName(dir, v string) string {
	if dir == "." {
		return v
	}
	return dir + "/" + v
}

// A repo is the git work tree the command runs in.
type repo struct {
	root string // absolute path of the top of the work tree
}

// openRepo returns the repository that holds dir.
func openRepo(dir string) (*repo, error) {
	r := &repo{root: dir}
	top, err := r.git("rev-parse", "--show-toplevel")
	if err != nil {
		return nil, err
	}
	return &repo{root: top}, nil
}

// git runs git in the repository and returns its output without the
// final newlines.
func (r *repo) git(args ...string) (string, error) {
	out, err := r.gitBytes(args...)
	return strings.TrimRight(string(out), "\n"), err
}

// gitBytes runs git in the repository and returns its output as is.
func (r *repo) gitBytes(args ...string) ([]byte, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.Command("git", args...)
	cmd.Dir = r.root
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return stdout.Bytes(), nil
}

// version returns the version in versionFile.
func (r *repo) version() (string, error) {
	b, err := os.ReadFile(filepath.Join(r.root, versionFile))
	if err != nil {
		return "", err
	}
	v := strings.TrimSpace(string(b))
	if err := checkVersion(v); err != nil {
		return "", fmt.Errorf("%s: %w", versionFile, err)
	}
	return v, nil
}

// checkVersion reports whether v can name a release: a canonical semantic
// version (v1.2.3, v1.2.3-rc.1), without build metadata.
func checkVersion(v string) error {
	if !semver.IsValid(v) || semver.Canonical(v) != v {
		return fmt.Errorf("version %q: want a semantic version such as v1.2.3", v)
	}
	return nil
}

// A goMod is the go.mod of one module of the repository.
type goMod struct {
	dir  string // relative to the repository root, slash-separated; "." for the root
	file *modfile.File
}

// modules returns every module of the repository: each go.mod that git
// tracks, or would track (new and not ignored), outside testdata and
// directories the go command ignores.
func (r *repo) modules() ([]goMod, error) {
	list, err := r.git("ls-files", "--cached", "--others", "--exclude-standard", "--", "go.mod", "*/go.mod")
	if err != nil {
		return nil, err
	}
	var mods []goMod
	seen := map[string]bool{}
	for _, name := range splitLines(list) {
		if seen[name] || ignoredByGo(name) {
			continue
		}
		seen[name] = true
		data, err := os.ReadFile(filepath.Join(r.root, filepath.FromSlash(name)))
		if errors.Is(err, os.ErrNotExist) {
			continue // deleted in the work tree, not yet in the index
		}
		if err != nil {
			return nil, err
		}
		f, err := modfile.Parse(name, data, nil)
		if err != nil {
			return nil, err
		}
		if f.Module == nil {
			return nil, fmt.Errorf("%s: no module line", name)
		}
		mods = append(mods, goMod{dir: path.Dir(name), file: f})
	}
	return mods, nil
}

// ignoredByGo reports whether the go command ignores the file at slash
// path name: under testdata, or a directory whose name starts with . or _.
func ignoredByGo(name string) bool {
	for _, elem := range strings.Split(path.Dir(name), "/") {
		if elem == "testdata" || (strings.HasPrefix(elem, ".") && elem != ".") || strings.HasPrefix(elem, "_") {
			return true
		}
	}
	return false
}

// publishedPaths returns the module paths of the published modules, by
// directory, as the work tree's go.mod files declare them.
func publishedPaths(mods []goMod) (map[string]string, error) {
	paths := map[string]string{}
	for _, m := range mods {
		paths[m.dir] = m.file.Module.Mod.Path
	}
	byDir := map[string]string{}
	for _, dir := range published {
		p, ok := paths[dir]
		if !ok {
			return nil, fmt.Errorf("published module %s: no go.mod", dir)
		}
		byDir[dir] = p
	}
	return byDir, nil
}

// isPublished reports whether module path p is one of the published ones.
func isPublished(paths map[string]string, p string) bool {
	for _, q := range paths {
		if p == q {
			return true
		}
	}
	return false
}

// splitLines returns the non-empty lines of s.
func splitLines(s string) []string {
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	return lines
}
