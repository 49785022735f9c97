package workspace

import "fmt"

// Layer is one layer of the OS sandbox and whether this machine gives it
// to this process, for `wfrun doctor`.
type Layer struct {
	Name   string // what the layer is, e.g. "PID namespace"
	OK     bool   // the machine gives it
	Detail string // a version, what it is for, or why it is missing
}

// Layers probes the layers of the sandbox on this machine: the helper
// (Init), wfrun's own process being non-dumpable, Landlock and its ABI,
// and each namespace, probed by starting the helper in it. It starts a
// few short processes; call it from a diagnostic, not per command.
func Layers() []Layer {
	ls := []Layer{
		{"sandbox helper", helperAvailable(), "each sandboxed command starts through a helper mode of this program (workspace.Init / engine.Init)"},
		{"non-dumpable", nonDumpable(), "no child reads this process's environment or memory through /proc or ptrace"},
	}
	if !ls[0].OK {
		ls[0].Detail = "this program did not call workspace.Init (engine.Init) at the top of main"
	}
	abi, err := landlockABI()
	ll := Layer{Name: "Landlock", OK: err == nil && abi >= neededABI(false), Detail: fmt.Sprintf("ABI %d: writes, TCP", abi)}
	switch {
	case err != nil:
		ll.Detail = fmt.Sprintf("missing: %v", err)
	case abi < neededABI(false):
		ll.Detail = fmt.Sprintf("ABI %d; writes and TCP need ABI %d (Linux %s)", abi, neededABI(false), kernelFor(neededABI(false)))
	case abi >= 6:
		ll.Detail += ", signals and abstract Unix sockets scoped"
	}
	ls = append(ls, ll)
	ls = append(ls, namespaceLayers()...)
	return append(ls, seccompLayer())
}
