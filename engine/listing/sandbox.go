package listing

import (
	"fmt"
	"io"
	"strings"

	"github.com/wfrun/wfrun/agentapi/workspace"
)

// WriteSandbox writes what wfrun doctor prints: the layers of the sandbox
// this machine gives, then whether sandboxed commands (read-only,
// workspace-write) would run or be refused with the sandbox's network and
// Landlock-only settings. refused says they would be; err is a setting the
// sandbox does not take, after the layers were written.
func WriteSandbox(w io.Writer, network, landlockOnly bool) (refused bool, err error) {
	fmt.Fprintln(w, "The sandbox layers of this machine:")
	for _, l := range workspace.Layers() {
		mark := "ok     "
		if !l.OK {
			mark = "MISSING"
		}
		fmt.Fprintf(w, "  %s  %-24s %s\n", mark, l.Name, l.Detail)
	}
	ws, err := workspace.New(workspace.Config{Root: "/", Network: network, LandlockOnly: landlockOnly})
	if err != nil {
		return false, err
	}
	if err := ws.CheckSandbox(); err != nil {
		fmt.Fprintf(w, "Sandboxed commands (read-only, workspace-write) would be REFUSED: %s\n", strings.TrimPrefix(err.Error(), "sandboxed commands are refused: "))
		return true, nil
	}
	how := "in namespaces of their own, under Landlock"
	if ws.LandlockOnly() {
		how = "under Landlock alone (--sandbox-landlock-only): no PID namespace, no protected paths, no hidden folders"
	}
	fmt.Fprintf(w, "Sandboxed commands (read-only, workspace-write) run %s.\n", how)
	return false, nil
}
