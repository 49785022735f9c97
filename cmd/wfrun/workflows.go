package main

import (
	"flag"
	"io"

	"github.com/wfrun/wfrun/engine/listing"
	"github.com/wfrun/wfrun/engine/setup"
)

// workflowsCmd is `wfrun workflows [--workflows-dir DIR]...
// [--workspace DIR] [--json]`: the saved workflows workflow(name) and
// `wfrun NAME` would find with the same flags, where each comes from, and
// the files that failed to load (listingCmd).
func workflowsCmd(fs *flag.FlagSet) runFunc {
	return listingCmd(fs, "workflows", setup.BindWorkflowsDir,
		func(e env, dirs []string, workspace string) (listed, error) {
			list, err := setup.SavedWorkflows(dirs, workspace, e.getenv("HOME"))
			if err != nil {
				return listed{}, err
			}
			write := func(w io.Writer) { listing.WriteWorkflows(w, list) }
			return listed{json: list, write: write, failed: len(list.Errors) > 0}, nil
		})
}
