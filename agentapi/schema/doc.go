// Package schema compiles and checks the JSON Schemas that scripts pass to
// agent() for structured output.
//
// A script's schema describes one child's answer. Compile turns the schema
// text into a Schema, refusing anything that cannot describe an answer: text
// that is not a JSON object (a boolean schema included), a schema that the
// validator rejects, a root whose "type" is not "object", and any $ref that
// leaves the document. Compile never touches the network or the file system:
// its loader refuses every URL except the JSON Schema meta-schemas built into
// the validator. Compile's errors are one sentence saying what is wrong and
// what to write instead; the run side maps them to UNSUPPORTED_SCHEMA.
//
// Validate checks an answer (JSON text) against a compiled Schema, with
// format assertions on, and explains a mismatch as a short list of failing
// locations. A Schema holds its text and its compiled validator, nothing
// more; it is immutable after Compile and safe for concurrent use. Cache
// compiles each distinct schema text once, for providers that see the same
// schema in many calls, and StripFences removes the Markdown code fence that
// models put around JSON answers.
//
// NewCompiler hands out a validator compiler configured as Compile's own,
// for code that must check parts of a schema by location; the fake
// provider's generator of minimal answers (agentapi/fake/minimal) is that
// code, and it lives with the fake provider because nothing else needs it.
//
// The package sits beside agentapi: it imports the validator
// (github.com/santhosh-tekuri/jsonschema/v6, with golang.org/x/text for its
// messages), the standard library and agentapi/internal/memo (Cache's
// bounded map), and none of wfrun's other packages.
package schema
