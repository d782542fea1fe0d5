package main

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"
	modzip "golang.org/x/mod/zip"
)

// proxy writes the published modules at commit rev, as version v, into
// dir in the layout of a file-based module proxy (go help goproxy):
//
//	dir/$module/@v/list           the versions, one a line
//	dir/$module/@v/$version.info  {"Version": ..., "Time": the commit's time}
//	dir/$module/@v/$version.mod   the module's go.mod
//	dir/$module/@v/$version.zip   the module's files
//
// with $module and $version case-escaped. The zips hold what the go
// command would fetch from the repository tagged at rev: the files git
// archives (so nothing ignored or uncommitted), without the directories of
// nested modules, and a nested module without a LICENSE of its own gets the
// root's. Versions already in dir stay; v replaces an earlier build of v.
func (r *repo) proxy(dir, rev, v string, out io.Writer) error {
	if err := checkVersion(v); err != nil {
		return err
	}
	commit, err := r.git("rev-parse", "--verify", rev+"^{commit}")
	if err != nil {
		return err
	}
	when, err := r.git("show", "--no-patch", "--format=%cI", commit)
	if err != nil {
		return err
	}
	t, err := time.Parse(time.RFC3339, when)
	if err != nil {
		return fmt.Errorf("commit time of %s: %w", commit, err)
	}
	// The go command archives the same way when it fetches from git: line
	// endings as committed, whatever the platform.
	archive, err := r.gitBytes("-c", "core.autocrlf=input", "-c", "core.eol=lf", "archive", "--format=zip", commit)
	if err != nil {
		return err
	}
	zr, err := zip.NewReader(bytes.NewReader(archive), int64(len(archive)))
	if err != nil {
		return fmt.Errorf("git archive of %s: %w", commit, err)
	}
	for _, sub := range published {
		m, err := publishModule(dir, sub, zr, v, t.UTC())
		if err != nil {
			return fmt.Errorf("module in %s at %s: %w", sub, commit[:12], err)
		}
		fmt.Fprintf(out, "%s@%s: %s at %s\n", m.Path, m.Version, sub, commit[:12])
	}
	return nil
}

// publishModule writes the module in directory sub of the archive zr, as
// version v made at time t, into the proxy directory dir.
func publishModule(dir, sub string, zr *zip.Reader, v string, t time.Time) (module.Version, error) {
	files, goMod, err := moduleFiles(zr, sub)
	if err != nil {
		return module.Version{}, err
	}
	f, err := modfile.ParseLax("go.mod", goMod, nil)
	if err != nil {
		return module.Version{}, err
	}
	if f.Module == nil {
		return module.Version{}, fmt.Errorf("go.mod has no module line")
	}
	m := module.Version{Path: f.Module.Mod.Path, Version: v}
	escPath, err := module.EscapePath(m.Path)
	if err != nil {
		return m, err
	}
	escVersion, err := module.EscapeVersion(v)
	if err != nil {
		return m, err
	}
	vdir := filepath.Join(dir, filepath.FromSlash(escPath), "@v")
	if err := os.MkdirAll(vdir, 0o777); err != nil {
		return m, err
	}
	base := filepath.Join(vdir, escVersion)

	var zbuf bytes.Buffer
	if err := modzip.Create(&zbuf, m, files); err != nil {
		return m, err
	}
	info, err := json.Marshal(struct {
		Version string
		Time    time.Time
	}{v, t})
	if err != nil {
		return m, err
	}
	for _, w := range []struct {
		name string
		data []byte
	}{{base + ".zip", zbuf.Bytes()}, {base + ".mod", goMod}, {base + ".info", info}} {
		if err := os.WriteFile(w.name, w.data, 0o666); err != nil {
			return m, err
		}
	}
	return m, addToList(filepath.Join(vdir, "list"), v)
}

// moduleFiles returns the files of the module in directory sub of the
// archive (sub "." for the root), with paths relative to sub, and its
// go.mod. modzip.Create leaves out what a module zip must not hold (the
// directories of nested modules among them).
func moduleFiles(zr *zip.Reader, sub string) (files []modzip.File, goMod []byte, err error) {
	prefix := ""
	if sub != "." {
		prefix = sub + "/"
	}
	haveLicense := false
	var rootLicense *zip.File
	for _, zf := range zr.File {
		if strings.HasSuffix(zf.Name, "/") {
			continue // a directory entry
		}
		if zf.Name == "LICENSE" {
			rootLicense = zf
		}
		name, ok := strings.CutPrefix(zf.Name, prefix)
		if !ok {
			continue
		}
		files = append(files, archiveFile{name: name, f: zf})
		switch name {
		case "LICENSE":
			haveLicense = true
		case "go.mod":
			if goMod, err = readZipFile(zf); err != nil {
				return nil, nil, err
			}
		}
	}
	if goMod == nil {
		return nil, nil, fmt.Errorf("no %sgo.mod", prefix)
	}
	// The go command adds the repository's LICENSE to a nested module
	// that has none, so a release carries it too.
	if !haveLicense && rootLicense != nil {
		files = append(files, archiveFile{name: "LICENSE", f: rootLicense})
	}
	return files, goMod, nil
}

// readZipFile returns the contents of zf.
func readZipFile(zf *zip.File) ([]byte, error) {
	rc, err := zf.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(rc)
}

// An archiveFile is a file of the git archive under the name it has in
// the module; it is a modzip.File.
type archiveFile struct {
	name string
	f    *zip.File
}

func (a archiveFile) Path() string                 { return a.name }
func (a archiveFile) Lstat() (fs.FileInfo, error)  { return a.f.FileInfo(), nil }
func (a archiveFile) Open() (io.ReadCloser, error) { return a.f.Open() }

// addToList adds version v to the proxy's list file, keeping it sorted by
// semantic version and free of duplicates.
func addToList(name, v string) error {
	var versions []string
	data, err := os.ReadFile(name)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	versions = append(splitLines(string(data)), v)
	semver.Sort(versions)
	versions = slices.Compact(versions)
	return os.WriteFile(name, []byte(strings.Join(versions, "\n")+"\n"), 0o666)
}
