package sandbox

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/file"
	gojatoken "github.com/dop251/goja/token"

	"github.com/wfrun/wfrun/internal/wferr"
)

// goja passes `\p{L}` to its matcher as the letter `p` followed by `{L}`,
// so /[^\p{L}\p{N}]+/gu silently matches the wrong characters. Under the u
// flag we rewrite every property escape into an explicit character class
// built from Go's Unicode tables before compiling; properties we cannot build
// are refused with a sentence. Without the u flag `\p` means the letter p in
// JavaScript too, so those patterns are left alone.

// rewriteRegexps rewrites the property escapes of every u-flag regexp
// literal in prg, in place, and refuses regexp literals goja mis-lexes. On
// the way it notes what Load needs to know: whether the script declares a
// generator, which of the gated globals it names (see gatedNames) and
// whether it can make a regexp (see regexp.go).
func (s *Script) rewriteRegexps(prg *ast.Program) error {
	var err error
	w := walker{refs: make(map[string]bool), bound: make(map[string]bool), call: func(c *ast.CallExpression) {
		if id, ok := c.Callee.(*ast.Identifier); ok && slices.Contains(s.watch, id.Name.String()) {
			if s.calls == nil {
				s.calls = make(map[string][]*ast.CallExpression)
			}
			s.calls[id.Name.String()] = append(s.calls[id.Name.String()], c)
		}
	}, regexp: func(re *ast.RegExpLiteral) bool {
		if lit := "/" + re.Pattern + "/" + re.Flags; !strings.HasPrefix(re.Literal, lit) || strings.ContainsAny(lit, "\n\r\u2028\u2029") {
			// goja's lexer lets an unterminated class run past the line end
			// and yields an empty pattern instead of an error. (Literal
			// itself may run on past the flags over spaces, comments and
			// line ends: only the pattern and flags are checked.)
			line, col := s.posOfIdx(re.Idx)
			err = wferr.At(wferr.ScriptParse, line, col, "unterminated regular expression: close it with `/` on the same line (escape a `/` inside [...] as `\\/`)")
			return false
		}
		if !strings.ContainsRune(re.Flags, 'u') || !hasPropertyEscape(re.Pattern) {
			return true
		}
		p, msg := rewritePropertyEscapes(re.Pattern)
		if msg != "" {
			line, col := s.posOfIdx(re.Idx)
			err = wferr.At(wferr.ScriptParse, line, col, "%s", msg)
			return false
		}
		re.Pattern = p
		return true
	}}
	w.walk(reflect.ValueOf(prg))
	s.generators = w.generators
	s.refs = w.refs
	s.bound = w.bound
	s.regexps = w.regexps || w.refs["RegExp"] || w.refs["match"] || w.refs["matchAll"] || w.refs["search"]
	s.stringReach = w.computed || w.refs["globalThis"] || w.refs["this"]
	for _, n := range stringReachNames {
		s.stringReach = s.stringReach || w.refs[n]
	}
	s.arrayReach = w.lengthWrite || w.refs["globalThis"] || w.refs["this"]
	for _, n := range arrayReachNames {
		s.arrayReach = s.arrayReach || w.refs[n]
	}
	s.bindReach = w.computed || w.refs["globalThis"] || w.refs["this"] || w.refs["bind"]
	for _, n := range reflectionNames {
		s.bindReach = s.bindReach || w.refs[n]
	}
	all := w.refs["globalThis"] || w.refs["this"]
	s.conversionReach = w.elsewhere
	s.installerReach = w.computed || all
	for _, n := range installerNames {
		s.installerReach = s.installerReach || w.refs[n]
	}
	s.dataReach = w.dataWrite || s.installerReach
	s.reflectReach = all || w.refs["Reflect"]
	s.applyReach = s.reflectReach || w.computed || w.refs["apply"]
	return err
}

// arrayReachNames are the names through which a script can give an
// Array.prototype method a huge length without the Array constructor, which
// is guarded itself (memory.go): calling a method on an array-like
// ({length: 2**32} from a literal or from data), or setting a length by
// property. A script with any of them, or that assigns to a .length or to a
// computed member (a[k] = v), gets the guards of every length-bound method.
var arrayReachNames = []string{"call", "apply", "bind", "Reflect", "defineProperty", "defineProperties",
	"constructor", "assign", "create", "setPrototypeOf", "__proto__"}

