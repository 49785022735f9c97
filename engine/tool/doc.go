// Package tool offers wfrun to parent agents as tools: workflow (run a
// script the model wrote), agent (run one sub-agent), the background
// tools workflow_status, workflow_wait, workflow_cancel and workflow_list,
// and ralph (the Ralph loop on one objective, engine/ralph).
//
// Everything a model sees here is product surface: the descriptions
// (description.go, the authoring manual of the workflow tool, at most
// MaxDescriptionChars, ending with the host's personas and then its saved
// workflows when it has some),
// the input schemas (generated from the Go input types with
// invopop/jsonschema, a description on every field, unknown fields refused
// with a sentence naming them), and the results:
//
//   - a completed run is the line `workflow "NAME" completed (N agents, T
//     tokens, D s)`, the script's file when it has one, then its value as
//     JSON, cut at MaxResultChars with a notice naming the resource
//     wfrun://runs/<runId>/result;
//   - a run that did not complete is an error (Result.IsError) naming the
//     code, the sentence, the line and column with the line itself, and how
//     many sub-agents had completed; a failed run is never shown as a
//     success with partial output;
//   - both end with the run's last log lines (engine.LogTail: 20 lines,
//     2 KiB), which workflow_status and workflow_wait show too.
//
// The workflow tool takes its script as Claude Code's Workflow tool does:
// scriptPath (a file of the engine's workspace), script, or name (a saved
// workflow), in that order of precedence.
//
// A Set binds the tools to one engine and one owner (the request's Parent).
// Every run the set starts belongs to that owner, and the background tools
// see only that owner's runs, through the engine's run registry: an MCP
// server gives each session its own Set, so no session can see or cancel
// another's runs. The agent tool is a run too (a one-call script whose
// request is the tool's input), so it goes through the same providers,
// limits, events and registry as any workflow.
//
// With Options.Subagents (an engine/subagent Manager) the set also has the
// continuable sub-agent tools: subagent_start, subagent_send,
// subagent_interrupt, subagent_list, subagent_result and subagent_close,
// whose children belong to the set's owner (subagents.go). ChildTools
// gives the same tools to a child, bound to it as the parent of the
// children it starts.
//
// Adapters: Tool.Definition and Tool.Call (plain Go, for any framework),
// Set.OpenAITools and Set.HandleOpenAI (go-openai), Set.Toolbox (an
// agentapi.Toolbox, for a parent loop on one of wfrun's own providers).
// engine/mcpserver serves a Set over MCP.
//
// When the engine keeps runs (Config.RunsDir), a run that did not complete
// says how to resume it (resumeFromRunId: its finished agents replay for
// free), a set resumes only its owner's runs, and workflow_list and
// workflow_status read the run ledger, so they still know a run after the
// host restarted. CancelAll cancels only the runs its own set started, so
// sessions that share an owner do not end each other's runs.
//
// The package must never touch a goja VM or reach into a run: it uses only
// engine's public API. It starts no goroutines: a foreground call runs on
// its caller's goroutine, and background runs are the engine's, which
// Engine.Close cancels and waits for.
//
// Place: cmd → engine/mcpserver → engine/tool → engine. internal/testkit/layers
// holds the exact list of what it may import.
package tool
