// Package meta owns WorkflowMeta, the description of a workflow that is known
// before any of its code runs: its name, what it does, when to use it, the
// default model for its agents and its phases (docs/script-api.md, "Meta").
//
// Meta reaches a run from one of two places, never from running code:
//
//   - as data in the request (the tool's meta parameter, the CLI's --meta), or
//   - as a first statement `export const meta = { … }` in the script, whose
//     value must be a pure literal.
//
// The package never executes anything. FromLiteral reads the syntax tree of
// the literal that package sandbox parsed, and turns it into JSON; a getter,
// a call, a spread, a variable or a computed key is refused with its line and
// column, so a literal that would loop or throw is reported, not run. Parse
// validates meta JSON from either place and reports every violation at once;
// fields it does not know are warnings, because scripts written for other
// runtimes carry extra keys. Merge reconciles the two places, and Schema
// publishes the JSON Schema of WorkflowMeta for tools that pass meta as data.
//
// Every error is a *wferr.Error with code META_INVALID whose message says
// what was wrong and what to write instead, because it is read by people and
// by the models that wrote the script.
//
// Place in the tree: cmd → engine → runtime → sandbox, and meta beside them.
// Package runtime and package engine import meta; meta imports only the
// standard library, goja's parser types (ast, file, unistring) and
// invopop/jsonschema, and holds no mutable package state apart from the
// schema it generates once.
package meta
