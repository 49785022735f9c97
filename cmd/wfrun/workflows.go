package main

import (
	"flag"

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
