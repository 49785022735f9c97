// Package journal keeps a durable run on disk: the run's folder under the
// runs directory, the journal file that lets a resumed run replay the
// children it already paid for, the run's key that authenticates both,
// and the lock that says the run is alive.
//
// A run folder (RUNS/<runId>/) holds the request (request.json, with the
// script), the script on its own (script.js), the seal of both
// (seal.json), the event stream (events.jsonl), the journal
// (journal.jsonl), the result once the run has settled (result.json), the
// lock file (lock) and, where the provider writes them, the children's
// transcripts (transcripts/). Files that are written whole are written
// atomically (a temporary file renamed into place); events.jsonl and
// journal.jsonl are appended to.
//
// # Trust
//
// A child's tools may be able to write to the run folder, so nothing in it
// is trusted that wfrun did not write. Every file is opened beneath the
// runs folder without following a symbolic link (internal/nofollow). Each
// run has a key (NewKey, LoadKey) in wfrun's state folder
// (internal/statedir), which no child can read: every journal line
// carries an HMAC-SHA256 under it, chained to the line before, and
// seal.json holds the MACs of request.json and script.js; when the run
// settles, the journal's head (its lines and the last MAC: SaveHead) is
// kept beside the key, so that lines cut from its end are seen too. A
// line or a sealed file that fails its check is refused (ErrForged), never
// cut off or replayed; a line without a MAC, written by an older wfrun,
// is refused too (ErrLegacy).
//
// # The journal
//
// The journal has one JSON line per finished child — a runtime.JournalEntry
// with a version field "v" and its MAC "mac" — and each line is written and
// fsynced before the child's outcome reaches the script (File.Record is
// the runtime's Journal). Reading tolerates what a crash in the middle of a
// write leaves: a last line without its newline that fails its check is
// torn, and is dropped (that child runs again); OpenJournal cuts it off
// before appending. When one seq has several lines (a run continued in
// place), the last one wins.
//
// # Liveness
//
// A live run holds an exclusive flock on its folder's lock file (Lock);
// LockFree tells another process whether anyone holds it. The package
// decides nothing about what a free lock means (engine does, together
// with the process the ledger names), nothing about replay (runtime does),
// and knows no ledger or engine. It must never write outside the runs
// directory and the state folder: run ids are checked (ValidRunID) before
// they become paths.
//
// Place: engine → engine/journal → runtime. internal/testkit/layers holds the exact
// list of what it may import.
package journal
