package command

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/agentapi/internal/proc"
	"github.com/wfrun/wfrun/agentapi/schema"
	"github.com/wfrun/wfrun/internal/wferr"
)

// Provider runs each child as an external command. Create it with New; it
// is safe for concurrent use.
type Provider struct {
	spec Spec // with defaults; never modified after New

	schemas schema.Cache // each distinct schema compiled once

	started func(pgid int) // test hook: called with each child's process group
}

// New checks spec and returns a provider for it. The command is looked up
// when a child starts, not here: a missing executable is an AGENT_START
// error from Run.
func New(spec Spec) (*Provider, error) {
	if err := spec.check(); err != nil {
		return nil, err
	}
	if spec.Sandbox && spec.Workspace == nil {
		return nil, errors.New("the command spec asks for the sandbox (\"sandbox\": true) but no workspace was given: set Spec.Workspace (the CLI's --workspace and --sandbox)")
	}
	return &Provider{spec: spec.withDefaults()}, nil
}

// Name returns the spec's name ("command" by default).
func (p *Provider) Name() string { return p.spec.Name }

// Capabilities returns the capabilities the spec declares, no more.
func (p *Provider) Capabilities() agentapi.Capabilities { return p.spec.Capabilities }

// errSpecTimeout is the cause of a context ended by Spec.Timeout.
var errSpecTimeout = errors.New("the command spec's timeout passed")

// Run runs one child as a process group of its own and waits until the
// group is gone. It returns an error only when the command cannot be
// started (an *wferr.Error with code AGENT_START) or the request breaks
// the contract; every outcome of a started command is a Result.
func (p *Provider) Run(ctx context.Context, req agentapi.Request) (agentapi.Result, error) {
	s := &p.spec
	var (
		sch        *schema.Schema
		schemaText string
	)
	if len(req.Schema) > 0 {
		if !s.Capabilities.OutputSchema {
			return agentapi.Result{}, wferr.New(wferr.AgentStart,
				"the %q provider got a schema call, but its spec does not declare the outputSchema capability: declare \"capabilities\": {\"outputSchema\": true} in the command spec", s.Name)
		}
		var err error
		if sch, err = p.schemas.Get(req.Schema); err != nil {
			return agentapi.Result{}, wferr.Wrap(wferr.AgentResult, err,
				"the %q provider got a schema that does not compile, which the run side should have refused with UNSUPPORTED_SCHEMA: %v", s.Name, err)
		}
		schemaText = compactJSON(req.Schema)
	}
	prompt := promptFor(req.Prompt, schemaText)
	in := tokens(len(prompt))
	if ctx.Err() != nil {
		return stopped(ctx, s, proc.Execution{Stopped: proc.StoppedContext}, agentapi.Usage{InputTokens: in}), nil
	}

	model := req.Model
	if model == "" {
		model = s.Model
	}
	env := environ(ctx, s)
	path, err := lookPath(s.Argv[0], s.Dir, env)
	if err != nil {
		return agentapi.Result{}, notFound(s, err)
	}
	j := proc.Job{
		Path:      path,
		Args:      expandArgv(s.Argv, prompt, model, schemaText),
		Env:       env,
		Dir:       s.Dir,
		MaxStdout: s.MaxOutputBytes,
		Grace:     s.KillGrace,
		Started:   p.started,
	}
	if s.PromptVia == PromptViaStdin {
		j.Stdin = &prompt
	}
	if s.Sandbox {
		if j.Path, j.Args, err = s.Workspace.Confine(j.Path, j.Args, ""); err != nil {
			return agentapi.Result{}, wferr.Wrap(wferr.AgentStart, err, "the %q provider's spec asks for the sandbox, which cannot run here: %v", s.Name, err)
		}
		j.SysProcAttr = s.Workspace.SysProcAttr()
		if j.Dir == "" {
			j.Dir = s.Workspace.Root()
		}
	}
	if s.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, s.Timeout, errSpecTimeout)
		defer cancel()
	}
	ex, err := proc.Run(ctx, j)
	if err != nil {
		return agentapi.Result{}, wferr.Wrap(wferr.AgentStart, err,
			"the %q provider cannot start %q: %v; fix \"argv\" or \"dir\" in the command spec", s.Name, s.Argv[0], err)
	}
	usage := agentapi.Usage{InputTokens: in}
	switch ex.Stopped {
	case proc.StoppedContext:
		return stopped(ctx, s, ex, usage), nil
	case proc.StoppedSize:
		return agentapi.Result{Status: agentapi.StatusFailed, Failure: agentapi.FailureTaskFailed, Usage: usage,
			Error: fmt.Sprintf("%s wrote more than %d bytes to stdout, the spec's maxOutputBytes%s: make it print only its final answer, or raise maxOutputBytes",
				s.Argv[0], s.MaxOutputBytes, howStopped(s, ex))}, nil
	}
	if st := ex.State; !st.Success() {
		return agentapi.Result{Status: agentapi.StatusFailed, Failure: agentapi.FailureTaskFailed, Usage: usage,
			Error: fmt.Sprintf("%s %s%s", s.Argv[0], exitText(ex), ex.StderrNote())}, nil
	}
	return p.answer(s, ex, sch, usage), nil
}

