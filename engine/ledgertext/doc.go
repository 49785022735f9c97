// Package ledgertext renders the run ledger for a person at a terminal:
// the table of runs (wfrun runs) and one run with its lineage, its agents
// grouped by phase as a tree, and its timeline (wfrun show).
//
// It owns the layout of those texts and the --json form of a shown run. It
// reads the ledger and must never change it, run anything, or decide an
// exit status.
//
// Place: engine/ledgertext → engine/ledger. cmd/wfrun prints it; engine/ui
// renders the same rows as a web page.
package ledgertext
