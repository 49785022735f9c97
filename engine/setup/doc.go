// Package setup assembles a run the way the wfrun command line does —
// its request from the inputs a person gives, the sub-agent providers and
// the engine — so that a program embedding the engine gets the same
// request, the same providers, the same default and the same errors as a
// person at the shell.
//
// # The model
//
// Inputs are what a person gives: the script (a file, "-" for stdin, or
// the name of a saved workflow), a --request file, args and meta as JSON
// or @FILE, the request fields set one by one, fake rules, the folders of
// saved workflows and personas, the provider settings (Options), the
// workspace and sandbox, where traces and runs go. Load reads them for a
// run of a script, LoadServer for a server whose limits are the engine's
// defaults, LoadResume for a resume of a kept run; each returns an
// Invocation: the engine.WorkflowStartRequest and what the engine needs.
// Stdin is read at most once, whichever input asks for it. An input that
// cannot be read is an *InputError (the command line's usage error);
// content that was read but fails a check is a *wferr.Error with a code
// (INVALID_REQUEST, META_INVALID), as the engine's own pre-checks.
//
// Open builds the engine of an Invocation: Providers (below) for its
// request's provider, a fake provider that rehearses in the same
// workspace, the default provider, the personas, the runs and state
// folders, the tracer; Engine.Close closes the engine (CloseEngine) and
// stops what Open started. SupplyMeta gives a script without meta one
// named after its file (FileMeta), as the command line does.
//
// Options is the whole input of the providers: the files and endpoints
// a user names (a command spec, ACP agents, MCP servers, a price table),
// the personas and model map already loaded, the workspace a child may
// touch, and the provider the request names, if any. Providers reads
// them, with the environment (OPENAI_API_KEY, OPENAI_BASE_URL,
// WFRUN_MODEL) through Options.Getenv, and returns a Set: the providers,
// the one a request that names none uses (Set.Default), and a notice
// saying why when that is the offline fake. Set.Apply puts them into an
// engine.Config; Set.Close stops what Providers started (the MCP servers).
//
// The default-provider policy lives here and nowhere else: openai when it
// is configured, else the engine's built-in fake, with a notice that says
// how to configure a real one.
//
// # What it owns
//
// How inputs become a request (Load and its variants, RequestFields,
// strict decoding of a request file through internal/strictjson), which
// providers a configuration builds (command, acp:NAME, openai), how the
// openai provider's configuration is read from the environment and the
// settings (OpenAIConfig, also the parent model's of engine/tool/parent),
// the default-provider policy (DefaultProvider), how the engine is built
// and closed (Open, CloseEngine), the JSON lines of an event log
// (EventLog), what a resumed run takes from its saved request before any
// engine exists (Resume), the meta of a script file that has none
// (FileMeta, SupplyMeta), the saved workflows a workspace holds
// (SavedWorkflows), and the configuration wfrun tool describes (Local).
//
// # What it must never do
//
// It parses no command line: Flags.Bind defines the sub-agent flags on
// the caller's flag set; the caller parses them and fills Inputs
// (cmd/wfrun from its flags). It never writes to stdout or stderr: notices
// go to Build.Notify or are returned, for the caller to show or not. It
// starts no run and waits for none. Its errors name each setting by its
// wfrun flag (--request, --command-spec, --acp-config, …), which
// docs/cli.md and docs/providers.md describe.
package setup
