// Package fake is wfrun's deterministic offline provider (docs/providers.md, "The fake provider"),
// registered as "fake". It runs any script a real provider could run,
// without a network: the default provider when no real one is configured,
// the engine of dry runs (`wfrun script.js --provider fake`), and the
// provider of the tests.
//
// A child's outcome depends only on its request and the optional Rules:
//
//   - The first rule whose Match regexp is found in the prompt decides. Its
//     Reply is the answer, its Fail makes the child fail (task_failed), its
//     Timeout makes it end timed_out; DelayMs delays the outcome and Usage
//     replaces the computed token counts. A rule with none of Reply, Fail
//     and Timeout answers as if no rule matched, after its delay.
//   - Without a matching rule, a text call replies with its prompt and a
//     schema call with the smallest value the schema accepts, which
//     sub-package minimal builds (see minimal.Value for how it is chosen).
//   - A schema call's answer is validated against the schema; an answer
//     that does not satisfy it fails the child with invalid_output.
//   - Usage, unless a rule gives it: inputTokens = ceil(len(prompt)/4) and
//     outputTokens = ceil(len(answer)/4), in bytes; cost 0.
//
// Run honours its context: a context already done, or one that ends during
// a delay, ends the child promptly as cancelled (or timed_out when the
// context's deadline passed). Run starts no goroutines; a delay is one
// timer (agentapi.Sleep), stopped before Run returns. A Provider is safe
// for concurrent use and keeps, per distinct schema text it has seen (up to
// a bound), the compiled schema and, once a call needs it, its minimal
// value.
//
// The Provider is also agentapi.Conversational (converse.go): each turn
// of a continued child is answered as Run answers that turn's message,
// and the history of messages and answers is its snapshot.
//
// Run returns an error only when the provider is misconfigured (Options held
// a rule Parse would refuse) or the request breaks the agentapi contract
// (a schema that does not compile, which the run side checks beforehand);
// every child outcome is a Result.
package fake
