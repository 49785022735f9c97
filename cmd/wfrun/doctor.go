package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/wfrun/wfrun/agentapi/workspace"
)

// doctorCmd is `wfrun doctor [--sandbox-network] [--sandbox-landlock-only]`:
// which layers of the sandbox this machine gives, and whether sandboxed
// commands (read-only, workspace-write) would run or be refused. It exits
// 1 when they would be refused, so that a script can check a machine
// before it runs anything.
func doctorCmd(fs *flag.FlagSet) runFunc {
	var network, landlockOnly bool
	bindSandboxNetwork(fs, &network)
	bindLandlockOnly(fs, &landlockOnly)
	return func(e env, positional []string) int { return doctor(e, positional, network, landlockOnly) }
}

func doctor(e env, positional []string, network, landlockOnly bool) int {
	if len(positional) > 0 {
		return usageFail(e, "doctor takes only --sandbox-network and --sandbox-landlock-only; got %q", positional[0])
	}
	fmt.Fprintln(e.stdout, "The sandbox layers of this machine:")
	for _, l := range workspace.Layers() {
		mark := "ok     "
		if !l.OK {
			mark = "MISSING"
		}
		fmt.Fprintf(e.stdout, "  %s  %-24s %s\n", mark, l.Name, l.Detail)
	}
	ws, err := workspace.New(workspace.Config{Root: "/", Network: network, LandlockOnly: landlockOnly})
	if err != nil {
		return usageFail(e, "doctor: %v", err)
	}
	if err := ws.CheckSandbox(); err != nil {
		fmt.Fprintf(e.stdout, "Sandboxed commands (read-only, workspace-write) would be REFUSED: %s\n", strings.TrimPrefix(err.Error(), "sandboxed commands are refused: "))
		return exitFailed
	}
	how := "in namespaces of their own, under Landlock"
	if ws.LandlockOnly() {
		how = "under Landlock alone (--sandbox-landlock-only): no PID namespace, no protected paths, no hidden folders"
	}
	fmt.Fprintf(e.stdout, "Sandboxed commands (read-only, workspace-write) run %s.\n", how)
	return exitCompleted
}
