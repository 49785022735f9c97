// Package sandbox is the hardened JavaScript side of a run: it checks and
// compiles a workflow script (Parse → *Script) and gives each run a goja
// runtime that holds only what a workflow may use (New → *Runtime).
//
// Parse never executes anything. It bounds the source size and nesting,
// blanks the `export` of a leading `export const meta = {…}`, wraps the body
// as
//
//	(function(args, workflow){return (async function(){ BODY
//	})()})
//
// — the prefix on the user's first line, so that every line number is the
// user's and only columns on line 1 shift — parses it with goja's parser,
// verifies that the body did not close the wrapper and run code outside it,
// rewrites Unicode property escapes (\p{L}) in u-mode regexp literals into
// explicit classes (goja matches them wrongly), and compiles. Every failure
// is SCRIPT_PARSE with the user's line and column and a sentence that says
// what to write instead: modules, TypeScript, for await and async generators
// are named as such. The meta initializer is handed to package meta as an
// AST node (Script.MetaLiteral); checks read the syntax tree, never raw
// text, so comments and strings may mention import() or require.
//
// A Runtime has the ECMAScript builtins, URL and URLSearchParams, and
// polyfills for what goja lacks (Object.groupBy, Map.groupBy,
// structuredClone, Promise.withResolvers, Array.fromAsync,
// String.prototype.isWellFormed/toWellFormed). For deterministic replay,
// Date.now(), new Date(), Date() and Math.random() throw a TypeError that
// says why; eval and the Function constructors are disabled. A regexp call
// that takes longer than Options.RegexpTimeout (catastrophic backtracking)
// ends the run with RESOURCE_LIMIT instead of hanging it or answering
// wrongly (regexp.go). Builtins that goja implements with Go recursion,
// which its call-stack limit does not see, are bounded at MaxNesting levels
// (nesting.go): JSON.stringify, JSON.parse, String of nested arrays,
// flat(Infinity) and chains of bind answer a too-deep value with a
// RangeError or SyntaxError the script can catch, ExportJSON with
// RESOURCE_LIMIT and ParseJSON with INVALID_REQUEST, instead of a fatal Go
// stack overflow that would kill the process; Proxy is absent. A builtin
// installed as a method of the object it converts (`o.toString =
// String.prototype.trim; String(o)`) throws a RangeError: a builtin is
// counted where a script makes it a conversion method, and the builtins
// that convert their object's data are counted for scripts that write that
// data (conversion.go). Wrapping a builtin so installed means
// `o.toString === String.prototype.trim` is false afterwards.
// Concatenation (+, +=, templates) and spreading are rewritten into calls of
// Go helpers that check the size first (rewrite.go), so `s += s` and
// `[...a]` of 2^32−1 holes end with RESOURCE_LIMIT at the memory budget.
// Known gaps, found with the probe in probe_test.go:
//
//   - Prototype chains. goja looks a property up (and assigns one) by
//     recursing along the chain in Go, 32–256 bytes of stack per link; a
//     chain of about five million objects (1 GB of heap, seconds to build)
//     overflows Go's 1 GB stack on `o.x = 1`. Object.create, `new F` with an
//     assigned F.prototype, a {__proto__} literal and class extends all make
//     chains, so no one wrapper could cap them. The heap watchdog (package
//     runtime) ends a run whose chain grows past its memory budget within
//     one busy stretch, long before, unless the budget is raised to about a
//     gigabyte; --isolate process bounds the rest.
//   - A builtin installed as a conversion method where %hook cannot see it
//     (a destructuring pattern, a compound assignment, for…of into a
//     member) gets String.prototype's, Array.prototype's and a few other
//     builtins counted (guardConversions), but not a bound builtin or a
//     constructor: `[o.valueOf] = [Number.bind(null, previous)]` in a loop
//     still chains natives through data as deep as the script built it.
//   - A with statement can put an object with a helper's name (%concat)
//     in scope; that script escapes only to the heap watchdog.
//   - bind marks each bound function with an own, non-enumerable symbol
//     property (its chain depth), which Reflect.ownKeys shows.
//
// There is no require, process, timer or console:
// package runtime adds the host functions (agent, parallel, console, …).
// Load evaluates a Script to the
// function F(args, workflow) that returns the body's promise. ExportJSON and
// ParseJSON cross the JSON boundary with the original JSON functions, and
// Error maps anything a script run returns to a *wferr.Error with the user's
// position.
//
// A Script is immutable and shared freely; a Runtime belongs to one run's
// loop goroutine. New is kept cheap (tens of µs) by building globals late:
// see lazy.go. The package never imports runtime, meta or engine; it sits at
// the bottom of cmd → engine → runtime → sandbox.
package sandbox
