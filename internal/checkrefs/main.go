// Command checkrefs fails when a comment or a document of the repository
// names a file that does not exist:
//
//	go run ./internal/checkrefs [root]
//
// It reads the comments of Go files, of shell scripts and of .ci/run, and
// the text of Markdown and Promela files, for path-like words that end in a
// known extension: a file name, a path with slashes, or a glob with '*'. It
// resolves each against the directory of the file that names it and then
// against every directory above it, up to root: a bare name or a relative
// path is found next to its reader, under its module or under the
// repository root. Each reference that resolves nowhere is printed with its
// file and line, and the command exits 1.
//
// Not references: code blocks (a Go doc comment's indented lines, Markdown's
// fenced and indented blocks), which name the files that the commands they
// show write; words right after a '$' (shell expansions); URLs; and the
// names in external, files of other projects that comments cite. Directories
// named testdata, and those whose name starts with a dot other than .ci,
// are not scanned.
package main

import (
	"bufio"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// external lists file names that the repository's text cites from other
// projects, and names that stand for files a command writes or a reader
// supplies; they are not looked for.
var external = map[string]bool{
	"lock_futex.go": true, // the Go runtime's futex lock, cited by futex_linux.go
	"BENCHMARKS.md": true, // Blitz's (Zig) published table, which bench/ reproduces

	// bench's compare: the reports a reader compares and the charts it writes.
	"A.json": true, "B.json": true, "big.json": true,
	"here-raw.txt": true, "there-raw.txt": true,
	"speedup.png": true, "wake.png": true,
}

// refPattern matches a path-like word: path elements of letters, digits, '_',
// '-', '.' or '*', separated by '/', ending in one of the extensions below,
// and not right after a '$'.
var refPattern = regexp.MustCompile(`(?:^|[^A-Za-z0-9_./*$-])((?:[A-Za-z0-9_*-][A-Za-z0-9_.*-]*/)*[A-Za-z0-9_*-][A-Za-z0-9_.*-]*\.(?:go|md|txt|sh|s|pml|csv|svg|png|mod|sum|json))(?:$|[^A-Za-z0-9_/-])`)

// urlPattern matches a URL, whose path names files elsewhere.
var urlPattern = regexp.MustCompile(`[a-z]+://[^\s)>\]]+`)

// problem is one reference that resolves to no file.
type problem struct {
	file string // relative to the root
	line int
	ref  string
}

func (p problem) String() string {
	return fmt.Sprintf("%s:%d: %s does not exist", p.file, p.line, p.ref)
}

func main() {
	root := "."
	if len(os.Args) > 1 {
		root = os.Args[1]
	}
	ps, err := check(root)
	if err != nil {
		fmt.Fprintln(os.Stderr, "checkrefs:", err)
		os.Exit(2)
	}
	for _, p := range ps {
		fmt.Println(p)
	}
	if len(ps) > 0 {
		fmt.Fprintf(os.Stderr, "checkrefs: %d references to files that do not exist\n", len(ps))
		os.Exit(1)
	}
}

// check scans every file under root that it reads and returns the
// references that resolve to no file, sorted by file and line.
func check(root string) ([]problem, error) {
	var ps []problem
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if rel != "." && (name == "testdata" || strings.HasPrefix(name, ".") && name != ".ci") {
				return filepath.SkipDir
			}
			return nil
		}
		kind := fileKind(rel)
		if kind == skip {
			return nil
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		got, err := scan(root, rel, kind, f)
		ps = append(ps, got...)
		return err
	})
	sort.Slice(ps, func(i, j int) bool {
		if ps[i].file != ps[j].file {
			return ps[i].file < ps[j].file
		}
		return ps[i].line < ps[j].line
	})
	return ps, err
}

// kind says which lines of a file are read.
type kind int

const (
	skip     kind = iota
	goSource      // comments, less their indented code blocks
	shell         // comments
	markdown      // text, less code blocks
	text          // every line
)

func fileKind(rel string) kind {
	switch filepath.Ext(rel) {
	case ".go":
		return goSource
	case ".sh":
		return shell
	case ".md":
		return markdown
	case ".pml":
		return text
	}
	if filepath.ToSlash(rel) == ".ci/run" {
		return shell
	}
	return skip
}

// scan reads one file and returns its unresolved references.
func scan(root, rel string, k kind, r io.Reader) ([]problem, error) {
	var ps []problem
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	fenced := false
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch k {
		case goSource:
			line = goComment(line)
			if strings.HasPrefix(line, "\t") {
				continue // a code block of a doc comment
			}
		case shell:
			if t := strings.TrimSpace(line); strings.HasPrefix(t, "#") {
				line = t
			} else {
				continue
			}
		case markdown:
			if strings.HasPrefix(strings.TrimSpace(line), "```") {
				fenced = !fenced
				continue
			}
			if fenced || strings.HasPrefix(line, "    ") || strings.HasPrefix(line, "\t") {
				continue
			}
		}
		line = urlPattern.ReplaceAllString(line, " ")
		for _, m := range refPattern.FindAllStringSubmatch(line, -1) {
			ref := m[1]
			if external[filepath.Base(ref)] || resolves(root, filepath.Dir(rel), ref) {
				continue
			}
			ps = append(ps, problem{file: filepath.ToSlash(rel), line: n, ref: ref})
		}
	}
	return ps, sc.Err()
}

// goComment returns the comment part of a line of Go: the text after the
// first "//" that is not inside a string literal, or "" if there is none.
// Block comments are rare enough here to be read as code.
func goComment(line string) string {
	var quote byte
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote != 0:
			if c == '\\' && quote != '`' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '`' || c == '\'':
			quote = c
		case c == '/' && i+1 < len(line) && line[i+1] == '/':
			return line[i+2:]
		}
	}
	return ""
}

// resolves reports whether ref names a file (or, with a '*', matches one)
// relative to dir or to any directory above it up to root.
func resolves(root, dir, ref string) bool {
	for {
		p := filepath.Join(root, dir, filepath.FromSlash(ref))
		if strings.Contains(ref, "*") {
			if m, _ := filepath.Glob(p); len(m) > 0 {
				return true
			}
		} else if _, err := os.Stat(p); err == nil {
			return true
		}
		if dir == "." || dir == "" {
			return false
		}
		dir = filepath.Dir(dir)
	}
}
