package main

import (
	"flag"

	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/listing"
	"github.com/wfrun/wfrun/engine/setup"
)

// workflowsCmd is `wfrun workflows [--workflows-dir DIR]...
// [--workspace DIR] [--json]`: the saved workflows workflow(name) and
// `wfrun NAME` would find with the same flags, where each comes from, and
// the files that failed to load. It exits 0 when every file loaded and 1
// when some did not; the listing is printed either way.
func workflowsCmd(fs *flag.FlagSet) runFunc {
	l := &listingOptions{}
	bindWorkflowsDir(fs, &l.dirs)
	return l.bind(fs, "workflows", workflows)
}

func workflows(e env, dirs []string, workspace string, asJSON bool) int {
	list, err := setup.SavedWorkflows(dirs, workspace, e.getenv("HOME"))
	if err != nil {
		return usageFail(e, "%v", err)
	}
	code := exitCompleted
	if len(list.Errors) > 0 {
		code = exitFailed
	}
	if asJSON {
		return printJSON(e, list, code)
	}
	listing.WriteWorkflows(e.stdout, list)
	return code
}

// isSavedWorkflowRef reports whether the script argument names a saved
// workflow: no such file exists, and it is a workflow name, not a path.
func isSavedWorkflowRef(arg string) bool { return setup.IsSavedWorkflowRef(arg) }

// readSavedWorkflow replaces a script argument that names a saved workflow
// with that workflow's source, found where workflow(name) finds it: every
// --workflows-dir, the workspace's .claude/workflows and .wfrun/workflows,
// ~/.claude/workflows. It runs once the workspace is known.
func readSavedWorkflow(in *invocation, e env) error {
	if in.savedName == "" {
		return nil
	}
	cfg := engine.Config{Workspace: in.providers.workspace.Root}
	workflowsConfig(&cfg, in, e)
	file, src, err := setup.FindSavedWorkflow(cfg, in.savedName)
	if err != nil {
		return usagef("%s is neither a file nor a saved workflow: %v%s", in.savedName, err, commandsHint(in.savedName))
	}
	in.req.Script, in.req.ScriptName, in.scriptFile = src, file, file
	return nil
}
