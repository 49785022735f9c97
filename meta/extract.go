package meta

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"sort"
	"strconv"
	"strings"

	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/file"
	"github.com/dop251/goja/token"

	"github.com/wfrun/wfrun/internal/wferr"
)

// FromLiteral converts the initializer of `export const meta = …` to JSON,
// keeping key order, without evaluating anything.
//
// Allowed are object literals with plain name, string or number keys, array
// literals, string and number literals (a leading minus on a number too),
// true, false, null, and templates without ${} substitutions. Anything else
// — a variable (undefined included), a call, a property read, a spread, a
// getter, setter or method, a computed or shorthand key, a function, an
// operator — is a violation, and so is a key written twice. FromLiteral
// reports every violation in one *wferr.Error with code META_INVALID whose
// Line and Column are those of the first, in the user's file as src maps
// them; the messages quote the source they point at.
//
// The result is only well-formed JSON; whether it is valid meta is Parse's
// to decide.
func FromLiteral(expr ast.Expression, src Source) (json.RawMessage, error) {
	x := extractor{src: src}
	x.value(expr, "meta")
	if len(x.violations) > 0 {
		return nil, x.err()
	}
	out := x.buf.Bytes()
	if !json.Valid(out) {
		return nil, wferr.New(wferr.Internal, "meta extraction produced invalid JSON %q; this is a bug in wfrun", out)
	}
	return json.RawMessage(out), nil
}

// Extract is FromLiteral for the meta literal itself. When the literal is
// not pure data, the error also names what validating the rest as meta
// (Parse) finds, leaving out what the violations already cover, so that
// one answer lists every mistake rather than the first kind of them.
func Extract(expr ast.Expression, src Source) (json.RawMessage, error) {
	x := extractor{src: src, failed: map[string]bool{}}
	x.value(expr, "meta")
	if len(x.violations) == 0 {
		return FromLiteral(expr, src)
	}
	e := x.err()
	root, err := decodeJSON(x.buf.Bytes())
	if err != nil {
		return nil, e
	}
	var c checker
	c.workflow(root)
	var more []string
	for _, p := range c.problems {
		if !x.covers(p) {
			more = append(more, p)
		}
	}
	if len(more) > 0 {
		e.Message += "; and as data: " + strings.Join(more, "; ")
	}
	return nil, e
}

// covers reports whether a validation problem is about a value a violation
// already named: its path is one that failed, or lies inside one.
func (x *extractor) covers(problem string) bool {
	for path := range x.failed {
		if problem == path || strings.HasPrefix(problem, path+" ") || strings.HasPrefix(problem, path+".") || strings.HasPrefix(problem, path+"[") {
			return true
		}
	}
	return false
}

// violation is one place where the literal is not pure data.
type violation struct {
	idx file.Idx
	msg string
}

// extractor walks the literal once, writing JSON to buf and collecting
// violations; once there is a violation buf is only written, never used.
type extractor struct {
	src        Source
	buf        bytes.Buffer
	violations []violation
	// failed, when not nil, records the paths whose value was a violation;
	// buf then holds null in their place, so that the rest can still be
	// validated (Extract).
	failed map[string]bool
}

func (x *extractor) fail(idx file.Idx, format string, args ...any) {
	x.violations = append(x.violations, violation{idx: idx, msg: fmt.Sprintf(format, args...)})
}

// err renders every violation, first in the source first, into one error.
func (x *extractor) err() *wferr.Error {
	vs := x.violations
	sort.SliceStable(vs, func(i, j int) bool { return vs[i].idx < vs[j].idx })
	items := make([]string, len(vs))
	var line, col int
	for i, v := range vs {
		items[i] = v.msg
		if x.src == nil || v.idx == 0 { // 0: no node to point at
			continue
		}
		l, c := x.src.Position(v.idx)
		if i == 0 {
			line, col = l, c
		}
		items[i] = fmt.Sprintf("line %d, column %d: %s", l, c, v.msg)
	}
	head := "meta must be a pure literal, since it is read without running the script"
	var msg string
	if len(items) == 1 {
		msg = head + ": " + items[0]
	} else {
		msg = fmt.Sprintf("%s; %d problems: %s", head, len(items), strings.Join(items, "; "))
	}
	return &wferr.Error{Code: wferr.MetaInvalid, Message: msg, Line: line, Column: col}
}