// stringReachNames are the names through which a script can reach the
// size-checked String.prototype methods (memory.go): their own names, and
// the reflection that hands out a method without naming it. A script with
// any of them, or with a computed member access or key (s[k]), gets the
// guards; one without can only call the string methods it names.
var stringReachNames = append([]string{"repeat", "padStart", "padEnd"}, reflectionNames...)

// reflectionNames are the names of the reflection that hands out a method
// without the script naming the method: with none of them, and no computed
// member access or key, a script reaches Function.prototype.bind (guarded
// in nesting.go) only by writing bind.
var reflectionNames = []string{"Reflect", "getOwnPropertyDescriptor", "getOwnPropertyDescriptors", "getOwnPropertyNames", "ownKeys"}

var (
	regexpType     = reflect.TypeOf((*ast.RegExpLiteral)(nil))
	functionType   = reflect.TypeOf((*ast.FunctionLiteral)(nil))
	thisType       = reflect.TypeOf((*ast.ThisExpression)(nil))
	identifierType = reflect.TypeOf(ast.Identifier{})
	callType       = reflect.TypeOf((*ast.CallExpression)(nil))
	bindingType    = reflect.TypeOf((*ast.Binding)(nil))
	bracketType    = reflect.TypeOf((*ast.BracketExpression)(nil))
	assignType     = reflect.TypeOf((*ast.AssignExpression)(nil))
	unaryType      = reflect.TypeOf((*ast.UnaryExpression)(nil))
	forIntoType    = reflect.TypeOf((*ast.ForIntoExpression)(nil))
	keyedType      = reflect.TypeOf((*ast.PropertyKeyed)(nil))
	fieldType      = reflect.TypeOf((*ast.FieldDefinition)(nil))
	fileType       = reflect.TypeOf((*file.File)(nil))
)

// walker visits a goja syntax tree. goja's ast has no visitor, so it walks
// the exported fields by reflection.
type walker struct {
	regexp     func(*ast.RegExpLiteral) bool // called for every regexp literal; false stops the walk
	generators bool                          // a generator function was seen
	regexps    bool                          // a regexp literal was seen
	refs       map[string]bool               // every name seen as an identifier, or as a literal member or key (o['name'], {'name': v}); "this" for a this expression

	call        func(*ast.CallExpression) // called for every call expression, if set
	bound       map[string]bool           // every name the script binds itself (a declaration, a parameter, a function's name)
	computed    bool                      // a member access or key is computed from a non-literal: o[k], {[k]: v}
	lengthWrite bool                      // an assignment or update may set a length: a.length = n, a[k] = v, a[k]++
	dataWrite   bool                      // an assignment or class field may write data a builtin converts (conversion.go)
	elsewhere   bool                      // a pattern or compound assignment may install a conversion method (conversion.go)
}

func (w *walker) walk(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() || v.Type() == fileType {
			return true
		}
		switch v.Type() {
		case regexpType:
			w.regexps = true
			return w.regexp(v.Interface().(*ast.RegExpLiteral))
		case functionType:
			fn := v.Interface().(*ast.FunctionLiteral)
			if fn.Generator {
				w.generators = true
			}
			if fn.Name != nil {
				w.bound[fn.Name.Name.String()] = true
			}
		case bindingType:
			if id, ok := v.Interface().(*ast.Binding).Target.(*ast.Identifier); ok {
				w.bound[id.Name.String()] = true
			}
		case callType:
			if w.call != nil {
				w.call(v.Interface().(*ast.CallExpression))
			}
		case thisType:
			w.refs["this"] = true
		case bracketType:
			switch m := v.Interface().(*ast.BracketExpression).Member.(type) {
			case *ast.StringLiteral:
				w.refs[m.Value.String()] = true // s['repeat'] names repeat as s.repeat does
			case *ast.NumberLiteral:
			default:
				w.computed = true
			}
		case keyedType:
			p := v.Interface().(*ast.PropertyKeyed)
			if p.Computed {
				w.computed = true
			}
			if k, ok := p.Key.(*ast.StringLiteral); ok {
				w.refs[k.Value.String()] = true // {'repeat': r} = s names repeat too, and {'__proto__': p} sets a prototype
			}

		case assignType:
			w.lengthWrite = w.lengthWrite || mayWriteLength(v.Interface().(*ast.AssignExpression).Left)
			a := v.Interface().(*ast.AssignExpression)
			w.dataWrite = w.dataWrite || writesData(a.Left)
			w.elsewhere = w.elsewhere || writesMethodElsewhere(a.Operator, a.Left)
		case fieldType:
			f := v.Interface().(*ast.FieldDefinition)
			w.dataWrite = w.dataWrite || f.Computed || conversionData[keyName(f.Key)]
		case unaryType:
			if u := v.Interface().(*ast.UnaryExpression); u.Operator == gojatoken.INCREMENT || u.Operator == gojatoken.DECREMENT {
				w.lengthWrite = w.lengthWrite || mayWriteLength(u.Operand)
			}
		case forIntoType:
			w.lengthWrite = w.lengthWrite || mayWriteLength(v.Interface().(*ast.ForIntoExpression).Expression)
			w.elsewhere = w.elsewhere || writesMethodElsewhere(gojatoken.ILLEGAL, v.Interface().(*ast.ForIntoExpression).Expression)
		}
		return w.walk(v.Elem())
	case reflect.Interface:
		if v.IsNil() {
			return true
		}
		return w.walk(v.Elem())
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			if !w.walk(v.Index(i)) {
				return false
			}
		}
	case reflect.Struct:
		if v.Type() == identifierType {
			w.refs[v.Field(0).String()] = true // every name: see Script.Mentions
			return true
		}
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() && !w.walk(v.Field(i)) {
				return false
			}
		}
	}
	return true
}

