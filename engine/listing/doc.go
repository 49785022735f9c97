// Package listing renders what wfrun's listing commands print, for a person
// at a terminal and as JSON: the runs of the ledger (wfrun runs), one run
// with its lineage, its agents grouped by phase as a tree and its timeline
// (wfrun show), the personas found (wfrun agents) and the saved workflows
// (wfrun workflows), each with the folders searched and the files that
// failed to load, and the sandbox's layers and verdict (wfrun doctor).
//
// It owns the layout of those texts and their JSON forms, and how the
// ledger commands (wfrun runs, show, stop, note) reach the ledger: an
// engine that runs nothing (OpenLedger), the stop verb and the wait for
// it to take (StopAndWait), the note verb (Note). It reads what it is
// given (and the ledger, for Show); it changes the ledger only through the
// engine's verbs, and must never run anything or decide an exit status.
//
// Place: engine/listing → engine, engine/ledger, agentapi/persona,
// agentapi/workspace.
// cmd/wfrun prints it; engine/ui renders the same rows as a web page.
package listing
