package main

import (
	"errors"
	"flag"
	"os"
	"regexp"
	"strings"

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

// savedWorkflowName matches what `wfrun NAME` may take for the name of a
// saved workflow rather than a file: a workflow name, not ending in .js.
var savedWorkflowName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// isSavedWorkflowRef reports whether the script argument names a saved
// workflow: no such file exists, and it is a workflow name, not a path.
func isSavedWorkflowRef(arg string) bool {
	if arg == "-" || strings.HasSuffix(arg, ".js") || !savedWorkflowName.MatchString(arg) {
		return false
	}
	_, err := os.Stat(arg)
	return os.IsNotExist(err)
}

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
	file, src, err := engine.FindSavedWorkflow(cfg, in.savedName)
	if err != nil {
		msg := err.Error()
		var we *engine.Error
		if errors.As(err, &we) {
			msg = we.Message
		}
		return usagef("%s is neither a file nor a saved workflow: %s%s", in.savedName, msg, commandsHint(in.savedName))
	}
	in.req.Script, in.req.ScriptName, in.scriptFile = src, file, file
	return nil
}