func hasPropertyEscape(p string) bool {
	return strings.Contains(p, `\p`) || strings.Contains(p, `\P`)
}

// rewritePropertyEscapes replaces each \p{…} and \P{…} in a u-mode pattern
// by an explicit class (or class content, inside [...]). On failure it
// returns a sentence for the user instead.
func rewritePropertyEscapes(p string) (string, string) {
	var b strings.Builder
	inClass := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p) && (p[i+1] == 'p' || p[i+1] == 'P'):
			neg := p[i+1] == 'P'
			if i+2 >= len(p) || p[i+2] != '{' {
				return "", "invalid regular expression: `\\" + string(p[i+1]) + "` must be followed by `{Property}` under the u flag"
			}
			end := strings.IndexByte(p[i+2:], '}')
			if end < 0 {
				return "", "invalid regular expression: unterminated `\\" + string(p[i+1]) + "{`"
			}
			name := p[i+3 : i+2+end]
			rs, msg := propertyRanges(name)
			if msg != "" {
				return "", msg
			}
			switch {
			case inClass && neg:
				writeRanges(&b, complement(rs))
			case inClass:
				writeRanges(&b, rs)
			case neg:
				b.WriteString("[^")
				writeRanges(&b, rs)
				b.WriteByte(']')
			default:
				b.WriteByte('[')
				writeRanges(&b, rs)
				b.WriteByte(']')
			}
			i += 2 + end
		case c == '\\' && i+1 < len(p):
			b.WriteString(p[i : i+2])
			i++
		case c == '[' && !inClass:
			inClass = true
			b.WriteByte(c)
		case c == ']' && inClass:
			inClass = false
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), ""
}

// rng is an inclusive range of code points.
type rng struct{ lo, hi rune }

func writeRanges(b *strings.Builder, rs []rng) {
	for _, r := range rs {
		writeCodePoint(b, r.lo)
		if r.hi > r.lo {
			if r.hi > r.lo+1 {
				b.WriteByte('-')
			}
			writeCodePoint(b, r.hi)
		}
	}
}

func writeCodePoint(b *strings.Builder, r rune) {
	b.WriteString(`\u{`)
	b.WriteString(strconv.FormatInt(int64(r), 16))
	b.WriteByte('}')
}

// tableRanges flattens range tables into sorted, merged ranges without the
// surrogate block (a u-mode string position is never a lone half).
func tableRanges(tabs ...*unicode.RangeTable) []rng {
	var rs []rng
	for _, t := range tabs {
		for _, r := range t.R16 {
			rs = appendStrided(rs, rune(r.Lo), rune(r.Hi), rune(r.Stride))
		}
		for _, r := range t.R32 {
			rs = appendStrided(rs, rune(r.Lo), rune(r.Hi), rune(r.Stride))
		}
	}
	return normalize(rs)
}

func appendStrided(rs []rng, lo, hi, stride rune) []rng {
	if stride == 1 {
		return append(rs, rng{lo, hi})
	}
	for c := lo; c <= hi; c += stride {
		rs = append(rs, rng{c, c})
	}
	return rs
}

