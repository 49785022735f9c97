// Package command is the provider that delegates each child to an external
// agent command line (docs/providers.md, "The command provider"): `claude -p`, `codex exec`,
// `gemini -p`, or any script that reads a prompt and prints an answer.
//
// A Spec, usually read from a JSON file with Load (the CLI's
// --command-spec), says how to run the command:
//
//	{
//	  "name": "claude",
//	  "argv": ["claude", "-p", "--output-format", "json", "--model", "{model}"],
//	  "promptVia": "stdin",
//	  "model": "sonnet",
//	  "output": {"format": "json", "field": "result",
//	             "usageFields": {"inputTokens": "usage.input_tokens",
//	                             "outputTokens": "usage.output_tokens",
//	                             "cachedTokens": "usage.cache_read_input_tokens",
//	                             "costUSD": "total_cost_usd"}},
//	  "passEnv": ["ANTHROPIC_API_KEY"],
//	  "timeout": "10m",
//	  "capabilities": {"outputSchema": true, "model": true}
//	}
//
// # One child, one process group
//
// Run starts argv directly, never through a shell; {prompt}, {model} and
// {schema} are replaced inside each argument after the first, so a prompt
// full of quotes and `$(…)` is one argument and nothing more. The prompt
// goes to stdin (promptVia "stdin", the default; stdin is then closed) or
// where {prompt} stands ("arg"; stdin is /dev/null). {model} is the call's
// model, else the spec's "model", which a spec using {model} must set.
// {schema} is the call's schema as compact JSON, "" for a text call.
//
// Each child runs in a process group of its own. When the child's context
// is done (the run is cancelled, or its deadline or the spec's timeout
// passes) or stdout passes maxOutputBytes, the group gets SIGTERM, and
// SIGKILL if the command has not exited after killGrace (2s). When the
// command exits, on its own or not, whatever is left of its group (a
// background job, an MCP server it started) gets SIGKILL; on Linux this
// happens before the command is reaped, so the group id cannot have been
// reused by then. Run returns only after the process is reaped and every
// goroutine it started has ended; a process that left the group (setsid,
// a daemon) is beyond its reach, and Run stops reading its pipes one second
// after the group is gone.
//
// # Outcomes
//
//   - Exit status 0: the answer is stdout with surrounding white space
//     trimmed (output.format "text"), or, with "json", the value at
//     output.field (a dotted path; digits index arrays; empty means the
//     whole value) of the last JSON value on stdout, so JSON Lines streams
//     work. A string field is the answer text; any other value its JSON.
//   - Another exit status, or death by a signal it was not sent: failed,
//     task_failed, with the status and the last 4 KiB of stderr.
//   - Stdout beyond maxOutputBytes (4 MiB): failed, task_failed, saying so;
//     the group is stopped as above.
//   - Context done: cancelled, or timed_out (failure timeout) when a
//     deadline passed — the run's, the call's or the spec's.
//   - JSON output that is not JSON, or lacks the field: failed,
//     task_failed, quoting the start of the output.
//
// Usage: the counts found at output.usageFields; a count without a path is
// estimated as ceil(bytes/4) of the prompt sent (input) or of the answer
// (output), as the fake provider does, and cost is 0 without a path. A path
// that holds no number falls back the same way and the result's Note names
// it.
//
// # Capabilities
//
// Capabilities are what the spec declares, never more. Only three can be
// declared: outputSchema, honoured by appending to the prompt "Answer with
// only a JSON value that satisfies this JSON Schema…" with the schema, then
// stripping a Markdown fence from the answer and validating it with
// agentapi/schema (a mismatch fails the child with invalid_output); model,
// which needs {model} in argv; and depthLimit, a promise about the external
// agent that the provider cannot check. toolFilter, persona, effort,
// isolation and maxTurns have no way into a command line, so New refuses
// a spec that declares them: scripts then get UNSUPPORTED_OPTION instead
// of an option silently ignored.
//
// # Environment
//
// A child does not inherit wfrun's environment. It gets the variables named
// by InheritedEnv (PATH, HOME, USER, LOGNAME, SHELL, TMPDIR, TZ, the locale
// variables LANG, LANGUAGE, LC_ALL, LC_CTYPE, LC_MESSAGES, the XDG base
// directories, SSL_CERT_FILE, SSL_CERT_DIR and the proxy variables) when
// they are set, then those named in "passEnv" (an API key, say), then
// "env", later ones winning. When the run is traced (engine/trace), the
// child also gets TRACEPARENT and TRACESTATE naming its agent span, the
// environment variables OpenTelemetry specifies for handing a trace to a
// process, so that an agent CLI that traces itself joins the run's trace.
// The command is looked up in the child's PATH, relative to "dir" when
// argv[0] or a PATH entry is relative.
//
// # Errors
//
// Run returns an error, not a Result, only when the provider cannot work:
// the command cannot be found or started (an *wferr.Error with code
// AGENT_START that names argv[0] and says to install it or fix argv), or
// the request breaks the contract (a schema call to a spec without
// outputSchema). Parse, Load and New return one sentence naming the
// faulty field; unknown fields are errors.
//
// The package is part of agentapi's provider layer: it imports agentapi,
// agentapi/schema, agentapi/internal/proc (the process group supervision
// it shares with the Bash tool) and internal/wferr, and nothing of runtime
// or engine. A
// Provider is immutable after New apart from its compiled-schema cache and
// is safe for concurrent use. It needs a Unix system (process groups); the
// group-id guarantee above is Linux's.
package command
