// Package schema compiles, checks and satisfies the JSON Schemas that
// scripts pass to agent() for structured output.
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
// locations. Minimal builds the smallest answer that satisfies the schema;
// the fake provider replies with it when no rule matches (docs/providers.md, "The fake provider").
// Minimal keeps object keys in the schema's "properties" order, so its
// output is byte-for-byte deterministic.
//
// The package sits beside agentapi: it imports the validator
// (github.com/santhosh-tekuri/jsonschema/v6, with golang.org/x/text for its
// messages) and the standard library, and
// none of wfrun's other packages. A Schema is immutable after Compile and
// safe for concurrent use.
package schema
