package main

import (
	"flag"
	"io"

	"github.com/wfrun/wfrun/engine/listing"
	"github.com/wfrun/wfrun/engine/setup"
)

// agentsCmd is `wfrun agents [--agents-dir DIR]... [--workspace DIR]
// [--json]`: the personas a run with the same flags would know, where each
// comes from, and the files that failed to load (FILE:LINE: sentence).
func agentsCmd(fs *flag.FlagSet) runFunc {
	return listingCmd(fs, "agents", setup.BindAgentsDir,
		func(e env, dirs []string, workspace string) (listed, error) {
			set, err := setup.LoadPersonas(dirs, workspace, e.getenv)
			if err != nil {
				return listed{}, err
			}
			write := func(w io.Writer) { listing.WriteAgents(w, set) }
			return listed{json: listing.AgentsOf(set), write: write, failed: len(set.Errors()) > 0}, nil
		})
}

// listed is what a listing command (agents, workflows) found: the JSON
// and the table of it, and whether a file failed to load.
type listed struct {
	json   any
	write  func(w io.Writer)
	failed bool
}

// listingCmd binds a listing command's flags: its repeatable folder flag
// (bindDirs), --workspace and --json. Its run function prints what list
// finds with them, and exits 0 when every file loaded and 1 when some did
// not; the listing is printed either way.
func listingCmd(fs *flag.FlagSet, cmd string, bindDirs func(*flag.FlagSet, *[]string),
	list func(e env, dirs []string, workspace string) (listed, error)) runFunc {
	var dirs []string
	var workspace string
	var asJSON bool
	bindDirs(fs, &dirs)
	setup.BindWorkspace(fs, &workspace)
	bindJSON(fs, &asJSON)
	return func(e env, positional []string) int {
		if len(positional) > 0 {
			return usageFail(e, "%s takes only flags; got %q", cmd, positional[0])
		}
		l, err := list(e, dirs, workspace)
		if err != nil {
			return usageFail(e, "%v", err)
		}
		code := exitCompleted
		if l.failed {
			code = exitFailed
		}
		if asJSON {
			return printJSON(e, l.json, code)
		}
		l.write(e.stdout)
		return code
	}
}
