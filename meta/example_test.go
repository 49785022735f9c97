package meta_test

import (
	"encoding/json"
	"fmt"

	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/file"
	"github.com/dop251/goja/parser"

	"github.com/wfrun/wfrun/meta"
)

// source is a meta.Source over a parsed program (package sandbox's Script
// is the one wfrun uses).
type source struct {
	prog *ast.Program
	text string
}

func (s source) Position(idx file.Idx) (int, int) {
	p := s.prog.File.Position(int(idx) - s.prog.File.Base())
	return p.Line, p.Column
}

func (s source) Text(from, to file.Idx) string {
	return s.text[int(from)-s.prog.File.Base() : int(to)-s.prog.File.Base()]
}

// metaLiteral parses src and returns the initializer of its first
// declaration, with its source.
func metaLiteral(text string) (ast.Expression, meta.Source) {
	prog, err := parser.ParseFile(nil, "script.js", text, 0, parser.WithDisableSourceMaps)
	if err != nil {
		panic(err)
	}
	return prog.Body[0].(*ast.LexicalDeclaration).List[0].Initializer, source{prog: prog, text: text}
}

func ExampleFromLiteral() {
	expr, pos := metaLiteral(`const meta = { name: 'map-reduce', description: 'Summarise, then merge' }`)
	raw, err := meta.FromLiteral(expr, pos)
	fmt.Println(string(raw), err)

	expr, pos = metaLiteral(`const meta = { name: 'x', description: ['a', 'b'].join(' ') }`)
	_, err = meta.FromLiteral(expr, pos)
	fmt.Println(err)
	// Output:
	// {"name":"map-reduce","description":"Summarise, then merge"} <nil>
	// META_INVALID: meta must be a pure literal, since it is read without running the script: line 1, column 40: meta.description is a function call `['a', 'b'].join(' ')`; write the value it would return as a literal, e.g. 'the final text' (line 1, column 40)
}

func ExampleParse() {
	m, warnings, err := meta.Parse(json.RawMessage(`{"name":"judge-panel","description":"Three jurors rule","author":"me"}`))
	fmt.Println(m.Name, warnings, err)

	_, _, err = meta.Parse(json.RawMessage(`{"name":"judge panel"}`))
	fmt.Println(err)
	// Output:
	// judge-panel [unknown meta field "author" is ignored] <nil>
	// META_INVALID: meta is invalid; 2 problems: meta.name "judge panel" contains ' '; use only letters, digits, '-', '_' and '.', e.g. "judge-panel"; meta.description is missing; add a sentence saying what the workflow does
}

func ExampleMerge() {
	_, err := meta.Merge(
		json.RawMessage(`{"name":"x","description":"from the request"}`),
		json.RawMessage(`{"description":"from the script","name":"x"}`))
	fmt.Println(err)
	// Output:
	// META_INVALID: meta in the request and in the script differ in "description"; pass meta in one place only, or make them equal
}
