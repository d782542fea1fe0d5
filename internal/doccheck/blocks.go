package doccheck

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/build"
	"go/doc"
	"go/doc/comment"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// A Block is an indented code block of a doc comment that go doc shows.
type Block struct {
	Where string // the file and line of what it documents, and its name
	Text  string // the block, unindented
}

// Blocks returns the code blocks of the doc comments that go doc shows for
// the package in dir, as ctxt selects its files: the package's own, and
// those of its exported constants, variables, types, functions and methods.
// A dir without Go files gives nil.
func Blocks(ctxt *build.Context, dir string) ([]Block, error) {
	bp, err := ctxt.ImportDir(dir, 0)
	if err != nil {
		if _, ok := err.(*build.NoGoError); ok {
			return nil, nil
		}
		return nil, err
	}
	fset := token.NewFileSet()
	var files []*ast.File
	pkgDoc := dir
	for _, name := range bp.GoFiles {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		if f.Doc != nil {
			pkgDoc = fset.Position(f.Package).String()
		}
		files = append(files, f)
	}
	pkg, err := doc.NewFromFiles(fset, files, bp.ImportPath)
	if err != nil {
		return nil, err
	}
	var blocks []Block
	add := func(where, text string) {
		for _, b := range pkg.Parser().Parse(text).Content {
			if c, ok := b.(*comment.Code); ok {
				blocks = append(blocks, Block{Where: where, Text: c.Text})
			}
		}
	}
	at := func(n ast.Node, name string) string { return fmt.Sprintf("%s (%s)", fset.Position(n.Pos()), name) }
	add(pkgDoc+" (package "+pkg.Name+")", pkg.Doc)
	values := func(vs []*doc.Value) {
		for _, v := range vs {
			add(at(v.Decl, strings.Join(v.Names, ", ")), v.Doc)
		}
	}
	funcs := func(fs []*doc.Func, recv string) {
		for _, f := range fs {
			add(at(f.Decl, recv+f.Name), f.Doc)
		}
	}
	values(pkg.Consts)
	values(pkg.Vars)
	funcs(pkg.Funcs, "")
	for _, t := range pkg.Types {
		add(at(t.Decl, t.Name), t.Doc)
		values(t.Consts)
		values(t.Vars)
		funcs(t.Funcs, "")
		funcs(t.Methods, t.Name+".")
	}
	return blocks, nil
}

// The forms a block can take, tried in this order.
const (
	formNone    = iota // not Go: a table, a grammar, a command line
	formProgram        // a file with its package clause
	formDecls          // declarations, imports first if any
	formStmts          // statements, as in a function body
)

// parsed is a block made into a Go file.
type parsed struct {
	form  int
	src   string // the file's text
	shift int    // lines src adds before the block's first line
}

// parseBlock makes b a Go file: as it is if it opens with a package clause,
// else under "package p" as declarations, else in a function body as
// statements. A block that parses none of these ways is not Go.
func parseBlock(text string) parsed {
	fset := token.NewFileSet()
	try := func(p parsed) (parsed, bool) {
		_, err := parser.ParseFile(fset, "block.go", p.src, 0)
		return p, err == nil
	}
	if strings.HasPrefix(text, "package ") {
		if p, ok := try(parsed{formProgram, text, 0}); ok {
			return p
		}
		return parsed{}
	}
	if p, ok := try(parsed{formDecls, "package p\n" + text, 1}); ok {
		return p
	}
	if p, ok := try(parsed{formStmts, "package p\n\nfunc _() {\n" + text + "\n}\n", 3}); ok {
		return p
	}
	return parsed{}
}

// CheckBlocks type-checks the blocks that are Go against the packages that
// go list sees from moduleDir, and returns one line for each block that
// fails and the blocks it skipped as not Go. The rule:
//
//   - A block that opens with a package clause is a complete program: every
//     type error fails it.
//   - A block of declarations, or of statements (checked as a function
//     body), is a fragment: it may leave names to its reader. An unqualified
//     undefined name (xs, p, the r of r.Context()) and a variable declared
//     and not used pass; a qualified name its package lacks (blitz.Sum), a
//     call with the wrong arguments, any other type error fails it. A
//     fragment's qualifiers need no import: a name in known (package name to
//     import path) used as a qualifier is imported for it.
//   - A block that parses as none of these is not Go (a table, a grammar, a
//     command line) and is skipped.
func CheckBlocks(moduleDir string, blocks []Block, known map[string]string) (fails []string, skipped []Block, err error) {
	type job struct {
		b Block
		p parsed
	}
	var jobs []job
	paths := map[string]bool{}
	for _, b := range blocks {
		p := parseBlock(b.Text)
		if p.form == formNone {
			skipped = append(skipped, b)
			continue
		}
		jobs = append(jobs, job{b, p})
		f, _ := parser.ParseFile(token.NewFileSet(), "block.go", p.src, parser.ImportsOnly)
		for _, is := range f.Imports {
			paths[strings.Trim(is.Path.Value, `"`)] = true
		}
		if p.form != formProgram {
			for name, path := range known {
				if strings.Contains(b.Text, name+".") {
					paths[path] = true
				}
			}
		}
	}
	exports, err := exportData(moduleDir, slices.Sorted(maps.Keys(paths)))
	if err != nil {
		return nil, nil, err
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		file, ok := exports[path]
		if !ok {
			return nil, fmt.Errorf("go list -export found no export data for %s", path)
		}
		return os.Open(file)
	})
	for _, j := range jobs {
		if msg := checkOne(fset, imp, j.p, known); msg != "" {
			fails = append(fails, fmt.Sprintf("%s: %s\n%s", j.b.Where, msg, indent(j.b.Text)))
		}
	}
	return fails, skipped, nil
}

