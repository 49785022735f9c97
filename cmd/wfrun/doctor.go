package main

import (
	"flag"

	"github.com/wfrun/wfrun/engine/listing"
	"github.com/wfrun/wfrun/engine/setup"
)

// doctorCmd is `wfrun doctor [--sandbox-network] [--sandbox-landlock-only]`:
// which layers of the sandbox this machine gives, and whether sandboxed
// commands (read-only, workspace-write) would run or be refused. It exits
// 1 when they would be refused, so that a script can check a machine
// before it runs anything.
func doctorCmd(fs *flag.FlagSet) runFunc {
	var network, landlockOnly bool
	setup.BindSandboxNetwork(fs, &network)
	setup.BindLandlockOnly(fs, &landlockOnly)
	return func(e env, positional []string) int {
		if len(positional) > 0 {
			return usageFail(e, "doctor takes only --sandbox-network and --sandbox-landlock-only; got %q", positional[0])
		}
		refused, err := listing.WriteSandbox(e.stdout, network, landlockOnly)
		if err != nil {
			return usageFail(e, "doctor: %v", err)
		}
		if refused {
			return exitFailed
		}
		return exitCompleted
	}
}
