package sandbox

import (
	"errors"
	"fmt"
	"strings"

	"github.com/dop251/goja"
	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/file"
	"github.com/dop251/goja/parser"

	"github.com/wfrun/wfrun/internal/wferr"
)

// MaxSourceBytes is the largest script Parse accepts. Data belongs in args.
const MaxSourceBytes = 512 << 10

// maxNesting bounds bracket nesting and runs of prefix operators. goja's
// parser and compiler are recursive; without a bound a 512 KiB `[[[[…` would
// take seconds and a huge Go stack. Real scripts nest a few dozen levels.
const maxNesting = 1000

// The wrapper turns a script body into one function expression F. The prefix
// sits on the user's first line, so every line number matches the user's file
// and only columns on line 1 shift (by len(prefix)).
const (
	wrapPrefix = "(function(args, workflow){return (async function(){"
	wrapSuffix = "\n})()})"
)

// Script is a checked, compiled workflow script. It is immutable and safe to
// share between runtimes and goroutines.
type Script struct {
	// Name labels positions and stack traces, e.g. "script.js".
	Name string
	// Source is the user's text, unchanged.
	Source string

	program    *goja.Program
	prefixLen  int            // bytes before the user's text in the wrapped source
	meta       ast.Expression // initializer of a leading `export const meta = …`, or nil
	lines      lineTable      // line starts of Source
	generators bool           // the script declares a generator function

	watch       []string                         // the callee names whose calls are kept (Parse's watch)
	calls       map[string][]*ast.CallExpression // their calls, by name (see Calls)
	bound       map[string]bool                  // the names the script binds (see Binds)
	absent      []AbsentUse                      // uses of what a workflow lacks (see AbsentUses)
	refs        map[string]bool                  // every name the script writes as an identifier or property name
	stringReach bool                             // the script can reach String.prototype's sized methods (memory.go)
	arrayReach  bool                             // the script can hand an array method a huge length (memory.go)
	bindReach   bool                             // the script can reach Function.prototype.bind (nesting.go)
	helpers     bool                             // the wrapper takes the size-checking helpers (rewrite.go)
	// What the script can reach of conversion.go's guards.
	conversionReach, installerReach, dataReach, applyReach, reflectReach bool
	regexps                                                              bool // the script can make a regexp (see regexp.go)
}

// Parse runs every source check on src and compiles it. name is used in
// stack traces and positions (e.g. "script.js" or a workflow file path).
// Every error is a *wferr.Error with code SCRIPT_PARSE; where it has a
// position, the line and column are in the user's file. The calls of each
// callee named in watch (a plain identifier called, such as f(…)) are kept
// for Calls; the sandbox gives them no meaning.
func Parse(name, src string, watch ...string) (*Script, error) {
	if len(src) > MaxSourceBytes {
		return nil, wferr.New(wferr.ScriptParse, "script is %d KiB; the limit is %d KiB: move data into args",
			(len(src)+1023)>>10, MaxSourceBytes>>10)
	}
	s := &Script{Name: name, Source: src, prefixLen: len(wrapPrefix), lines: newLineTable(src), watch: watch}

	// The tokens are of the blanked source: offsets are the same, and a
	// byte-order mark followed by #! reads as the blank it becomes.
	body := blankPrelude(src)
	toks := tokenize(body)
	if err := s.checkNesting(toks); err != nil {
		return nil, err
	}
	hasMeta := false
	if len(toks) >= 4 && toks[0].text == "export" && toks[1].text == "const" && toks[2].text == "meta" && toks[3].text == "=" {
		body = body[:toks[0].start] + "      " + body[toks[0].end:]
		hasMeta = true
	}

	wrapped := wrapPrefix + body + wrapSuffix
	prg, err := parser.ParseFile(nil, name, wrapped, 0, parser.WithDisableSourceMaps)
	if err != nil {
		return nil, s.parseError(err, toks)
	}
	inner, err := s.checkWrapper(prg, toks)
	if err != nil {
		return nil, err
	}
	if hasMeta {
		s.meta = leadingMeta(inner)
	}
	if err := s.rewriteRegexps(prg); err != nil {
		return nil, err
	}
	s.findAbsent(prg) // on the tree as the user wrote it, before the rewrite
	s.helpers = rewriteSizes(prg.Body[0].(*ast.ExpressionStatement).Expression.(*ast.FunctionLiteral), s.meta)
	s.program, err = goja.CompileAST(prg, false)
	if err != nil {
		return nil, s.compileError(err)
	}
	return s, nil
}

