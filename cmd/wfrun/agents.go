package main

import (
	"flag"

	"github.com/wfrun/wfrun/agentapi/persona"
	"github.com/wfrun/wfrun/engine/listing"
	"github.com/wfrun/wfrun/engine/setup"
)

// agentsCmd is `wfrun agents [--agents-dir DIR]... [--workspace DIR]
// [--json]`: the personas a run with the same flags would know, where each
// comes from, and the files that failed to load (FILE:LINE: sentence). It
// exits 0 when every file loaded and 1 when some did not; the listing is
// printed either way.
func agentsCmd(fs *flag.FlagSet) runFunc {
	l := &listingOptions{}
	bindAgentsDir(fs, &l.dirs)
	return l.bind(fs, "agents", agents)
}

func agents(e env, dirs []string, workspace string, asJSON bool) int {
	set, err := loadPersonas(dirs, workspace, e)
	if err != nil {
		return usageFail(e, "%v", err)
	}
	code := exitCompleted
	if len(set.Errors()) > 0 {
		code = exitFailed
	}
	if asJSON {
		return printJSON(e, listing.AgentsOf(set), code)
	}
	listing.WriteAgents(e.stdout, set)
	return code
}

// workspaceDir returns --workspace as given, or the current folder, after
// checking that it is a folder.
var workspaceDir = setup.WorkspaceDir

// loadPersonas loads the personas of --agents-dir, the workspace's
// .claude/agents and .wfrun/agents, and ~/.claude/agents, in that order.
func loadPersonas(dirs []string, workspace string, e env) (*persona.Set, error) {
	return setup.LoadPersonas(dirs, workspace, e.getenv)
}

// listingOptions are the flags of a listing command (agents, workflows):
// its repeatable folder flag, --workspace and --json.
type listingOptions struct {
	dirs      []string
	workspace string
	asJSON    bool
}

// bind binds --workspace and --json and returns the command's run
// function, which calls list with the flags.
func (l *listingOptions) bind(fs *flag.FlagSet, cmd string, list func(e env, dirs []string, workspace string, asJSON bool) int) runFunc {
	bindWorkspace(fs, &l.workspace)
	bindJSON(fs, &l.asJSON)
	return func(e env, positional []string) int {
		if len(positional) > 0 {
			return usageFail(e, "%s takes only flags; got %q", cmd, positional[0])
		}
		return list(e, l.dirs, l.workspace, l.asJSON)
	}
}