// value writes the JSON of e, whose place in meta is path (e.g.
// "meta.phases[0].title").
func (x *extractor) value(e ast.Expression, path string) {
	before, start := len(x.violations), x.buf.Len()
	defer func() {
		if len(x.violations) > before && x.buf.Len() == start {
			x.buf.WriteString("null")
			if x.failed != nil {
				x.failed[path] = true
			}
		}
	}()
	switch n := e.(type) {
	case nil:
		x.fail(0, "%s has no value; write a literal such as { name: 'my-workflow', description: 'what it does' }", path)
	case *ast.ObjectLiteral:
		x.object(n, path)
	case *ast.ArrayLiteral:
		x.array(n, path)
	case *ast.StringLiteral:
		x.buf.Write(quote(n.Value.String()))
	case *ast.TemplateLiteral:
		x.template(n, path)
	case *ast.NumberLiteral:
		x.number(n, n.Literal, false, path)
	case *ast.UnaryExpression:
		if num, ok := n.Operand.(*ast.NumberLiteral); ok && n.Operator == token.MINUS && !n.Postfix {
			x.number(num, "-"+num.Literal, true, path)
			return
		}
		x.notLiteral(n, path)
	case *ast.BooleanLiteral:
		x.buf.WriteString(strconv.FormatBool(n.Value))
	case *ast.NullLiteral:
		x.buf.WriteString("null")
	default:
		x.notLiteral(e, path)
	}
}

func (x *extractor) object(n *ast.ObjectLiteral, path string) {
	x.buf.WriteByte('{')
	seen := make(map[string]bool, len(n.Value))
	first := true
	for _, p := range n.Value {
		kv, key, ok := x.property(p, path)
		if !ok {
			if key != "" && x.failed != nil {
				x.failed[childPath(path, key)] = true
			}
			continue
		}
		if seen[key] {
			x.fail(kv.Idx0(), "%s has the key %s twice; keep one (in JavaScript the later one would silently win)", path, strconv.Quote(key))
			continue
		}
		seen[key] = true
		if !first {
			x.buf.WriteByte(',')
		}
		first = false
		x.buf.Write(quote(key))
		x.buf.WriteByte(':')
		x.value(kv.Value, childPath(path, key))
	}
	x.buf.WriteByte('}')
}

// property returns p and its key when p is a plain `key: value` entry, and
// records a violation otherwise (returning the key too when it is known).
func (x *extractor) property(p ast.Property, path string) (*ast.PropertyKeyed, string, bool) {
	switch p := p.(type) {
	case *ast.PropertyKeyed:
		if p.Computed {
			x.fail(p.Idx0(), "%s has a computed key `[%s]`; write the key as a plain name or a quoted string, e.g. name: …", path, x.excerpt(p.Key))
			return nil, "", false
		}
		key, ok := keyString(p.Key)
		if !ok {
			x.fail(p.Idx0(), "%s has a key `%s` that is not a plain name, string or number; write a plain name or a quoted string", path, x.excerpt(p.Key))
			return nil, "", false
		}
		switch p.Kind {
		case ast.PropertyKindGet:
			x.fail(methodIdx(p), "%s has a getter `get %s()`, which would run code when read; write %s: 'the value' instead", path, key, displayKey(key))
			return nil, key, false
		case ast.PropertyKindSet:
			x.fail(methodIdx(p), "%s has a setter `set %s()`, which would run code; write %s: 'the value' instead", path, key, displayKey(key))
			return nil, key, false
		case ast.PropertyKindMethod:
			x.fail(methodIdx(p), "%s has a method `%s()`; meta holds only data, so write %s: 'the value' instead", path, key, displayKey(key))
			return nil, key, false
		}
		if key == "__proto__" {
			x.fail(p.Idx0(), "%s has the key `__proto__`, which sets the object's prototype instead of adding a field; remove it", path)
			return nil, key, false
		}
		return p, key, true
	case *ast.PropertyShort:
		name := p.Name.Name.String()
		x.fail(p.Idx0(), "%s has the shorthand property `%s`, which reads the variable %s; write %s: 'the value' instead", path, name, name, name)
	case *ast.SpreadElement:
		x.fail(spreadIdx(p), "%s has a spread `...%s`, which copies fields while the script runs; write each field out instead", path, x.excerpt(p.Expression))
	default:
		x.fail(p.Idx0(), "%s has an entry that is not `key: value`; write each field as key: value", path)
	}
	return nil, "", false
}

