package engine

import "github.com/wfrun/wfrun/agentapi/workspace"

// Init must be the first call in the main function of a program whose
// children may run sandboxed commands (the openai provider's Bash tool in
// read-only or workspace-write mode). The OS sandbox cannot be applied to
// the engine's own process, and Go cannot run code between fork and exec,
// so every sandboxed command starts as this same executable re-executed in
// a hidden helper mode that confines itself and then execs the command.
// Started that way, Init never returns; otherwise it returns at once and
// records that the helper is available. Without the call, sandboxed
// commands are refused with a sentence that names it. Test binaries call it
// in TestMain. It is the pattern of Docker's reexec.Init.
func Init() { workspace.Init() }