// MetaLiteral returns the initializer expression of a leading
// `export const meta = …`, or nil when the script has no such statement.
// Position and Text map the tree's positions to the user's file. The tree
// belongs to the Script: read it, never change it.
func (s *Script) MetaLiteral() ast.Expression {
	return s.meta
}

// Mentions reports whether the script can reach the global name: it writes
// the name (as an identifier or a property name), or it names globalThis or
// uses this, which reach every global. Without eval or the Function
// constructors (both disabled) a script reaches a global no other way, so a
// host that installs only the globals a script mentions changes nothing the
// script can see.
func (s *Script) Mentions(name string) bool {
	return s.refs[name] || s.refs["globalThis"] || s.refs["this"]
}

// Calls returns the calls of the callee name, in source order, when Parse
// was asked to watch it; nil when the script binds the name itself, since
// its calls are then not the host's function. The trees belong to the
// Script: read them, never change them.
func (s *Script) Calls(name string) []*ast.CallExpression {
	if s.bound[name] {
		return nil
	}
	return s.calls[name]
}

// Binds reports whether the script declares name itself: a variable, a
// parameter, a function's or class's name.
func (s *Script) Binds(name string) bool { return s.bound[name] }

// Position maps a position in the Script's syntax trees (MetaLiteral,
// Calls) to the user's 1-based line and column.
func (s *Script) Position(idx file.Idx) (line, col int) { return s.posOfIdx(idx) }

// Text returns the user's source between two positions of the Script's
// syntax trees (from inclusive, to exclusive), clamped to the source.
func (s *Script) Text(from, to file.Idx) string {
	a, b := int(from)-1-s.prefixLen, int(to)-1-s.prefixLen
	a, b = max(a, 0), min(b, len(s.Source))
	if a >= b {
		return ""
	}
	return s.Source[a:b]
}

// posOfIdx maps a file.Idx of the wrapped source (1-based offset) to the
// user's line and column.
func (s *Script) posOfIdx(idx file.Idx) (line, col int) {
	return s.lines.pos(int(idx) - 1 - s.prefixLen)
}

// blankPrelude replaces a UTF-8 byte-order mark and a leading #! line with
// spaces of the same length: neither is valid after the wrapper's prefix,
// and blanking keeps every offset.
func blankPrelude(src string) string {
	start := 0
	if strings.HasPrefix(src, "\uFEFF") {
		start = 3
	}
	if !strings.HasPrefix(src[start:], "#!") {
		if start == 0 {
			return src
		}
		return "   " + src[3:]
	}
	end := strings.IndexByte(src, '\n')
	if end < 0 {
		end = len(src)
	}
	return strings.Repeat(" ", end) + src[end:]
}

// leadingMeta returns the initializer of `const meta = …` when it is the
// first statement of the script body.
func leadingMeta(inner *ast.FunctionLiteral) ast.Expression {
	if len(inner.Body.List) == 0 {
		return nil
	}
	decl, ok := inner.Body.List[0].(*ast.LexicalDeclaration)
	if !ok || len(decl.List) != 1 {
		return nil
	}
	b := decl.List[0]
	if id, ok := b.Target.(*ast.Identifier); !ok || id.Name != "meta" {
		return nil
	}
	return b.Initializer
}

