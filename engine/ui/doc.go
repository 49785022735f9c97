// Package ui is the local web page over the run ledger: the runs of every
// wfrun process that shares a runs folder (the CLI, wfrun mcp, a program
// that embeds the engine), one run's meta, phases, timeline and agents,
// live while the run goes on, and the ledger's control verbs as buttons.
// `wfrun ui` only wires flags to it; docs/ui.md is its manual.
//
// The model: the page is a view of files other processes write. The
// ledger (engine/ledger) gives the runs, their children's snapshots and
// their timelines; a run's folder (engine/journal) gives its request
// (meta, args, script), its event stream (events.jsonl), its journal (the
// full prompt and answer of every finished agent) and its result. Nothing
// here writes those files: the only writes go through the engine's verbs
// (Engine.Stop, Retry, Continue, Note), exactly as the CLI's verbs do, so
// the ledger's one pure function (ledger.Decide) decides what is legal. A
// stop reaches the run's own process at its next heartbeat; a retry or a
// continue runs in the engine the Server was given, which is wfrun ui's
// process.
//
// Live: a run's page follows its events.jsonl from the byte offset it was
// rendered at and sends each new line as a server-sent event (the offset is
// the event's id, so a reconnecting browser resumes where it was); the
// browser re-renders the parts of the page that changed from a fragment
// the server renders. The list follows the ledger the same way.
//
// Access: every page is rendered with html/template and the scripts use
// textContent, so nothing a script or a model wrote becomes markup. A
// Content-Security-Policy allows only the embedded assets. Without a token
// the Server answers only to loopback host names (a page elsewhere cannot
// reach it by rebinding a name of its own to 127.0.0.1); with a token every
// request carries it as a bearer header or as the cookie that a
// /?token=TOKEN login sets. The verbs are POSTs that
// net/http.CrossOriginProtection guards: a page of another origin cannot
// make the browser send one.
//
// Goroutines: a request that follows a file or the ledger polls it in its
// own handler goroutine and returns when the request's context is done;
// Serve cancels every such context when it stops. Start listens and runs
// Serve in one goroutine, which ends with it; the package starts no other.
//
// Place: cmd → engine/ui → engine; nothing but cmd imports it.
// internal/testkit/layers holds the exact list of what it may import.
package ui
