package meta

import (
	"errors"
	"os"
	"regexp"
	"testing"

	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/file"
	"github.com/dop251/goja/parser"
	"go.uber.org/goleak"

	"github.com/wfrun/wfrun/internal/wferr"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// exportRE matches the `export` before `const meta`, which sandbox blanks
// out (keeping columns) before it parses the script.
var exportRE = regexp.MustCompile(`(?m)^export(\s+const\s+meta\b)`)

// wrapPrefix is what parseMeta puts before the script on its first line, as
// package sandbox wraps the body in a function so that top-level return and
// await work.
const wrapPrefix = "(async function () {"

// wrappedSource is a Source over a script wrapped as parseMeta wraps it.
type wrappedSource struct {
	prog *ast.Program
	src  string // as wrapped
}

func (w wrappedSource) Position(idx file.Idx) (int, int) {
	p := w.prog.File.Position(int(idx) - w.prog.File.Base())
	if p.Line == 1 {
		p.Column -= len(wrapPrefix)
	}
	return p.Line, p.Column
}

func (w wrappedSource) Text(from, to file.Idx) string {
	base := w.prog.File.Base()
	return w.src[int(from)-base : int(to)-base]
}

// parseMeta parses src as a script, the way package sandbox does, and
// returns the initializer of its first `const meta = …` and a Source that
// maps back to src. ok is false when src is not parseable JavaScript.
func parseMeta(src string) (ast.Expression, Source, bool) {
	src = exportRE.ReplaceAllString(src, "      $1")
	wrapped := wrapPrefix + src + "\n})"
	prog, err := parser.ParseFile(nil, "x.js", wrapped, 0, parser.WithDisableSourceMaps)
	if err != nil {
		return nil, nil, false
	}
	pos := wrappedSource{prog: prog, src: wrapped}
	if len(prog.Body) != 1 {
		return nil, nil, false
	}
	st, ok := prog.Body[0].(*ast.ExpressionStatement)
	if !ok {
		return nil, nil, false
	}
	fn, ok := st.Expression.(*ast.FunctionLiteral)
	if !ok {
		return nil, nil, false
	}
	for _, st := range fn.Body.List {
		decl, ok := st.(*ast.LexicalDeclaration)
		if !ok || len(decl.List) == 0 {
			continue
		}
		if id, ok := decl.List[0].Target.(*ast.Identifier); ok && id.Name == "meta" {
			return decl.List[0].Initializer, pos, true
		}
	}
	return nil, nil, false
}

// mustParseMeta is parseMeta for sources a test knows to be valid.
func mustParseMeta(t *testing.T, src string) (ast.Expression, Source) {
	t.Helper()
	expr, pos, ok := parseMeta(src)
	if !ok {
		t.Fatalf("test source does not parse or has no const meta:\n%s", src)
	}
	return expr, pos
}

// metaError asserts that err is a META_INVALID *wferr.Error and returns it.
func metaError(t *testing.T, err error) *wferr.Error {
	t.Helper()
	var e *wferr.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not a *wferr.Error", err, err)
	}
	if e.Code != wferr.MetaInvalid {
		t.Fatalf("code = %s, want %s (error: %v)", e.Code, wferr.MetaInvalid, err)
	}
	return e
}

func readTestdata(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