func (x *extractor) array(n *ast.ArrayLiteral, path string) {
	x.buf.WriteByte('[')
	for i, el := range n.Value {
		if i > 0 {
			x.buf.WriteByte(',')
		}
		at := childIndex(path, i)
		switch el := el.(type) {
		case nil:
			idx := n.LeftBracket + 1
			if i > 0 && n.Value[i-1] != nil {
				idx = n.Value[i-1].Idx1()
			}
			x.fail(idx, "%s is an empty slot (two commas in a row); write null there or remove the extra comma", at)
			x.buf.WriteString("null")
		case *ast.SpreadElement:
			x.fail(spreadIdx(el), "%s is a spread `...%s`, which copies items while the script runs; write each item out instead", at, x.excerpt(el.Expression))
			x.buf.WriteString("null")
		default:
			x.value(el, at)
		}
	}
	x.buf.WriteByte(']')
}

func (x *extractor) template(n *ast.TemplateLiteral, path string) {
	if n.Tag != nil {
		x.fail(n.Tag.Idx0(), "%s is a tagged template `%s`…``, which calls a function; write the final text in quotes, e.g. 'the text'", path, x.excerpt(n.Tag))
		return
	}
	if len(n.Expressions) > 0 {
		x.fail(n.Idx0(), "%s is a template with `${%s}`, which is filled in while the script runs; write the final text in plain quotes, e.g. 'the text'", path, x.excerpt(n.Expressions[0]))
		return
	}
	var s strings.Builder
	for _, el := range n.Elements {
		if !el.Valid {
			x.fail(el.Idx0(), "%s is a template with an invalid escape sequence; write the text in plain quotes", path)
			return
		}
		s.WriteString(el.Parsed.String())
	}
	x.buf.Write(quote(s.String()))
}

// number writes a number literal the way JSON.stringify would.
func (x *extractor) number(n *ast.NumberLiteral, literal string, negate bool, path string) {
	var f float64
	switch v := n.Value.(type) {
	case int64:
		f = float64(v)
	case float64:
		f = v
	case *big.Int:
		x.fail(n.Idx0(), "%s is the BigInt `%s`, which JSON cannot hold; write a plain number, or the digits in quotes", path, literal)
		return
	default:
		x.fail(n.Idx0(), "%s is the number `%s`, which cannot be read; write a plain decimal number", path, literal)
		return
	}
	if math.IsInf(f, 0) || math.IsNaN(f) {
		x.fail(n.Idx0(), "%s is the number `%s`, which is too large for JSON; write a smaller number, or the digits in quotes", path, literal)
		return
	}
	if negate {
		f = -f
	}
	x.buf.WriteString(jsNumber(f))
}

// notLiteral records a violation for an expression that is not a literal,
// naming what it is and what to write instead.
func (x *extractor) notLiteral(e ast.Expression, path string) {
	what, fix := x.describe(e)
	x.fail(e.Idx0(), "%s is %s; %s", path, what, fix)
}

// describe names the kind of a non-literal expression and the fix for it.
func (x *extractor) describe(e ast.Expression) (what, fix string) {
	const asLiteral = "write the value itself as a literal (a string, number, boolean, null, array or object)"
	switch n := e.(type) {
	case *ast.Identifier:
		switch name := n.Name.String(); name {
		case "undefined":
			return "`undefined`", "leave the field out instead"
		case "NaN", "Infinity":
			return "`" + name + "`, which JSON cannot hold", "write a number or null"
		default:
			return "a reference to the variable `" + name + "`", "variables have no value yet when meta is read, so " + asLiteral
		}
	case *ast.CallExpression:
		return "a function call `" + x.excerpt(n) + "`", "write the value it would return as a literal, e.g. 'the final text'"
	case *ast.NewExpression:
		return "a `new` expression `" + x.excerpt(n) + "`", asLiteral
	case *ast.DotExpression, *ast.BracketExpression, *ast.PrivateDotExpression:
		return "a property read `" + x.excerpt(e) + "`", asLiteral
	case *ast.OptionalChain:
		return x.describe(n.Expression)
	case *ast.Optional:
		return x.describe(n.Expression)
	case *ast.FunctionLiteral, *ast.ArrowFunctionLiteral, *ast.ClassLiteral:
		return "a function `" + x.excerpt(e) + "`, which meta cannot hold", "meta holds only data: remove it, or write the value it would produce as a literal"
	case *ast.RegExpLiteral:
		return "a regular expression `" + x.excerpt(n) + "`", "write the pattern as a string, e.g. " + string(quote(n.Pattern))
	case *ast.BinaryExpression:
		return "an expression with the operator `" + n.Operator.String() + "`", "write its result as one literal, e.g. one string in quotes instead of joined pieces"
	case *ast.ConditionalExpression:
		return "a conditional `" + x.excerpt(n) + "`", "write the chosen value as a literal"
	case *ast.UnaryExpression:
		if n.Operator == token.MINUS {
			return "`" + x.excerpt(n) + "`", "a minus is allowed only directly before a number, e.g. -1"
		}
		return "an expression with the operator `" + n.Operator.String() + "`", "write its result as a literal"
	case *ast.AssignExpression:
		return "an assignment `" + x.excerpt(n) + "`", asLiteral
	case *ast.SequenceExpression:
		return "a comma expression", "write a single literal value"
	case *ast.AwaitExpression:
		return "an `await` expression", "nothing can be awaited before the script runs, so " + asLiteral
	case *ast.YieldExpression:
		return "a `yield` expression", asLiteral
	case *ast.ThisExpression:
		return "`this`", asLiteral
	case *ast.SuperExpression:
		return "`super`", asLiteral
	case *ast.MetaProperty:
		return "`" + x.excerpt(n) + "`", asLiteral
	case *ast.TemplateLiteral:
		return "a template with substitutions", "write the final text in plain quotes"
	default:
		return "not a literal", asLiteral
	}
}