// checkOne type-checks one block and returns its first error that the rule
// does not allow, or "".
func checkOne(fset *token.FileSet, imp types.Importer, p parsed, known map[string]string) string {
	check := func(src string) ([]types.Error, *ast.File) {
		f, err := parser.ParseFile(fset, "block.go", src, 0)
		if err != nil {
			return []types.Error{{Fset: fset, Pos: token.NoPos, Msg: err.Error()}}, nil
		}
		var errs []types.Error
		conf := types.Config{
			Importer: imp,
			Sizes:    types.SizesFor("gc", build.Default.GOARCH),
			Error:    func(err error) { errs = append(errs, err.(types.Error)) },
		}
		conf.Check(f.Name.Name, fset, []*ast.File{f}, nil)
		return errs, f
	}
	errs, f := check(p.src)
	shift := p.shift
	if p.form != formProgram && f != nil {
		// Import what the fragment uses as a qualifier and leaves undefined.
		undefined := map[token.Pos]bool{}
		for _, e := range errs {
			if strings.HasPrefix(e.Msg, "undefined: ") {
				undefined[e.Pos] = true
			}
		}
		need := map[string]bool{}
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if x, ok := sel.X.(*ast.Ident); ok && undefined[x.Pos()] && known[x.Name] != "" {
					need[known[x.Name]] = true
				}
			}
			return true
		})
		if len(need) > 0 {
			var imports strings.Builder
			imports.WriteString("package p\n\nimport (\n")
			for _, path := range slices.Sorted(maps.Keys(need)) {
				fmt.Fprintf(&imports, "\t%q\n", path)
			}
			imports.WriteString(")\n")
			body := strings.TrimPrefix(p.src, "package p\n")
			shift += strings.Count(imports.String(), "\n") - 1
			errs, _ = check(imports.String() + body)
		}
	}
	for _, e := range errs {
		if p.form != formProgram && allowedInFragment(e.Msg) {
			continue
		}
		pos := fset.Position(e.Pos)
		if pos.IsValid() {
			return fmt.Sprintf("line %d: %s", pos.Line-shift, e.Msg)
		}
		return e.Msg
	}
	return ""
}

// allowedInFragment reports whether a type error only says that a fragment
// leaves a name to its reader.
func allowedInFragment(msg string) bool {
	if name, ok := strings.CutPrefix(msg, "undefined: "); ok {
		return !strings.Contains(name, ".")
	}
	return strings.HasPrefix(msg, "declared and not used: ")
}

// exportData runs go list -export in dir for paths and their dependencies
// and returns each package's export data file.
func exportData(dir string, paths []string) (map[string]string, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	args := append([]string{"list", "-export", "-deps", "-f", "{{.ImportPath}}\t{{.Export}}"}, paths...)
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -export: %v\n%s", err, stderr.Bytes())
	}
	exports := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if path, file, ok := strings.Cut(line, "\t"); ok && file != "" {
			exports[path] = file
		}
	}
	return exports, nil
}

// KnownPackages returns the package names a fragment may use as qualifiers
// and the import paths they stand for, from go list run in moduleDir: the
// module's packages (commands and internal ones left out), then the
// standard library's (internal and vendored ones left out). A name two
// packages share goes to the module's, then to the package whose path is
// the name itself, then to the shortest path (rand is math/rand).
func KnownPackages(moduleDir string) (map[string]string, error) {
	cmd := exec.Command("go", "list", "-f", "{{.Standard}}\t{{.Name}}\t{{.ImportPath}}", "std", "./...")
	cmd.Dir = moduleDir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %v\n%s", err, stderr.Bytes())
	}
	known := map[string]string{}
	ours := map[string]bool{}
	better := func(name, path, old string, std bool) bool {
		switch {
		case old == "":
			return true
		case ours[name]:
			return false
		case !std:
			return true
		case old == name:
			return false
		case path == name:
			return true
		}
		return len(path) < len(old) || len(path) == len(old) && path < old
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Split(line, "\t")
		if len(fields) != 3 {
			continue
		}
		std, name, path := fields[0] == "true", fields[1], fields[2]
		if name == "main" || slices.Contains(strings.Split(path, "/"), "internal") || strings.HasPrefix(path, "vendor/") {
			continue
		}
		if better(name, path, known[name], std) {
			known[name] = path
			if !std {
				ours[name] = true
			}
		}
	}
	return known, nil
}

func indent(s string) string {
	return "\t" + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n\t")
}
