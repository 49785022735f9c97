package meta

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestFromLiteral_AcceptsPureLiterals(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want string
	}{
		{"plain object", `const meta = { name: 'judge-panel', description: "Three jurors" }`,
			`{"name":"judge-panel","description":"Three jurors"}`},
		{"keeps key order", `const meta = { z: 1, a: 2, m: 3 }`, `{"z":1,"a":2,"m":3}`},
		{"string and number keys", `const meta = { 'when-to': 1, "q": 2, 3: 'x', 1.50: 'y' }`,
			`{"when-to":1,"q":2,"3":"x","1.5":"y"}`},
		{"keyword keys", `const meta = { default: 1, new: 2, null: 3, get: 4, set: 5 }`,
			`{"default":1,"new":2,"null":3,"get":4,"set":5}`},
		{"nested arrays and objects", `const meta = { phases: [{ title: 'List' }, { title: 'Audit', detail: 'each file' }] }`,
			`{"phases":[{"title":"List"},{"title":"Audit","detail":"each file"}]}`},
		{"true false null", `const meta = { a: true, b: false, c: null }`, `{"a":true,"b":false,"c":null}`},
		{"negative and float numbers", `const meta = { a: -1, b: 1.5e-7, c: 1e21, d: -0, e: 0x1F, f: 1_000 }`,
			`{"a":-1,"b":1.5e-7,"c":1e+21,"d":0,"e":31,"f":1000}`},
		{"template without substitutions", "const meta = { d: `two\nlines` }", `{"d":"two\nlines"}`},
		{"escapes and unicode, no HTML escaping", `const meta = { s: 'a<b> & \u00e9 \n "q"' }`,
			`{"s":"a<b> & é \n \"q\""}`},
		{"trailing commas", `const meta = { a: [1, 2,], b: 3, }`, `{"a":[1,2],"b":3}`},
		{"parentheses are not code", `const meta = ({ a: ('x') })`, `{"a":"x"}`},
		{"empty containers", `const meta = { a: {}, b: [] }`, `{"a":{},"b":[]}`},
		{"non-object root is left to Parse", `const meta = 'just a string'`, `"just a string"`},
		{"export keyword blanked as sandbox does", "export const meta = { name: 'x' }\nreturn 1", `{"name":"x"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			expr, pos := mustParseMeta(t, tt.src)
			got, err := FromLiteral(expr, pos)
			if err != nil {
				t.Fatalf("FromLiteral: %v", err)
			}
			if string(got) != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestFromLiteral_RejectsNonLiteralWithPosition(t *testing.T) {
	tests := []struct {
		name      string
		src       string
		line, col int
		wantMsg   []string
	}{
		{"call", "const meta = { name: 'x', description: ['a', 'b'].join(' ') }", 1, 40,
			[]string{"meta.description", "function call", "`['a', 'b'].join(' ')`", "write the value"}},
		{"variable", "const meta = {\n  name: NAME }", 2, 9, []string{"meta.name", "variable `NAME`"}},
		{"undefined", "const meta = { model: undefined }", 1, 23, []string{"meta.model is `undefined`", "leave the field out"}},
		{"Infinity", "const meta = { n: Infinity }", 1, 19, []string{"`Infinity`", "write a number or null"}},
		{"member access", "const meta = { d: cfg.text }", 1, 19, []string{"property read `cfg.text`"}},
		{"optional chain", "const meta = { d: cfg?.text }", 1, 19, []string{"`cfg?.text`"}},
		{"getter", "const meta = {\n  get name() { return 'x' } }", 2, 3, []string{"getter `get name()`", "write name: 'the value'"}},
		{"setter", "const meta = { set name(v) {} }", 1, 16, []string{"setter `set name()`"}},
		{"method", "const meta = { name() { return 'x' } }", 1, 16, []string{"method `name()`"}},
		{"async method", "const meta = { async name() {} }", 1, 16, []string{"method `name()`"}},
		{"computed key", "const meta = { [key]: 'x' }", 1, 17, []string{"computed key `[key]`", "plain name or a quoted string"}},
		{"shorthand", "const meta = { name, description: 'd' }", 1, 16, []string{"shorthand property `name`", "write name: 'the value'"}},
		{"spread in object", "const meta = { ...base, name: 'x' }", 1, 16, []string{"spread `...base`", "write each field out"}},
		{"spread in array", "const meta = { phases: [...ps] }", 1, 25, []string{"meta.phases[0] is a spread `...ps`"}},
		{"template with substitution", "const meta = { d: `hi ${who}` }", 1, 19, []string{"template with `${who}`", "plain quotes"}},
		{"tagged template", "const meta = { d: String.raw`x` }", 1, 19, []string{"tagged template"}},
		{"regexp", "const meta = { p: /a+/g }", 1, 19, []string{"regular expression `/a+/g`", `"a+"`}},
		{"function", "const meta = { f: function () {} }", 1, 19, []string{"a function"}},
		{"arrow", "const meta = { f: () => 1 }", 1, 19, []string{"a function"}},
		{"new", "const meta = { d: new Date(0) }", 1, 19, []string{"`new Date(0)`"}},
		{"conditional", "const meta = { d: a ? 'x' : 'y' }", 1, 19, []string{"conditional"}},
		{"binary", "const meta = { d: 'a' + 'b' }", 1, 19, []string{"operator `+`", "one string"}},
		{"minus on a variable", "const meta = { n: -x }", 1, 19, []string{"`-x`", "only directly before a number"}},
		{"unary plus", "const meta = { n: +1 }", 1, 19, []string{"operator `+`"}},
		{"typeof", "const meta = { n: typeof x }", 1, 19, []string{"operator `typeof`"}},
		{"BigInt", "const meta = { n: 10n }", 1, 19, []string{"BigInt `10n`"}},
		{"number too large", "const meta = { n: 1e400 }", 1, 19, []string{"too large for JSON"}},
		{"array hole", "const meta = { a: [1, , 2] }", 1, 21, []string{"meta.a[1] is an empty slot"}},
		{"__proto__", "const meta = { __proto__: {} }", 1, 16, []string{"`__proto__`", "prototype"}},
		{"duplicate key", "const meta = { name: 'a',\n  'name': 'b' }", 2, 3, []string{`key "name" twice`, "keep one"}},
		{"duplicate number key", "const meta = { 1: 'a', 1.0: 'b' }", 1, 24, []string{`key "1" twice`}},
		{"whole meta is a call", "const meta = makeMeta()", 1, 14, []string{"meta is a function call `makeMeta()`"}},
		{"nested path", "const meta = { phases: [{ title: t }] }", 1, 34, []string{"meta.phases[0].title", "variable `t`"}},
		{"quoted path", "const meta = { 'a b': x }", 1, 23, []string{`meta["a b"]`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			expr, pos := mustParseMeta(t, tt.src)
			got, err := FromLiteral(expr, pos)
			if err == nil {
				t.Fatalf("FromLiteral accepted %q, returned %s", tt.src, got)
			}
			e := metaError(t, err)
			if e.Line != tt.line || e.Column != tt.col {
				t.Errorf("position = line %d, column %d; want line %d, column %d (%s)", e.Line, e.Column, tt.line, tt.col, e.Message)
			}
			prefix := "line " + strconv.Itoa(tt.line) + ", column " + strconv.Itoa(tt.col) + ": "
			if !strings.Contains(e.Message, prefix) {
				t.Errorf("message lacks %q: %s", prefix, e.Message)
			}
			for _, want := range tt.wantMsg {
				if !strings.Contains(e.Message, want) {
					t.Errorf("message lacks %q: %s", want, e.Message)
				}
			}
		})
	}
}

func TestFromLiteral_ReportsEveryViolation(t *testing.T) {
	src := `const meta = {
  name: NAME,
  get description() { return 'd' },
  [k]: 1,
  ...rest,
  phases: [{ title: ` + "`${x}`" + ` }, { title: 'ok' }],
  model: pick(),
}`
	expr, pos := mustParseMeta(t, src)
	_, err := FromLiteral(expr, pos)
	e := metaError(t, err)
	if e.Line != 2 || e.Column != 9 {
		t.Errorf("error position = %d:%d, want the first violation's, 2:9", e.Line, e.Column)
	}
	want := []string{
		"line 2, column 9: meta.name",
		"line 3, column 3: meta has a getter",
		"line 4, column 4: meta has a computed key",
		"line 5, column 3: meta has a spread",
		"line 6, column 21: meta.phases[0].title is a template",
		"line 7, column 10: meta.model is a function call",
	}
	if !strings.Contains(e.Message, "6 problems") {
		t.Errorf("message does not count 6 problems: %s", e.Message)
	}
	last := -1
	for _, w := range want {
		i := strings.Index(e.Message, w)
		if i < 0 {
			t.Errorf("message lacks %q: %s", w, e.Message)
			continue
		}
		if i < last {
			t.Errorf("%q is out of source order in: %s", w, e.Message)
		}
		last = i
	}
}

// The literal is read, never run: values that would loop forever, throw or
// have side effects come back as violations at once.
func TestFromLiteral_NeverRunsCode(t *testing.T) {
	tests := []struct{ name, src string }{
		{"looping IIFE", "const meta = { name: 'x', description: (() => { while (true) {} })() }"},
		{"getter that loops", "const meta = { name: 'x', get description() { for (;;) {} } }"},
		{"throwing call", "const meta = { name: 'x', description: (() => { throw new Error('boom') })() }"},
		{"side effect", "const meta = { name: 'x', description: globalThis.x = 1 }"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			expr, pos := mustParseMeta(t, tt.src)
			done := make(chan error, 1)
			go func() {
				_, err := FromLiteral(expr, pos)
				done <- err
			}()
			select {
			case err := <-done:
				metaError(t, err)
			case <-time.After(30 * time.Second): // generous: a loaded machine is slow, a literal that runs never returns
				t.Fatal("FromLiteral did not return: it must never run the literal")
			}
		})
	}
}

func TestFromLiteral_RejectsTheSharedBadScript(t *testing.T) {
	expr, pos := mustParseMeta(t, readTestdata(t, "../../testdata/shared/bad/meta-computed.js"))
	_, err := FromLiteral(expr, pos)
	e := metaError(t, err)
	if e.Line != 2 || e.Column != 54 {
		t.Errorf("position = %d:%d, want 2:54 (the start of the call)", e.Line, e.Column)
	}
	if !strings.Contains(e.Message, "`['a', 'b'].join(' ')`") {
		t.Errorf("message does not quote the call: %s", e.Message)
	}
}

func TestFromLiteral_WithoutASourceHasNoPosition(t *testing.T) {
	expr, _ := mustParseMeta(t, "const meta = { name: x }")
	_, err := FromLiteral(expr, nil)
	e := metaError(t, err)
	if e.Line != 0 || e.Column != 0 || strings.Contains(e.Message, "line ") {
		t.Errorf("got a position without a Source: %v", e)
	}
}

func TestFromLiteral_NilExpressionIsViolation(t *testing.T) {
	_, err := FromLiteral(nil, nil)
	metaError(t, err)
}

func TestFromLiteral_OutputIsValidMetaForRealScripts(t *testing.T) {
	src := `export const meta = {
  name: 'audit-pipeline',
  description: 'List files, audit each for injection bugs, verify every finding',
  phases: [{ title: 'List' }, { title: 'Audit' }, { title: 'Verify' }],
}
phase('List')`
	expr, pos := mustParseMeta(t, src)
	raw, err := FromLiteral(expr, pos)
	if err != nil {
		t.Fatal(err)
	}
	m, warnings, err := Parse(raw)
	if err != nil || len(warnings) != 0 {
		t.Fatalf("Parse(%s) = %v, %v", raw, warnings, err)
	}
	if m.Name != "audit-pipeline" || len(m.Phases) != 3 || m.Phases[2].Title != "Verify" {
		t.Errorf("unexpected meta %+v", m)
	}
	if !json.Valid(raw) {
		t.Errorf("invalid JSON %s", raw)
	}
}

func TestExtract_NamesTheDataProblemsBesideTheViolations(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []string // parts of the one message, in order
		not       []string // parts it must not have
	}{
		{"a violation and two data problems", "const meta = { name: 'a' + 'b', description: '', phases: 'x' }",
			[]string{"meta.name is an expression", "and as data: meta.description is blank", "meta.phases must be an array"},
			[]string{"meta.name must be", "meta.name is missing"}},
		{"a failed value is not reported twice", "const meta = { name: NAME, description: 'd' }",
			[]string{"meta.name is a reference"}, []string{"and as data"}},
		{"a getter's key is not reported missing", "const meta = { get name() { return 'n' }, description: 'd' }",
			[]string{"meta has a getter"}, []string{"and as data"}},
		{"a bad phase title only once", "const meta = { name: 'n', description: 'd', phases: [{ title: `${t}` }], model: 5 }",
			[]string{"meta.phases[0].title is a template", "and as data: meta.model must be a string"}, []string{"meta.phases[0].title must"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			expr, pos := mustParseMeta(t, tc.src)
			_, err := Extract(expr, pos)
			e := metaError(t, err)
			last := -1
			for _, w := range tc.want {
				i := strings.Index(e.Message, w)
				if i < last {
					t.Errorf("%q missing or out of order in: %s", w, e.Message)
				}
				last = i
			}
			for _, n := range tc.not {
				if strings.Contains(e.Message, n) {
					t.Errorf("message has %q: %s", n, e.Message)
				}
			}
		})
	}
	expr, pos := mustParseMeta(t, "const meta = { name: 'n', description: 'd' }")
	if raw, err := Extract(expr, pos); err != nil || string(raw) != `{"name":"n","description":"d"}` {
		t.Fatalf("a pure literal: %s, %v", raw, err)
	}
}