// checkWrapper verifies that the parsed program is exactly the wrapper with
// the user's text inside the inner function, so a body such as
// `})(); evil(); (async () => {` cannot run code outside it. It returns the
// inner async function.
func (s *Script) checkWrapper(prg *ast.Program, toks []token) (*ast.FunctionLiteral, error) {
	innerLeft := file.Idx(len(wrapPrefix))                      // 1-based index of the prefix's last `{`
	innerRight := file.Idx(len(wrapPrefix) + len(s.Source) + 2) // the `}` after the suffix's newline
	bad := func() error { return s.unbalanced(toks) }
	if len(prg.Body) != 1 {
		return nil, bad()
	}
	st, ok := prg.Body[0].(*ast.ExpressionStatement)
	if !ok {
		return nil, bad()
	}
	outer, ok := st.Expression.(*ast.FunctionLiteral)
	if !ok || outer.Body == nil || len(outer.Body.List) != 1 {
		return nil, bad()
	}
	ret, ok := outer.Body.List[0].(*ast.ReturnStatement)
	if !ok {
		return nil, bad()
	}
	call, ok := ret.Argument.(*ast.CallExpression)
	if !ok || len(call.ArgumentList) != 0 {
		return nil, bad()
	}
	inner, ok := call.Callee.(*ast.FunctionLiteral)
	if !ok || !inner.Async || inner.Body == nil || inner.Body.LeftBrace != innerLeft || inner.Body.RightBrace != innerRight {
		return nil, bad()
	}
	if outer.Body.RightBrace != innerRight+4 {
		return nil, bad()
	}
	return inner, nil
}

// unbalanced reports a body that closes more blocks than it opens, at the
// first `}` that does so.
func (s *Script) unbalanced(toks []token) error {
	depth := 0
	for _, t := range toks {
		if t.kind == tokPunct && (t.text == "{" || t.text == "(" || t.text == "[") ||
			t.kind == tokTemplate && strings.HasSuffix(t.text, "${") {
			depth++
		}
		if t.kind == tokPunct && (t.text == "}" || t.text == ")" || t.text == "]") ||
			t.kind == tokTemplate && t.text[0] == '}' {
			depth--
			if depth < 0 {
				line, col := s.lines.pos(t.start)
				return wferr.At(wferr.ScriptParse, line, col, "unbalanced braces: the script closes more blocks than it opens")
			}
		}
	}
	line, col := s.lines.pos(len(s.Source))
	return wferr.At(wferr.ScriptParse, line, col, "unbalanced braces: the script closes more blocks than it opens")
}

// balanceHint explains a parse error at off by unbalanced brackets: a closer
// that matches no opener at or before the error, or an opener never closed
// when the error is at the end of the source. It returns the sentence and
// the offset to report, or "".
func balanceHint(off, end int, toks []token) (string, int) {
	var open []token
	for _, t := range toks {
		if t.start > off {
			break
		}
		switch {
		case t.kind == tokPunct && (t.text == "{" || t.text == "(" || t.text == "["),
			t.kind == tokTemplate && strings.HasSuffix(t.text, "${"):
			open = append(open, t)
		case t.kind == tokPunct && (t.text == "}" || t.text == ")" || t.text == "]"),
			t.kind == tokTemplate && t.text[0] == '}':
			if len(open) == 0 {
				return "unbalanced brackets: this `" + t.text[:1] + "` closes a block that was never opened; remove it", t.start
			}
			open = open[:len(open)-1]
		}
	}
	if off >= end && len(open) > 0 {
		t := open[len(open)-1]
		closer := map[string]string{"{": "}", "(": ")", "[": "]"}[t.text]
		if closer == "" {
			closer = "}"
		}
		return "unbalanced brackets: this `" + t.text + "` is never closed; add the missing `" + closer + "`", t.start
	}
	return "", 0
}

// checkNesting bounds bracket depth and chains that nest goja's recursive
// parser without brackets: `!!!!x`, `a = b = c`, `x => y => z`,
// `a ? b : c ? d : e`, `a + b + c`, `a.b.c`, `f()()()`. A chain is a run of such
// operators separated by at most one other token each.
func (s *Script) checkNesting(toks []token) error {
	depth, chain, gap := 0, 0, 0
	for i, t := range toks {
		opens := t.kind == tokPunct && (t.text == "{" || t.text == "(" || t.text == "[") ||
			t.kind == tokTemplate && strings.HasSuffix(t.text, "${")
		closes := t.kind == tokPunct && (t.text == "}" || t.text == ")" || t.text == "]") ||
			t.kind == tokTemplate && t.text[0] == '}'
		if closes {
			depth--
		}
		if opens {
			depth++
		}
		// a()()() and a[0][0] nest like operators.
		callChain := i > 0 && t.kind == tokPunct && (t.text == "(" || t.text == "[") &&
			toks[i-1].kind == tokPunct && (toks[i-1].text == ")" || toks[i-1].text == "]")
		switch {
		case chains(t) || callChain:
			chain++
			gap = 0
		case t.kind == tokPunct && (t.text == ")" || t.text == "]"):
			// neutral: a[0][0] and f(x)(y) stay one chain
		case gap+1 >= 2:
			gap++
			chain = 0
		default:
			gap++
		}
		if depth > maxNesting || chain > maxNesting {
			line, col := s.lines.pos(t.start)
			return wferr.At(wferr.ScriptParse, line, col,
				"the script nests brackets or operators more than %d levels deep: flatten the data (pass it in args) or split the expression", maxNesting)
		}
	}
	return nil
}