func normalize(rs []rng) []rng {
	sort.Slice(rs, func(i, j int) bool { return rs[i].lo < rs[j].lo })
	var out []rng
	for _, r := range rs {
		if n := len(out); n > 0 && r.lo <= out[n-1].hi+1 {
			if r.hi > out[n-1].hi {
				out[n-1].hi = r.hi
			}
			continue
		}
		out = append(out, r)
	}
	return removeSurrogates(out)
}

func removeSurrogates(rs []rng) []rng {
	var out []rng
	for _, r := range rs {
		if r.hi < 0xD800 || r.lo > 0xDFFF {
			out = append(out, r)
			continue
		}
		if r.lo < 0xD800 {
			out = append(out, rng{r.lo, 0xD7FF})
		}
		if r.hi > 0xDFFF {
			out = append(out, rng{0xE000, r.hi})
		}
	}
	return out
}

// complement returns every code point (except surrogates) not in rs.
func complement(rs []rng) []rng {
	var out []rng
	next := rune(0)
	for _, r := range rs {
		if r.lo > next {
			out = append(out, rng{next, r.lo - 1})
		}
		next = r.hi + 1
	}
	if next <= unicode.MaxRune {
		out = append(out, rng{next, unicode.MaxRune})
	}
	return removeSurrogates(out)
}

// generalCategories maps ECMAScript's General_Category names and aliases to
// Go's table names.
var generalCategories = map[string]string{
	"Letter": "L", "Cased_Letter": "LC", "Uppercase_Letter": "Lu", "Lowercase_Letter": "Ll",
	"Titlecase_Letter": "Lt", "Modifier_Letter": "Lm", "Other_Letter": "Lo",
	"Mark": "M", "Combining_Mark": "M", "Nonspacing_Mark": "Mn", "Spacing_Mark": "Mc", "Enclosing_Mark": "Me",
	"Number": "N", "Decimal_Number": "Nd", "digit": "Nd", "Letter_Number": "Nl", "Other_Number": "No",
	"Punctuation": "P", "punct": "P", "Connector_Punctuation": "Pc", "Dash_Punctuation": "Pd",
	"Open_Punctuation": "Ps", "Close_Punctuation": "Pe", "Initial_Punctuation": "Pi",
	"Final_Punctuation": "Pf", "Other_Punctuation": "Po",
	"Symbol": "S", "Math_Symbol": "Sm", "Currency_Symbol": "Sc", "Modifier_Symbol": "Sk", "Other_Symbol": "So",
	"Separator": "Z", "Space_Separator": "Zs", "Line_Separator": "Zl", "Paragraph_Separator": "Zp",
	"Other": "C", "Control": "Cc", "cntrl": "Cc", "Format": "Cf", "Private_Use": "Co", "Unassigned": "Cn",
}

// binaryAliases maps ECMAScript's short names of binary properties to the
// long names Go's unicode.Properties uses.
var binaryAliases = map[string]string{
	"AHex": "ASCII_Hex_Digit", "Bidi_C": "Bidi_Control", "Dep": "Deprecated", "Dia": "Diacritic",
	"Ext": "Extender", "Hex": "Hex_Digit", "IDSB": "IDS_Binary_Operator", "IDST": "IDS_Trinary_Operator",
	"Ideo": "Ideographic", "Join_C": "Join_Control", "LOE": "Logical_Order_Exception",
	"NChar": "Noncharacter_Code_Point", "Pat_Syn": "Pattern_Syntax", "Pat_WS": "Pattern_White_Space",
	"QMark": "Quotation_Mark", "RI": "Regional_Indicator", "STerm": "Sentence_Terminal", "SD": "Soft_Dotted",
	"Term": "Terminal_Punctuation", "UIdeo": "Unified_Ideograph", "VS": "Variation_Selector",
	"space": "White_Space", "WSpace": "White_Space",
}

