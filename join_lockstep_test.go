package blitz

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Join repeats the body of JoinArgs instead of calling it (join.go says
// why), so a change to one must be made to the other. TestJoinLockstep
// parses join.go and requires the two bodies to be the same, statement for
// statement, once JoinArgs' body is written in Join's terms by
// joinArgsAsJoin. That rewrite undoes exactly what the argument makes
// different, and nothing else:
//
//   - the functions fa and fb are named a and b, and the calls fa(w, a)
//     and fb(w, b) become a(w) and b(w);
//   - the frame type argFrame[B, RB] becomes fnFrame[RB];
//   - job.fn, job.arg = fb, b becomes job.fn = b;
//   - the name "JoinArgs" (for badJoin and offer's panics) becomes "Join".
//
// Comments and blank lines are not compared.
func TestJoinLockstep(t *testing.T) {
	src, err := os.ReadFile("join.go")
	require.NoError(t, err)
	require.NoError(t, joinLockstep(src))

	// Each change made to one body only is caught, and the message shows
	// the first statement that differs.
	for _, c := range []struct{ fn, old, new, want string }{
		{"Join", "\tw.stats.bump(&w.stats.joinsStolen)\n", "", "w.waitJoin(f)"},
		{"JoinArgs", "w.depth = d + joinDepthAwait", "w.depth = d + joinDepthInline", "joinDepthInline"},
		{"JoinArgs", "rb = fb(w, b)", "rb = fb(w, a)", "rb = b(w, a)"},
		{"Join", `w.offer(f, d, "Join")`, `w.offer(f, d, "JoinArgs")`, `"JoinArgs"`},
		{"Join", "\treturn ra, rb\n}", "\tpropagate(nil, false)\n\treturn ra, rb\n}", "propagate(nil, false)"},
	} {
		t.Run(fmt.Sprintf("%s: %q to %q", c.fn, c.old, c.new), func(t *testing.T) {
			err := joinLockstep(replaceInFunc(t, src, c.fn, c.old, c.new))
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
			t.Log(err)
		})
	}
}

// joinLockstep reports the first statement at which the bodies of Join and
// JoinArgs in src, the text of join.go, differ once JoinArgs' is written in
// Join's terms; nil if they do not.
func joinLockstep(src []byte) error {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "join.go", src, 0)
	if err != nil {
		return err
	}
	join, args := findFunc(f, "Join"), findFunc(f, "JoinArgs")
	if join == nil || args == nil {
		return fmt.Errorf("join.go declares no Join or no JoinArgs")
	}
	joinArgsAsJoin(args.Body)
	js, as := join.Body.List, args.Body.List
	for i := range max(len(js), len(as)) {
		j, jl := stmtText(fset, js, i)
		a, al := stmtText(fset, as, i)
		if j == a {
			continue
		}
		jls, als := strings.Split(j, "\n"), strings.Split(a, "\n")
		k := 0
		for k < min(len(jls), len(als)) && jls[k] == als[k] {
			k++
		}
		return fmt.Errorf("Join and JoinArgs differ at statement %d of their bodies, line %d of that statement:\n"+
			"Join (the statement at join.go:%d):\n\t%s\nJoinArgs in Join's terms (the statement at join.go:%d):\n\t%s\n"+
			"make the change in both (see join_lockstep_test.go)",
			i+1, k+1, jl, lineAt(jls, k), al, lineAt(als, k))
	}
	return nil
}

// findFunc returns the function (not method) named name declared in f.
func findFunc(f *ast.File, name string) *ast.FuncDecl {
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Name.Name == name {
			return fd
		}
	}
	return nil
}

// joinArgsAsJoin rewrites the body of JoinArgs in place in Join's terms
// (see TestJoinLockstep).
func joinArgsAsJoin(body *ast.BlockStmt) {
	fnOf := map[string]string{"fa": "a", "fb": "b"}
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr: // fa(w, a) -> fa(w); the ident below then renames fa
			if fn, ok := n.Fun.(*ast.Ident); ok && len(n.Args) == 2 && isIdent(n.Args[0], "w") && isIdent(n.Args[1], fnOf[fn.Name]) {
				n.Args = n.Args[:1]
			}
		case *ast.Ident:
			if to, ok := fnOf[n.Name]; ok {
				n.Name = to
			}
		case *ast.IndexListExpr: // argFrame[B, RB] -> fnFrame[RB]
			if isIdent(n.X, "argFrame") && len(n.Indices) == 2 && isIdent(n.Indices[0], "B") {
				n.X.(*ast.Ident).Name = "fnFrame"
				n.Indices = n.Indices[1:]
			}
		case *ast.AssignStmt: // job.fn, job.arg = fb, b -> job.fn = fb
			if len(n.Lhs) == 2 && len(n.Rhs) == 2 && isSelector(n.Lhs[0], "job", "fn") && isSelector(n.Lhs[1], "job", "arg") && isIdent(n.Rhs[1], "b") {
				n.Lhs, n.Rhs = n.Lhs[:1], n.Rhs[:1]
			}
		case *ast.BasicLit:
			if n.Value == `"JoinArgs"` {
				n.Value = `"Join"`
			}
		}
		return true
	})
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && name != "" && id.Name == name
}

func isSelector(e ast.Expr, x, sel string) bool {
	s, ok := e.(*ast.SelectorExpr)
	return ok && isIdent(s.X, x) && s.Sel.Name == sel
}

// stmtText returns statement i of list as gofmt prints it, without its
// comments and blank lines, and its line in join.go; "(none)" and 0 past
// the end of list.
func stmtText(fset *token.FileSet, list []ast.Stmt, i int) (string, int) {
	if i >= len(list) {
		return "(none)", 0
	}
	var b bytes.Buffer
	if err := printer.Fprint(&b, fset, list[i]); err != nil {
		return "(unprintable: " + err.Error() + ")", fset.Position(list[i].Pos()).Line
	}
	var lines []string
	for _, l := range strings.Split(b.String(), "\n") {
		if strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "\n"), fset.Position(list[i].Pos()).Line
}

func lineAt(lines []string, k int) string {
	if k < len(lines) {
		return strings.TrimSpace(lines[k])
	}
	return "(end of statement)"
}

// replaceInFunc returns src with the first old in the declaration of the
// function name replaced by new.
func replaceInFunc(t *testing.T, src []byte, name, old, new string) []byte {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "join.go", src, 0)
	require.NoError(t, err)
	fd := findFunc(f, name)
	require.NotNil(t, fd, name)
	lo, hi := fset.Position(fd.Pos()).Offset, fset.Position(fd.End()).Offset
	body := string(src[lo:hi])
	require.Contains(t, body, old, "%s holds no %q", name, old)
	return []byte(string(src[:lo]) + strings.Replace(body, old, new, 1) + string(src[hi:]))
}
