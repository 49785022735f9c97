// Command wfrun runs JavaScript workflow scripts from a shell (docs/cli.md).
//
//	wfrun [run] SCRIPT.js|NAME [flags]  run a script or a saved workflow, print its WorkflowResult JSON on stdout
//	wfrun check SCRIPT.js [flags]       run every pre-check and execute nothing
//	wfrun providers                     list the sub-agent providers and their capabilities
//	wfrun doctor                        the sandbox layers this machine gives; exit 1 when sandboxed commands would be refused
//	wfrun agents                        list the personas (agentType) and the files that failed to load
//	wfrun workflows                     list the saved workflows and the files that failed to load
//	wfrun tool                          print the tools' definitions for parent agents
//	wfrun mcp [flags]                   serve the tools over MCP (stdio, or --http)
//	wfrun agent "TASK" [flags]          a parent model with the workflow, agent and sub-agent tools
//	wfrun ralph "OBJECTIVE"             the Ralph loop (engine/ralph)
//	wfrun resume RUNID                  a new run that replays RUNID's finished agents (docs/durability.md)
//	wfrun retry RUNID                   a failed, cancelled or abandoned run again, as a new run
//	wfrun continue RUNID                an abandoned run resumed in place
//	wfrun runs                          the runs of the ledger
//	wfrun show RUNID                    a run, its agents by phase and its timeline
//	wfrun stop RUNID                    cancel a live run, in whichever process runs it
//	wfrun note RUNID TEXT               a note on the run's timeline
//	wfrun ui                            a local web page over the ledger (engine/ui)
//	wfrun worker --temporal HOST:PORT   runs on Temporal (engine/temporal, docs/scale-out.md)
//	wfrun temporal dev | gc             a Temporal server on this machine; delete payloads no history refers to
//
// stdout carries only the JSON answer; notices, the live progress line (on a
// terminal) and `--events -` go to stderr. The exit status is the contract a
// shell script relies on: 0 completed, 1 the run or a pre-check failed (the
// JSON says why), 2 the command line itself was wrong (a message on stderr and
// no JSON), 130 cancelled by SIGINT or SIGTERM (the JSON is still printed).
//
// Every behaviour lives in runMain, which takes its arguments, streams,
// environment and signals as parameters so that tests run the command in
// process; main only wires it to the real process. The two rules that decide
// between exit 2 and exit 1: a file or flag wfrun cannot read or parse is a bad
// invocation; content it read but that fails a check (args that are not
// JSON, a rules file with a bad rule, a script that does not parse) is a
// failed pre-check, reported as a result.
//
// Every command is an entry of one table (commands.go): its name, its summary,
// its own flags and its run function (wfrun temporal's dev and gc are entries
// under its own). The dispatch, the help (generated from
// the table and the flag sets, usage.go), the hint after a word that is neither
// a command nor a script, and a test of this comment read it. Each command
// binds its own options struct; the groups of flags that several share are
// bound, with their help, by the packages they configure (engine/setup's
// sub-agent and sandbox flags, engine's limits, engine/temporal's connection,
// checked by internal/flagvalue) or by small functions (flags.go), so a flag a
// command does not take is unknown to it, and the refusal names the commands
// that take it.
//
// The command line only fills engine/setup's Inputs from its flags (inputsOf,
// request.go): reading the script, the request, args and meta, the providers
// and the engine is engine/setup's, so that an embedder gets the same;
// following a run in the foreground while signals come, and closing in order,
// is engine/foreground's (engine/temporal's Run.Follow for a run on Temporal).
// mcp, agent, ui and worker reuse the run's flags, provider setup and engine
// (loadToolInvocation and engine/foreground's Open); the MCP server itself is
// engine/mcpserver. Every command that runs something keeps its runs in
// --runs-dir ($WFRUN_RUNS_DIR, .wfrun/runs); resume, retry, continue and ralph
// run in the foreground like a script (resume.go, ralph.go), and runs, show,
// stop and note read or change the ledger through an engine that runs nothing
// (runs.go, with engine/listing's OpenLedger, StopAndWait and Note).
//
// Place: the top. It imports engine, the packages beside it (engine/tool,
// engine/mcpserver, engine/progress, engine/listing, …) and the providers it
// registers, as internal/testkit/layers lists; nothing imports it.
package main
