package doccheck

import (
	"go/ast"
	"go/build"
	"go/doc"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
)

// UnattachedExamples returns the names of the Example functions in dir's
// test files (package p and p_test, as ctxt selects them) that go/doc, and
// so pkgsite and go doc, attach to nothing: not to the package, nor to an
// exported type, function or method. Such an example compiles, runs under go
// test and passes go vet when its test file imports the package that does
// hold the name (ExampleFor in a package that calls par.For), yet no page
// shows it. Dirs without Go files or without examples give nil.
func UnattachedExamples(ctxt *build.Context, dir string) ([]string, error) {
	bp, err := ctxt.ImportDir(dir, 0)
	if err != nil {
		if _, ok := err.(*build.NoGoError); ok {
			return nil, nil
		}
		return nil, err
	}
	fset := token.NewFileSet()
	parse := func(names []string) ([]*ast.File, error) {
		var files []*ast.File
		for _, name := range names {
			f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments)
			if err != nil {
				return nil, err
			}
			files = append(files, f)
		}
		return files, nil
	}
	src, err := parse(bp.GoFiles)
	if err != nil {
		return nil, err
	}
	tests, err := parse(append(slices.Clone(bp.TestGoFiles), bp.XTestGoFiles...))
	if err != nil {
		return nil, err
	}
	var all []string
	for _, ex := range doc.Examples(tests...) {
		all = append(all, "Example"+ex.Name)
	}
	if len(all) == 0 {
		return nil, nil
	}
	pkg, err := doc.NewFromFiles(fset, append(src, tests...), bp.ImportPath, doc.PreserveAST)
	if err != nil {
		return nil, err
	}
	attached := make(map[string]bool)
	add := func(exs []*doc.Example) {
		for _, ex := range exs {
			attached["Example"+ex.Name] = true // Name keeps the suffix
		}
	}
	add(pkg.Examples)
	for _, f := range pkg.Funcs {
		add(f.Examples)
	}
	for _, t := range pkg.Types {
		add(t.Examples)
		for _, f := range t.Funcs {
			add(f.Examples)
		}
		for _, m := range t.Methods {
			add(m.Examples)
		}
	}
	var lost []string
	for _, name := range all {
		if !attached[name] {
			lost = append(lost, name)
		}
	}
	return lost, nil
}
