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
// wrongly (regexp.go). There is no require, process, timer or console:
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