// keyString returns the property name a plain key denotes, as JavaScript
// would: `name`, 'name' and "name" are "name"; 1, 1.0 and 0x1 are "1".
func keyString(k ast.Expression) (string, bool) {
	switch k := k.(type) {
	case *ast.StringLiteral:
		return k.Value.String(), true
	case *ast.NumberLiteral:
		switch v := k.Value.(type) {
		case int64:
			return jsNumber(float64(v)), true
		case float64:
			if math.IsInf(v, 0) {
				return "Infinity", true
			}
			return jsNumber(v), true
		case *big.Int:
			return v.String(), true
		}
	}
	return "", false
}

// jsNumber formats f as JavaScript's Number::toString does (and
// JSON.stringify, which prints -0 as 0); encoding/json uses the same rules.
func jsNumber(f float64) string {
	if f == 0 {
		return "0"
	}
	format := byte('f')
	if abs := math.Abs(f); abs < 1e-6 || abs >= 1e21 {
		format = 'e'
	}
	b := strconv.AppendFloat(nil, f, format, -1, 64)
	if format == 'e' {
		// 1e-07 → 1e-7, as JavaScript writes it.
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return string(b)
}

// quote returns the JSON form of s without escaping <, > and &.
func quote(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // encoding a string cannot fail
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// methodIdx is where a getter, setter or method starts: goja's function
// literal for it begins at `get`, `set`, `async` or `*`, before the key.
func methodIdx(p *ast.PropertyKeyed) file.Idx {
	if f, ok := p.Value.(*ast.FunctionLiteral); ok && f.Function > 0 && f.Function < p.Key.Idx0() {
		return f.Function
	}
	return p.Idx0()
}

// spreadIdx is the position of the three dots, which goja does not record:
// the spread expression starts right after them in the usual `...x`.
func spreadIdx(s *ast.SpreadElement) file.Idx {
	if s.Expression == nil {
		return 0
	}
	if idx := s.Expression.Idx0(); idx > 3 {
		return idx - 3
	}
	return s.Expression.Idx0()
}

func childPath(path, key string) string {
	if isIdentifierName(key) {
		return path + "." + key
	}
	return path + "[" + strconv.Quote(key) + "]"
}

func childIndex(path string, i int) string {
	return path + "[" + strconv.Itoa(i) + "]"
}

// displayKey writes key as it would appear before a colon in a literal.
func displayKey(key string) string {
	if isIdentifierName(key) {
		return key
	}
	return string(quote(key))
}

func isIdentifierName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_' || r == '$' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z':
		case i > 0 && r >= '0' && r <= '9':
		default:
			return false
		}
	}
	return true
}

// maxExcerpt bounds an excerpt in a message; longer ones end in "…".
const maxExcerpt = 60

// excerpt quotes the source of n for an error message: the user's text,
// with runs of white space (line breaks included) as one space, cut to
// maxExcerpt characters.
func (x *extractor) excerpt(n ast.Node) string {
	if x.src == nil || n == nil {
		return "…"
	}
	s := strings.Join(strings.Fields(x.src.Text(n.Idx0(), n.Idx1())), " ")
	if r := []rune(s); len(r) > maxExcerpt {
		s = string(r[:maxExcerpt-1]) + "…"
	}
	return s
}
