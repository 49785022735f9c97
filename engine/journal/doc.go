// Package journal keeps a durable run on disk: the run's folder under the
// runs directory and the journal file that lets a resumed run replay the
// children it already paid for.
//
// A run folder (RUNS/<runId>/) holds the request (request.json, with the
// script), the script on its own (script.js), the event stream
// (events.jsonl), the journal (journal.jsonl), the result once the run has
// settled (result.json) and, where the provider writes them, the children's
// transcripts (transcripts/). Files that are written whole are written
// atomically (a temporary file renamed into place); events.jsonl and
// journal.jsonl are appended to.
//
// The journal has one JSON line per finished child — a runtime.JournalEntry
// with a version field "v" — and each line is written and fsynced before
// the child's outcome reaches the script (File.Record is the runtime's
// Journal). Reading tolerates what a crash in the middle of a write leaves:
// a truncated or corrupt last line is dropped (that child runs again), and
// File cuts it off before appending. A corrupt line anywhere else is an
// error: that is not what a crash leaves. When one seq has several lines
// (a run continued in place), the last one wins.
//
// The package decides nothing about replay (runtime does) and knows no
// ledger or engine. It must never write outside the runs directory: run ids
// are checked (ValidRunID) before they become paths.
//
// Place: engine → engine/journal → runtime.
package journal
