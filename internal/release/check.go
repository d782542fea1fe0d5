package main

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"golang.org/x/mod/modfile"
)

// check reports every way the repository's go.mod files and go.work stray
// from the rules a release relies on:
//
//   - no go.mod has a replace directive: a replace binds only the module
//     that declares it, so a user of a published module would never see
//     it (development goes through go.work instead);
//   - every require of a published module names version v, the one the
//     next tags carry;
//   - go.work uses every module, so that development builds them all
//     against each other as they are in the work tree, and replaces
//     version v of each published module by its directory: a workspace
//     still reads the go.mod of every version required of its own modules,
//     and v has none to read before it is tagged.
func (r *repo) check(v string) error {
	mods, err := r.modules()
	if err != nil {
		return err
	}
	paths, err := publishedPaths(mods)
	if err != nil {
		return err
	}
	var problems []error
	for _, m := range mods {
		name := path.Join(m.dir, "go.mod")
		for _, rep := range m.file.Replace {
			problems = append(problems, fmt.Errorf("%s: replace %s: develop through go.work instead", name, rep.Old.Path))
		}
		for _, req := range m.file.Require {
			if isPublished(paths, req.Mod.Path) && req.Mod.Version != v {
				problems = append(problems, fmt.Errorf("%s: requires %s %s, want %s (%s)", name, req.Mod.Path, req.Mod.Version, v, versionFile))
			}
		}
	}
	problems = append(problems, r.checkWork(mods, paths, v)...)
	return errors.Join(problems...)
}

// checkWork reports the modules that go.work does not use, and the
// published modules it does not replace at version v by their directory.
func (r *repo) checkWork(mods []goMod, paths map[string]string, v string) []error {
	w, err := r.readWork()
	if err != nil {
		return []error{err}
	}
	used := map[string]bool{}
	for _, u := range w.Use {
		used[path.Clean(u.Path)] = true
	}
	var problems []error
	for _, m := range mods {
		if !used[m.dir] {
			problems = append(problems, fmt.Errorf("go.work: does not use %s", m.dir))
		}
	}
	for _, dir := range published {
		p := paths[dir]
		var found []string
		for _, rep := range w.Replace {
			if rep.Old.Path != p {
				continue
			}
			found = append(found, rep.Old.Version)
			if rep.Old.Version != v || rep.New.Version != "" || path.Clean(rep.New.Path) != dir {
				problems = append(problems, fmt.Errorf("go.work: replace %s => %s, want %s %s => %s",
					rep.Old, strings.TrimSpace(rep.New.Path+" "+rep.New.Version), p, v, workDir(dir)))
			}
		}
		if len(found) != 1 {
			problems = append(problems, fmt.Errorf("go.work: %d replace lines for %s, want one: %s %s => %s", len(found), p, p, v, workDir(dir)))
		}
	}
	return problems
}

// workDir returns the path go.work gives the module in directory dir.
func workDir(dir string) string {
	if dir == "." {
		return "./"
	}
	return "./" + dir
}

// readWork parses the repository's go.work.
func (r *repo) readWork() (*modfile.WorkFile, error) {
	data, err := os.ReadFile(filepath.Join(r.root, "go.work"))
	if err != nil {
		return nil, err
	}
	return modfile.ParseWork("go.work", data, nil)
}
