// Package statedir names and makes wfrun's state folder: the private
// folder, outside every workspace, where wfrun keeps what no child may
// read — the per-run keys that authenticate the run folders' journals
// and requests (engine/journal).
//
// # The model
//
// The folder is, in order: $WFRUN_STATE_DIR; else $XDG_STATE_HOME/wfrun;
// else ~/.local/state/wfrun (the home folder from $HOME, else the user
// database). Make creates it (0700) and its sub-folders without following
// a symbolic link below the folder that holds it, refuses a folder another
// user owns, and closes a sub-folder others could enter. The sandbox
// hides the folder from every child's command: a child that could read a
// key could forge its run's answers.
//
// # Place
//
// A leaf of internal/: it imports only the standard library and
// internal/nofollow. It never writes a key itself and never decides what
// is kept in the folder; engine/journal does.
package statedir
