// Package setup assembles the sub-agent providers of an engine from plain
// settings and the environment, the way the wfrun command line does, so
// that a program embedding the engine gets the same providers, the same
// default and the same errors as a person at the shell.
//
// # The model
//
// Options is the whole input: the files and endpoints a user names
// (a command spec, ACP agents, MCP servers, a price table), the personas
// and model map already loaded, the workspace a child may touch, and the
// provider the request names, if any. Providers reads them, with the
// environment (OPENAI_API_KEY, OPENAI_BASE_URL, WFRUN_MODEL) through
// Options.Getenv, and returns a Set: the providers, the one a request that
// names none uses (Set.Default), and a notice saying why when that is the
// offline fake. Set.Apply puts them into an engine.Config; Set.Close stops
// what Providers started (the MCP servers).
//
// The default-provider policy lives here and nowhere else: openai when it
// is configured, else the engine's built-in fake, with a notice that says
// how to configure a real one.
//
// # What it owns
//
// Which providers a configuration builds (command, acp:NAME, openai),
// how the openai provider's configuration is read from the environment
// and the settings (OpenAIConfig, also the parent model's of engine/tool/
// parent), the default-provider policy (DefaultProvider), and what a
// resumed run takes from its saved request before any engine exists: the
// provider to build and the isolation (Resume); and the meta the command
// line gives a script file that has none (FileMeta, a request's
// FallbackMeta).
//
// # What it must never do
//
// It parses no command line: Flags.Bind defines the sub-agent flags, with
// their help, on the caller's flag.FlagSet, so that a program with a flag
// set takes the same flags as wfrun; the caller parses them and fills
// Options (cmd/wfrun from its flags). It never writes to stdout or stderr: the
// default's notice is returned for the caller to show or not. It starts
// no run and holds no engine. Its errors carry a code (INVALID_REQUEST for
// a setting that is wrong, AGENT_START for a provider that cannot start)
// and name each setting by its wfrun flag (--command-spec, --acp-config,
// …), which docs/cli.md and docs/providers.md describe.
package setup