// answer turns the stdout of a command that exited 0 into the result.
func (p *Provider) answer(s *Spec, ex proc.Execution, sch *schema.Schema, usage agentapi.Usage) agentapi.Result {
	text := string(ex.Stdout)
	var (
		doc  any
		note string
	)
	if s.Output.Format == FormatJSON {
		var err error
		if doc, err = lastJSON(ex.Stdout); err != nil {
			return failed(agentapi.FailureTaskFailed, usage, "%s exited 0 but its output is not JSON (%v), although the spec says \"output.format\": \"json\"; output: %q%s",
				s.Argv[0], err, excerpt(text, 200), ex.StderrNote())
		}
		v, ok := lookup(doc, s.Output.Field)
		if !ok || v == nil {
			return failed(agentapi.FailureTaskFailed, usage, "%s exited 0 but its JSON output has no %q field (the spec's \"output.field\"); output: %q%s",
				s.Argv[0], s.Output.Field, excerpt(text, 200), ex.StderrNote())
		}
		text = fieldText(v)
	}
	text = strings.TrimSpace(text)
	usage.OutputTokens = tokens(len(text))
	if doc != nil {
		usage, note = usageFrom(doc, s.Output.UsageFields, usage)
	}
	if sch == nil {
		return agentapi.Result{Status: agentapi.StatusCompleted, Text: text, Note: note, Usage: usage}
	}
	raw := json.RawMessage(schema.StripFences(text))
	if err := sch.Validate(raw); err != nil {
		return failed(agentapi.FailureInvalidOutput, usage, "the answer does not match the schema: %v; answer: %q", err, excerpt(text, 200))
	}
	return agentapi.Result{Status: agentapi.StatusCompleted, Output: json.RawMessage(compactJSON(raw)), Note: note, Usage: usage}
}

func failed(kind agentapi.FailureKind, u agentapi.Usage, format string, args ...any) agentapi.Result {
	return agentapi.Result{Status: agentapi.StatusFailed, Failure: kind, Error: fmt.Sprintf(format, args...), Usage: u}
}

// stopped is the result of a child whose context ended first.
func stopped(ctx context.Context, s *Spec, ex proc.Execution, u agentapi.Usage) agentapi.Result {
	how := howStopped(s, ex) + ex.StderrNote()
	if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return agentapi.Result{Status: agentapi.StatusCancelled, Failure: agentapi.FailureCancelled, Usage: u,
			Error: "the child was cancelled before " + s.Argv[0] + " finished" + how}
	}
	msg := "the child's deadline passed before " + s.Argv[0] + " finished" + how
	if context.Cause(ctx) == errSpecTimeout {
		msg = fmt.Sprintf("%s did not finish within the spec's timeout of %s%s", s.Argv[0], s.Timeout, how)
	}
	return agentapi.Result{Status: agentapi.StatusTimedOut, Failure: agentapi.FailureTimeout, Usage: u, Error: msg}
}

// howStopped says how a process the provider stopped ended, or "" if it
// was not signalled (it never started, or exited on its own).
func howStopped(s *Spec, ex proc.Execution) string {
	switch {
	case !ex.Termed:
		return ""
	case ex.Killed:
		return fmt.Sprintf(" (it ignored SIGTERM and was killed with SIGKILL after %s)", s.KillGrace)
	}
	return " (it was stopped with SIGTERM)"
}

// exitText describes a failed exit: a status or a signal.
func exitText(ex proc.Execution) string {
	if sig, ok := ex.Signal(); ok {
		return fmt.Sprintf("was killed by signal %s", sig)
	}
	return fmt.Sprintf("exited with status %d", ex.State.ExitCode())
}

// notFound is the AGENT_START error for a command that cannot be found or
// run.
func notFound(s *Spec, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		where := "in PATH"
		if strings.Contains(s.Argv[0], "/") {
			where = "(no such file)"
		}
		return wferr.Wrap(wferr.AgentStart, err,
			"the %q provider cannot find the command %q %s: install it, or fix \"argv\" (or \"env.PATH\") in the command spec", s.Name, s.Argv[0], where)
	}
	return wferr.Wrap(wferr.AgentStart, err,
		"the %q provider cannot run the command %q (%v): make it an executable file, or fix \"argv\" in the command spec", s.Name, s.Argv[0], err)
}
