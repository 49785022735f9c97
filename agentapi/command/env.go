package command

import "github.com/wfrun/wfrun/agentapi/internal/proc"

// InheritedEnv returns the names of the variables every child inherits from
// wfrun's environment when they are set, in addition to Spec.PassEnv.
func InheritedEnv() []string { return proc.InheritedEnv() }

// environ builds a child's environment: the inherited variables, then
// PassEnv, then Env, later ones winning; each name appears once.
func environ(s *Spec) []string { return proc.Environ(s.PassEnv, s.Env) }

// lookPath finds the command the way a shell would, but with the child's
// PATH (Spec.Env may set it) and relative to the child's directory.
func lookPath(name, dir string, env []string) (string, error) { return proc.LookPath(name, dir, env) }
