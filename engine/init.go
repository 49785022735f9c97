package engine

import (
	"github.com/wfrun/wfrun/agentapi/workspace"
	"github.com/wfrun/wfrun/runtime/isolate"
)

// Init must be the first call in the main function of a program that
// embeds the engine. wfrun starts two kinds of helper process as this same
// executable re-executed in a hidden mode: the OS sandbox of a child's
// commands (the openai provider's Bash tool in read-only or
// workspace-write mode), which cannot be applied to the engine's own
// process because Go cannot run code between fork and exec; and isolated
// runs (Isolate: "process"), whose VM runs in a process of its own. Started
// as such a helper, Init never returns; otherwise it returns at once and
// records that the helpers are available. Without the call, sandboxed
// commands and isolated runs are refused with a sentence that names it.
// Test binaries call it in TestMain. It is the pattern of Docker's
// reexec.Init.
func Init() {
	workspace.Dispatch(map[string]func([]string) int{isolate.ModeWord: isolate.Main})
}
