// Package engine is wfrun's public Go API: it checks workflow scripts, starts
// runs, and settles each run into one WorkflowResult.
//
// An Engine carries configuration, providers and limits; two engines in one
// process share nothing. Start does every pre-check (parse, meta, provider,
// caps, args) synchronously, before any JavaScript runs, and then runs the
// script on its own goroutine in its own goja VM:
//
//	eng, _ := engine.New(engine.Config{})          // provider "fake"
//	run, err := eng.Start(ctx, engine.WorkflowStartRequest{Script: src, Parent: "cli"})
//	if err != nil {
//		res := engine.FailedResult("", err)         // a failed pre-check as a result
//	}
//	res := run.Wait()                               // also after run.Cancel("why")
//
// Identical scripts are compiled once and share one program across runs.
// Every run emits the events of docs/cli.md ("Events") to Config.Events and to the
// request's OnEvent: run.start first, run.end last, and every agent.start
// paired with one agent.end before run.end.
//
// Types that a lower package already defines are re-exported as aliases, not
// copied: Event and EventType (runtime), AgentCounts (runtime.Counts), Usage
// (agentapi.Usage), Error and ErrorCode (the internal error vocabulary). Their
// fields are documented where they are defined; `go doc runtime.Event` shows
// them. One definition means no converter can drift from it.
//
// The engine keeps a registry of its runs by owner (the request's Parent):
// Lookup, Info and Runs show an owner its own runs, running and recently
// finished, and never another owner's; background runs (Background in the
// request) are admitted up to Config.MaxBackgroundRuns per owner. The
// workflow tool (engine/tool) and the MCP server (engine/mcpserver) are
// built on it.
//
// Config.Observer follows every run with the contexts it runs under: the
// run's (from Start's context) and each child's, which its provider gets.
// Package engine/trace implements it to turn runs into OpenTelemetry
// spans; the engine itself knows nothing of tracing.
//
// With Config.RunsDir runs are durable (durable.go, docs/durability.md):
// each run gets a folder (engine/journal) whose journal is the runtime's
// Journal, so every child is on disk before the script sees it, and a row
// in the run ledger (engine/ledger) that a heartbeat goroutine per run keeps
// leased. ResumeFromRunId replays an earlier run's finished children; Stop,
// Retry, Continue and Note are the ledger's verbs, and Info and Runs read
// the ledger for runs the registry no longer holds. Without RunsDir the
// engine writes nothing anywhere.
//
// Close cancels the runs still going and waits for every goroutine they
// started (heartbeats included), and closes the ledger, so that an
// embedding program (or a test with goleak) can know that nothing outlives
// the engine.
//
// Place: cmd → engine → runtime → sandbox. internal/testkit/layers holds the exact
// list of what it may import.
package engine