// propertyRanges resolves a property name of \p{…}: a General_Category value
// (`L`, `Letter`, `gc=Lu`, `General_Category=Lu`), a script (`Script=Latin`,
// `sc=Greek`) or a binary property Go has a table for. Anything else is
// refused with a sentence that says what to write instead.
func propertyRanges(name string) ([]rng, string) {
	key, value, hasValue := strings.Cut(name, "=")
	if hasValue {
		switch key {
		case "General_Category", "gc":
			return categoryRanges(value, name)
		case "Script", "sc":
			if t, ok := unicode.Scripts[value]; ok {
				return tableRanges(t), ""
			}
			return nil, fmt.Sprintf("unknown script in `\\p{%s}`: use the script's long name, e.g. `\\p{Script=Latin}`, `\\p{Script=Cyrillic}`, `\\p{Script=Han}`", name)
		case "Script_Extensions", "scx":
			return nil, fmt.Sprintf("`\\p{%s}` is not supported: use `\\p{Script=%s}` (it omits characters shared between scripts) or list the characters in a class", name, value)
		}
		return nil, fmt.Sprintf("`\\p{%s}` is not supported: use a General_Category (`\\p{L}`, `\\p{Lu}`, `\\p{N}`, `\\p{P}`) or `\\p{Script=Latin}`", name)
	}
	if rs, msg := categoryRanges(name, name); msg == "" {
		return rs, ""
	}
	switch name {
	case "Any":
		return []rng{{0, unicode.MaxRune}}, ""
	case "ASCII":
		return []rng{{0, 0x7F}}, ""
	case "Assigned":
		return complement(unassigned()), ""
	case "Alphabetic", "Alpha":
		return tableRanges(unicode.Lu, unicode.Ll, unicode.Lt, unicode.Lm, unicode.Lo, unicode.Nl, unicode.Other_Alphabetic), ""
	case "Uppercase", "Upper":
		return tableRanges(unicode.Lu, unicode.Other_Uppercase), ""
	case "Lowercase", "Lower":
		return tableRanges(unicode.Ll, unicode.Other_Lowercase), ""
	}
	if long, ok := binaryAliases[name]; ok {
		name = long
	}
	if t, ok := unicode.Properties[name]; ok && !strings.HasPrefix(name, "Other_") {
		return tableRanges(t), ""
	}
	if t, ok := unicode.Scripts[name]; ok {
		_ = t
		return nil, fmt.Sprintf("`\\p{%s}` names a script: write `\\p{Script=%s}`", name, name)
	}
	if strings.Contains(name, "Emoji") || name == "Extended_Pictographic" || name == "ExtPict" {
		return nil, fmt.Sprintf("`\\p{%s}` is not supported: list the ranges you need, e.g. `[\\u{1F300}-\\u{1FAFF}\\u{2600}-\\u{27BF}]`", name)
	}
	return nil, fmt.Sprintf("`\\p{%s}` is not supported: use a General_Category (`\\p{L}`, `\\p{Lu}`, `\\p{N}`, `\\p{P}`), `\\p{Script=Latin}`, or list the characters in a class", name)
}

// categoryRanges resolves a General_Category value; name is the escape's
// text for the error sentence.
func categoryRanges(v, name string) ([]rng, string) {
	if short, ok := generalCategories[v]; ok {
		v = short
	}
	switch v {
	case "LC":
		return tableRanges(unicode.Lu, unicode.Ll, unicode.Lt), ""
	case "Cn":
		return unassigned(), ""
	case "C":
		return normalize(append(tableRanges(unicode.Cc, unicode.Cf, unicode.Co), unassigned()...)), ""
	case "Cs":
		return nil, "`\\p{Cs}` (surrogates) is not supported: a u-mode string has no lone surrogates to match"
	}
	if t, ok := unicode.Categories[v]; ok {
		return tableRanges(t), ""
	}
	return nil, fmt.Sprintf("unknown General_Category in `\\p{%s}`: use one such as `L`, `Lu`, `Ll`, `N`, `Nd`, `P`, `S`, `Z`", name)
}

// unassigned returns the code points of no General_Category (Cn).
func unassigned() []rng {
	all := make([]*unicode.RangeTable, 0, len(unicode.Categories))
	for k, t := range unicode.Categories {
		if len(k) == 2 { // the two-letter categories partition the assigned code points
			all = append(all, t)
		}
	}
	return complement(tableRanges(all...))
}

// mayWriteLength reports whether assigning to target (an expression or a
// destructuring pattern) may set an array's length: target is, or holds, a
// .length member or a member whose key is computed or a large index.
func mayWriteLength(target ast.Expression) bool {
	return anyMember(target, func(e ast.Expression) bool {
		switch e := e.(type) {
		case *ast.DotExpression:
			return e.Identifier.Name == "length"
		case *ast.BracketExpression:
			switch m := e.Member.(type) {
			case *ast.StringLiteral:
				return m.Value == "length"
			case *ast.NumberLiteral:
				f, ok := m.Value.(float64)
				if i, isInt := m.Value.(int64); isInt {
					f, ok = float64(i), true
				}
				return !ok || f >= 1<<20
			}
		}
		return true
	})
}
