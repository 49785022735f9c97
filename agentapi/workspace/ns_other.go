//go:build !linux

package workspace

import (
	"errors"
	"fmt"
	"io"
	"syscall"
)

var errNoNamespaces = errors.New("namespaces are a feature of Linux, and this is not Linux")

// SysProcAttr returns nil: there are no namespaces here (see the Linux
// version).
func (w *Workspace) SysProcAttr() *syscall.SysProcAttr { return nil }

func namespacesAvailable() error { return errNoNamespaces }

func probe(uintptr, bool) error { return errNoNamespaces }

func probeMain([]string, io.Writer) int { return 1 }

func spawnInNamespaces(_ policy, stderr io.Writer) int {
	fmt.Fprintf(stderr, "wfrun sandbox: %v; the command was not run\n", errNoNamespaces)
	return helperStatus
}

func nsInit(_ policy, _ string, _ []string, stderr io.Writer) int {
	return spawnInNamespaces(policy{}, stderr)
}

func setNonDumpable() error { return nil }

func nonDumpable() bool { return false }

func namespaceLayers() []Layer {
	return []Layer{{Name: "namespaces", Detail: "missing: " + errNoNamespaces.Error()}}
}

func seccompLayer() Layer { return Layer{Name: "seccomp", Detail: "missing: a feature of Linux"} }
