package doccheck

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// PackageDirs returns root and every directory below it that the go command
// would treat as part of a package tree: it skips testdata, directories whose
// names start with "." or "_", and, unless nested is true, the directories of
// other modules (those holding a go.mod of their own). Directories without Go
// files are included; callers skip them.
func PackageDirs(root string, nested bool) ([]string, error) {
	var dirs []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if path != root {
			name := d.Name()
			if name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && !nested {
				return filepath.SkipDir
			}
		}
		dirs = append(dirs, path)
		return nil
	})
	return dirs, err
}
