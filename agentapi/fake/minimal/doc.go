// Package minimal builds the smallest value that satisfies a JSON Schema:
// the answer the fake provider gives a schema call that no rule answers
// (docs/providers.md, "The fake provider").
//
// Value walks the schema in the order its author wrote it (object keys keep
// their order: ordered.go), resolving $ref and allOf into one merged schema
// per node (merge.go) and choosing the smallest value of each type
// (values.go): required properties only, const, the first enum value, the
// first oneOf/anyOf branch that works, "" or the shortest string a pattern
// or format accepts, 0 or the nearest allowed number, false, [] or minItems
// copies. Each part is checked as it is built against the sub-schema at its
// location, which the generator compiles with its own validator compiler
// (schema.NewCompiler, set up as schema.Compile's), and the whole value is
// validated with the compiled schema before it is returned. The output is
// byte-for-byte deterministic.
//
// The package must never hang or exhaust memory on a hostile schema: the
// depth it descends, the work it spends searching alternatives, item counts
// and the output's size (1 MiB) are bounded, and a schema past them is an
// error, as is one that no value satisfies. The error's sentence says what
// to do: give the schema an example under "examples" (Value tries a part's
// examples and default when its own guess does not fit), or, when the
// search ran out, simplify the alternatives.
//
// Value keeps nothing between calls and is safe for concurrent use; the fake
// provider keeps one result per distinct schema text. The package imports
// agentapi/schema, the validator and the standard library; only
// agentapi/fake imports it.
package minimal
