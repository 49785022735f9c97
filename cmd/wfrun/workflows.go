package main

import (
	"flag"

	"github.com/wfrun/wfrun/engine"
	"github.com/wfrun/wfrun/engine/listing"
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
	ws, err := workspaceDir(workspace)
	if err != nil {
		return usageFail(e, "%v", err)
	}
	list := engine.ListSavedWorkflows(engine.Config{
		WorkflowsDirs: engine.WorkflowSearchDirs(dirs, ws, e.getenv("HOME")), Workspace: ws})
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
