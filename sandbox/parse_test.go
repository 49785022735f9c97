package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dop251/goja/ast"

	"github.com/wfrun/wfrun/internal/wferr"
)

// parseErr parses src and returns its *wferr.Error, failing the test when
// Parse succeeds or returns another kind of error.
func parseErr(t *testing.T, src string) *wferr.Error {
	t.Helper()
	_, err := Parse("script.js", src)
	if err == nil {
		t.Fatalf("Parse(%q) succeeded, want SCRIPT_PARSE", src)
	}
	var we *wferr.Error
	if !errors.As(err, &we) || we.Code != wferr.ScriptParse {
		t.Fatalf("Parse(%q) = %v, want a SCRIPT_PARSE *wferr.Error", src, err)
	}
	return we
}

func TestParse_SharedScriptsPass(t *testing.T) {
	files, _ := filepath.Glob("../testdata/shared/*.js")
	if len(files) == 0 {
		t.Fatal("no scripts in testdata")
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Parse(filepath.Base(f), string(src)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

func TestParse_BadScriptsFailAtTheirLine(t *testing.T) {
	for _, tc := range []struct {
		file       string
		line, col  int
		msgContain string
	}{
		{"bad/import.js", 3, 1, "modules are not available"},
		{"bad/typescript.js", 3, 8, "remove the type annotation `: number`"},
	} {
		e := parseErr(t, readTestdata(t, tc.file))
		if e.Line != tc.line || e.Column != tc.col || !strings.Contains(e.Message, tc.msgContain) {
			t.Errorf("%s: got %v, want line %d column %d containing %q", tc.file, e, tc.line, tc.col, tc.msgContain)
		}
	}
}

func TestParse_ImportIsRefusedWithLine(t *testing.T) {
	for _, tc := range []struct {
		src       string
		line, col int
	}{
		{"import fs from 'fs'\nreturn 1", 1, 1},
		{"const a = 1\n  const m = await import('fs')", 2, 19},
		{"export const meta = {name: 'x'}\nimport { a } from 'b'", 2, 1},
	} {
		e := parseErr(t, tc.src)
		if !strings.Contains(e.Message, "modules are not available") || e.Line != tc.line || e.Column != tc.col {
			t.Errorf("%q: got %v, want the modules sentence at %d:%d", tc.src, e, tc.line, tc.col)
		}
	}
}

func TestParse_CommentMentioningImportPasses(t *testing.T) {
	for _, src := range []string{
		"// we do not import('fs') or require('x') here; for await is avoided too\nreturn 1",
		"/* import x from 'y' */ return 'import() and require(\"fs\")'",
		"const s = `export default ${1}`; return s",
		"return { import: 1, export: 2, type: 3, interface: 4 }.import",
	} {
		if _, err := Parse("script.js", src); err != nil {
			t.Errorf("%q: %v", src, err)
		}
	}
}

func TestParse_ExportOtherThanMetaIsRefused(t *testing.T) {
	e := parseErr(t, "export default 1")
	if !strings.Contains(e.Message, "only `export const meta = {…}` may be exported") || e.Line != 1 || e.Column != 1 {
		t.Errorf("got %v", e)
	}
	e = parseErr(t, "const a = 1\nexport const meta = {}")
	if !strings.Contains(e.Message, "must be the first statement") || e.Line != 2 {
		t.Errorf("got %v", e)
	}
}

func TestParse_TypeScriptAnnotationNamed(t *testing.T) {
	for _, tc := range []struct {
		src, want string
		line, col int
	}{
		{"const n: number = 3", "remove the type annotation `: number`", 1, 8},
		{"return 1\nfunction f(a: string[]) {}", "remove the type annotation `: string[]`", 2, 13},
		{"function f(a): Promise<string> { return a }", "remove the type annotation `: Promise<string>`", 1, 14},
		{"interface Foo { a: number }", "remove the interface declaration `interface Foo`", 1, 1},
		{"type X = { a: number }", "remove the type alias `type X = …`", 1, 1},
		{"const m = new Map<string, number>()", "remove the type parameters `<string, number>`", 1, 18},
		{"function f<T>(x) { return x }", "remove the type parameters `<T>`", 1, 11},
		{"const y = x as string", "remove the type assertion `as string`", 1, 13},
		{"const z = x!.y", "remove the non-null assertion `!`", 1, 12},
		{"enum Color { Red }", "replace the enum with a frozen object", 1, 1},
		{"class A { private x = 1 }", "remove the modifier `private`", 1, 11},
	} {
		e := parseErr(t, tc.src)
		if !strings.Contains(e.Message, "TypeScript is not supported") || !strings.Contains(e.Message, tc.want) ||
			e.Line != tc.line || e.Column != tc.col {
			t.Errorf("%q: got %v, want %q at %d:%d", tc.src, e, tc.want, tc.line, tc.col)
		}
	}
}

func TestParse_UnsupportedSyntaxSaysWhatToWrite(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"for await (const x of xs) {}", "use `for (const x of await Promise.all(list))`"},
		{"async function* g() { yield 1 }", "async generators are not supported"},
	} {
		if e := parseErr(t, tc.src); !strings.Contains(e.Message, tc.want) || e.Line != 1 {
			t.Errorf("%q: got %v, want %q", tc.src, e, tc.want)
		}
	}
}

func TestParse_RejectsWrapperEscape(t *testing.T) {
	for _, src := range []string{
		"})(); evil(); (async () => {",
		"\n})()}); evil(); (function(){return (async function(){",
		"})()})(evil()) || (function(){return (async function(){",
	} {
		e := parseErr(t, src)
		if !strings.Contains(e.Message, "unbalanced") || e.Line < 1 {
			t.Errorf("%q: got %v, want unbalanced braces", src, e)
		}
	}
}

func TestParse_UnbalancedBracketsPointAtTheCulprit(t *testing.T) {
	e := parseErr(t, "const a = 1\n}\nreturn a")
	if !strings.Contains(e.Message, "closes a block that was never opened") || e.Line != 2 || e.Column != 1 {
		t.Errorf("extra closer: got %v", e)
	}
	e = parseErr(t, "if (x) {\n  return 1\n")
	if !strings.Contains(e.Message, "is never closed") || e.Line != 1 || e.Column != 8 {
		t.Errorf("missing closer: got %v", e)
	}
}

func TestParse_BodyMayRedeclareArgsAndReturnAtTopLevel(t *testing.T) {
	out, err := run(t, "const args = 5\nconst workflow = 6\nreturn args + workflow + (await Promise.resolve(1))", `{"x":1}`)
	if err != nil || string(out) != "12" {
		t.Fatalf("got %s, %v", out, err)
	}
}

func TestParse_SizeLimit(t *testing.T) {
	e := parseErr(t, "return 1//"+strings.Repeat("x", MaxSourceBytes))
	if !strings.Contains(e.Message, "the limit is 512 KiB: move data into args") {
		t.Errorf("got %v", e)
	}
}

func TestParse_DeepNestingIsRefusedQuickly(t *testing.T) {
	for _, src := range []string{
		"return " + strings.Repeat("[", MaxSourceBytes-10),
		"return " + strings.Repeat("(", 5000) + "1" + strings.Repeat(")", 5000),
		"return " + strings.Repeat("!", 100000) + "1",
		"return " + strings.Repeat("- ", 100000) + "1",
	} {
		e := parseErr(t, src)
		if !strings.Contains(e.Message, "nests brackets or operators more than") {
			t.Errorf("%.20q…: got %v", src, e)
		}
	}
}

func TestParse_ShebangAndBOMAreAccepted(t *testing.T) {
	for _, src := range []string{"#!/usr/bin/env wfrun\nreturn 1", "\uFEFFreturn 1"} {
		if out, err := run(t, src, ""); err != nil || string(out) != "1" {
			t.Errorf("%q: %s %v", src, out, err)
		}
	}
}

func TestParse_MetaIsFoundAfterAnyPrelude(t *testing.T) {
	meta := "export const meta = { name: 'n', description: 'd' }\nreturn meta.name"
	for _, prelude := range []string{"", "#!/usr/bin/env wfrun\n", "\uFEFF", "\uFEFF#!/usr/bin/env wfrun\n"} {
		s, err := Parse("script.js", prelude+meta)
		if err != nil {
			t.Fatalf("%q: %v", prelude, err)
		}
		lit, pos := s.MetaLiteral(), s.Position
		if lit == nil {
			t.Fatalf("%q: the leading export const meta was not found", prelude)
		}
		if line, _ := pos(lit.Idx0()); line != strings.Count(prelude, "\n")+1 {
			t.Errorf("%q: meta literal on line %d", prelude, line)
		}
	}
}

func TestParse_UnterminatedRegexpClassIsRefused(t *testing.T) {
	// goja's lexer accepts this as an empty pattern.
	if e := parseErr(t, "return /[/"); !strings.Contains(e.Message, "unterminated regular expression") {
		t.Errorf("got %v", e)
	}
}

func TestParse_UnsupportedPropertyEscapeIsRefused(t *testing.T) {
	e := parseErr(t, "const x = 1\nreturn /\\p{Emoji}/u.test(x)")
	if !strings.Contains(e.Message, "`\\p{Emoji}` is not supported") || e.Line != 2 || e.Column != 8 {
		t.Errorf("got %v", e)
	}
}

func TestParse_SyntaxErrorPositionIsUsers(t *testing.T) {
	e := parseErr(t, "let a = 1; let a = 2")
	if e.Line != 1 || e.Column != 16 {
		t.Errorf("got %v, want 1:16", e)
	}
	e = parseErr(t, "return 1\nconst = 5")
	if e.Line != 2 || e.Column != 7 {
		t.Errorf("got %v, want 2:7", e)
	}
}

func TestMetaLiteral_ReturnsInitializerWithUserPositions(t *testing.T) {
	s, err := Parse("script.js", "// lead\nexport const meta = {\n  name: 'x',\n}\nreturn meta.name")
	if err != nil {
		t.Fatal(err)
	}
	expr, pos := s.MetaLiteral(), s.Position
	obj, ok := expr.(*ast.ObjectLiteral)
	if !ok {
		t.Fatalf("meta is %T", expr)
	}
	if l, c := pos(obj.Idx0()); l != 2 || c != 21 {
		t.Errorf("object at %d:%d, want 2:21", l, c)
	}
	if l, c := pos(obj.Value[0].Idx0()); l != 3 || c != 3 {
		t.Errorf("first property at %d:%d, want 3:3", l, c)
	}
	if out, err := run(t, s.Source, ""); err != nil || string(out) != `"x"` {
		t.Errorf("meta is not an ordinary constant: %s %v", out, err)
	}
	s, _ = Parse("script.js", "return 1")
	if expr := s.MetaLiteral(); expr != nil {
		t.Errorf("no meta: got %T", expr)
	}
}

func TestMetaLiteral_LineOneColumnsAreShifted(t *testing.T) {
	s, err := Parse("script.js", "export const meta = {a: 1}")
	if err != nil {
		t.Fatal(err)
	}
	expr, pos := s.MetaLiteral(), s.Position
	if l, c := pos(expr.Idx0()); l != 1 || c != 21 {
		t.Errorf("got %d:%d, want 1:21", l, c)
	}
}

func TestParse_RegexpAtLineEndIsAccepted(t *testing.T) {
	for _, src := range []string{
		"const re = /a/g\nreturn 'aa'.replace(re, 'b')",
		"const re = /a/g // global\nreturn 1",
		"const re = /[/]/\nreturn 1",
		"return 'x'.split(/,\\s*/)\n",
	} {
		if _, err := Parse("script.js", src); err != nil {
			t.Errorf("%q: %v", src, err)
		}
	}
	if _, err := Parse("script.js", "return /[/\nconst x = 1"); err == nil {
		t.Error("an unterminated class was accepted")
	}
}

func TestScript_TextIsTheUsersSourceOfANode(t *testing.T) {
	for _, src := range []string{
		"export const meta = { name: 'n',\n  description: 'd' }\nreturn 1",
		"\uFEFF#!/usr/bin/env wfrun\nexport const meta = {name:'n', description:'d'}",
	} {
		s, err := Parse("script.js", src)
		if err != nil {
			t.Fatal(err)
		}
		lit := s.MetaLiteral()
		want := src[strings.Index(src, "{") : strings.LastIndex(src, "}")+1]
		if got := s.Text(lit.Idx0(), lit.Idx1()); got != want {
			t.Errorf("Text = %q, want %q", got, want)
		}
	}
}
