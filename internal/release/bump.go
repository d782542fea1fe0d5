package main

import (
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/semver"
)

// bump makes v the version every module requires of the published ones:
// it writes v to versionFile and rewrites those requires in every go.mod,
// and the replace lines of go.work that point v at the work tree.
// v must be above the current version and every release tagged so far.
// It leaves go.sum files alone: they never hold a line for the
// repository's own modules (RELEASING.md says why).
func (r *repo) bump(v string, out io.Writer) error {
	if err := checkVersion(v); err != nil {
		return err
	}
	cur, err := r.version()
	if err != nil {
		return err
	}
	if semver.Compare(v, cur) <= 0 {
		return fmt.Errorf("bump to %s: not above the current version %s", v, cur)
	}
	if last, err := r.lastRelease(); err != nil {
		return err
	} else if last != "" && semver.Compare(v, last) <= 0 {
		return fmt.Errorf("bump to %s: not above the last release %s", v, last)
	}
	mods, err := r.modules()
	if err != nil {
		return err
	}
	paths, err := publishedPaths(mods)
	if err != nil {
		return err
	}
	for _, m := range mods {
		var stale []string
		for _, req := range m.file.Require {
			if isPublished(paths, req.Mod.Path) && req.Mod.Version != v {
				stale = append(stale, req.Mod.Path)
			}
		}
		if len(stale) == 0 {
			continue
		}
		for _, p := range stale {
			if err := m.file.AddRequire(p, v); err != nil {
				return err
			}
		}
		m.file.Cleanup()
		data, err := m.file.Format()
		if err != nil {
			return err
		}
		name := path.Join(m.dir, "go.mod")
		if err := os.WriteFile(filepath.Join(r.root, filepath.FromSlash(name)), data, 0o666); err != nil {
			return err
		}
		fmt.Fprintf(out, "%s: requires the published modules at %s\n", name, v)
	}
	w, err := r.readWork()
	if err != nil {
		return err
	}
	for _, dir := range published {
		// Add the new line beside the old one, then drop the old.
		if err := w.AddReplace(paths[dir], v, workDir(dir), ""); err != nil {
			return err
		}
		if err := w.DropReplace(paths[dir], cur); err != nil {
			return err
		}
	}
	w.Cleanup()
	if err := os.WriteFile(filepath.Join(r.root, "go.work"), modfile.Format(w.Syntax), 0o666); err != nil {
		return err
	}
	fmt.Fprintf(out, "go.work: replaces the published modules at %s\n", v)
	if err := os.WriteFile(filepath.Join(r.root, filepath.FromSlash(versionFile)), []byte(v+"\n"), 0o666); err != nil {
		return err
	}
	fmt.Fprintf(out, "%s: %s (was %s)\n", versionFile, v, cur)
	return r.check(v)
}

// lastRelease returns the highest version tagged on the root module, or ""
// if none is.
func (r *repo) lastRelease() (string, error) {
	tags, err := r.git("tag", "--list", "v*")
	if err != nil {
		return "", err
	}
	last := ""
	for _, t := range splitLines(tags) {
		if semver.IsValid(t) && (last == "" || semver.Compare(t, last) > 0) {
			last = t
		}
	}
	return last, nil
}