// chains reports the tokens that can nest the parser without a bracket.
func chains(t token) bool {
	switch t.kind {
	case tokPunct:
		switch t.text {
		case "(", ")", "[", "]", "{", "}", ",", ";":
			return false
		}
		return true // every operator
	case tokWord:
		switch t.text {
		case "typeof", "void", "delete", "await", "new", "yield", "else", "if", "async", "in", "instanceof", "of":
			return true
		}
	}
	return false
}

// parseError turns a goja parse error into SCRIPT_PARSE at the user's
// position, with a sentence that says what to write instead.
func (s *Script) parseError(err error, toks []token) error {
	var list parser.ErrorList
	var one *parser.Error
	msg, line, col := err.Error(), 0, 0
	switch {
	case errors.As(err, &list) && len(list) > 0:
		one = list[0]
	case errors.As(err, &one):
	}
	if one != nil {
		msg = one.Message
		off := s.wrappedOffset(one.Position.Line, one.Position.Column) - s.prefixLen
		if off > len(s.Source) {
			// The error is in the wrapper's suffix: the body left a block,
			// string or comment open.
			off = len(s.Source)
		}
		if off < 0 {
			off = 0
		}
		line, col = s.lines.pos(off)
		if hint, hl, hc := s.explain(msg, off, toks); hint != "" {
			if hl > 0 {
				line, col = hl, hc
			}
			msg = hint
		} else if hint, hoff := balanceHint(off, len(s.Source), toks); hint != "" {
			line, col = s.lines.pos(hoff)
			msg = hint
		} else {
			msg = "syntax error: " + msg
		}
	}
	e := wferr.At(wferr.ScriptParse, line, col, "%s", msg)
	e.Cause = err
	return e
}

// compileError maps an error from goja's compiler (a duplicate declaration,
// an invalid regular expression) to SCRIPT_PARSE.
func (s *Script) compileError(err error) error {
	var se *goja.CompilerSyntaxError
	off, msg := -1, err.Error()
	if errors.As(err, &se) {
		off, msg = se.Offset, se.Message
	}
	e := wferr.New(wferr.ScriptParse, "syntax error: %s", msg)
	e.Cause = err
	if off >= 0 {
		off -= s.prefixLen
		e.Line, e.Column = s.lines.pos(off)
		if hint, hl, hc := s.explain(msg, off, tokenize(blankPrelude(s.Source))); hint != "" {
			e.Message = hint
			if hl > 0 {
				e.Line, e.Column = hl, hc
			}
		}
	}
	return e
}

// wrappedOffset converts a goja (line, column) in the wrapped source to a
// byte offset. Lines after the first are the user's lines.
func (s *Script) wrappedOffset(line, col int) int {
	if line <= 1 {
		return col - 1
	}
	if line-1 < len(s.lines) {
		return s.prefixLen + s.lines[line-1] + col - 1
	}
	return s.prefixLen + len(s.Source) + 1 // in the suffix
}

// lineTable holds the byte offset where each line starts.
type lineTable []int

func newLineTable(src string) lineTable {
	t := lineTable{0}
	for i := 0; i < len(src); i++ {
		if src[i] == '\n' {
			t = append(t, i+1)
		}
	}
	return t
}

// pos returns the 1-based line and byte column of off, clamped to the text.
func (t lineTable) pos(off int) (line, col int) {
	if off < 0 {
		off = 0
	}
	lo, hi := 0, len(t)
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if t[mid] <= off {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo + 1, off - t[lo] + 1
}

func (t lineTable) String() string { return fmt.Sprintf("%d lines", len(t)) }
