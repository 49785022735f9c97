// Package nofollow opens files beneath a trusted folder without following
// any symbolic link on the way, so that a link a child planted (a
// `.wfrun/worktrees` pointing out of the workspace, a `journal.jsonl`
// pointing at a file of the user's) can never redirect a write of wfrun's.
//
// # The model
//
// Every function takes a base and a relative name. The base is trusted: the
// caller resolved it itself (the workspace's real root, the runs folder the
// user named, wfrun's state folder). The relative name is not: each of its
// components is opened with O_NOFOLLOW, so a symbolic link anywhere below
// the base — the last component included — fails with ErrLink instead of
// being followed. Names that are absolute or climb with ".." are refused
// before anything is opened.
//
// On Linux the walk is one openat2(2) with RESOLVE_BENEATH and
// RESOLVE_NO_SYMLINKS; where the kernel lacks openat2 it is done component
// by component with openat(2) and O_NOFOLLOW, which gives the same answer.
//
// RemoveAll deletes a tree beneath the base the same way: the folder it
// starts from is reached without following a link, and every link inside
// is removed as itself.
//
// # Place
//
// A leaf of internal/: it imports only the standard library and
// golang.org/x/sys. It never decides policy (which names are protected,
// which folders are trusted); its callers do.
package nofollow
