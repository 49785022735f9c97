package fake

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/agentapi/persona"
	"github.com/wfrun/wfrun/agentapi/schema"
	"github.com/wfrun/wfrun/agentapi/workspace"
)

// Options configures a Provider. The zero value means no rules.
type Options struct {
	// Rules decide the outcome of matching prompts; nil means none.
	Rules *Rules
	// Personas, when it found a folder of persona files, is what agentType
	// may name, so that a dry run catches a typo; otherwise (nil, or no
	// folder exists) any name is accepted. See CheckPersona.
	Personas *persona.Set
	// Workspace, when set, makes a dry run refuse and note what a real
	// provider working there would: an isolation other than 'worktree', a
	// worktree outside a git repository, built-in tool names the
	// workspace's mode does not offer. Nil checks none of them.
	Workspace *workspace.Workspace
}

// Provider is the fake provider. Create it with New; it is safe for
// concurrent use.
type Provider struct {
	rules    []rule
	err      error        // set when Options held a rule Parse would refuse
	personas *persona.Set // nil: any agentType is accepted
	// workspace is Options.Workspace; nil rehearses nothing.
	workspace *workspace.Workspace

	schemas answers // each distinct schema compiled, and its minimal value built, once
}

// rule is a Rule prepared for Run.
type rule struct {
	n        int // 1-based position, for messages
	re       *regexp.Regexp
	hasReply bool
	text     string          // the reply as the answer of a text call
	output   json.RawMessage // the reply as the output of a schema call
	notJSON  bool            // the reply is a string that is not JSON text
	delay    time.Duration
	fail     string
	timeout  bool
	usage    *agentapi.Usage
}

// New returns a fake provider with opts' rules. Rules built in Go rather
// than by Parse are checked the same way; if one is refused, every Run
// returns that error (the provider is misconfigured).
func New(opts Options) *Provider {
	p := &Provider{workspace: opts.Workspace}
	if opts.Personas != nil && len(opts.Personas.FoundDirs()) > 0 {
		p.personas = opts.Personas
	}
	if opts.Rules == nil {
		return p
	}
	for i, r := range opts.Rules.Rules {
		if err := r.check(); err != nil {
			p.err = fmt.Errorf("fake: rule %d: %w", i+1, err)
			p.rules = nil
			return p
		}
		p.rules = append(p.rules, prepare(i+1, r))
	}
	return p
}

func prepare(n int, r Rule) rule {
	pr := rule{
		n:       n,
		re:      regexp.MustCompile(r.Match), // check compiled it already
		delay:   time.Duration(r.DelayMs) * time.Millisecond,
		fail:    r.Fail,
		timeout: r.Timeout,
		usage:   r.Usage,
	}
	if len(r.Reply) == 0 {
		return pr
	}
	pr.hasReply = true
	var s string
	if err := json.Unmarshal(r.Reply, &s); err == nil {
		pr.text = s
		if json.Valid([]byte(s)) {
			pr.output = compact([]byte(s))
		} else {
			pr.notJSON = true
		}
		return pr
	}
	pr.output = compact(r.Reply)
	pr.text = string(pr.output)
	return pr
}

func compact(b []byte) json.RawMessage {
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return append(json.RawMessage(nil), b...)
	}
	return json.RawMessage(buf.Bytes())
}

// Name returns "fake".
func (p *Provider) Name() string { return "fake" }

// Capabilities returns every capability: the fake accepts any option.
func (p *Provider) Capabilities() agentapi.Capabilities { return agentapi.All() }

// Run runs one fake child: see the package documentation for the rules. It
// returns an error only when the provider is misconfigured or the request's
// schema does not compile, both of which the caller checks beforehand.
func (p *Provider) Run(ctx context.Context, req agentapi.Request) (agentapi.Result, error) {
	if p.err != nil {
		return agentapi.Result{}, p.err
	}
	if ctx.Err() != nil {
		return ended(ctx, agentapi.Usage{}), nil
	}
	notes, err := p.rehearse(req.Isolation, req.Tools)
	if err != nil {
		return agentapi.Result{}, err
	}
	res, err := p.answer(ctx, req)
	if len(notes) > 0 {
		res.Note = strings.Join(append(notes, res.Note), "; ")
		res.Note = strings.TrimSuffix(res.Note, "; ")
	}
	return res, err
}

// answer is a child's outcome by the rules, or the default answer.
func (p *Provider) answer(ctx context.Context, req agentapi.Request) (agentapi.Result, error) {
	var r *rule
	for i := range p.rules {
		if p.rules[i].re.MatchString(req.Prompt) {
			r = &p.rules[i]
			break
		}
	}
	var ans *answer
	if len(req.Schema) > 0 {
		var err error
		if ans, err = p.schemas.get(req.Schema); err != nil {
			return agentapi.Result{}, fmt.Errorf("fake: the request's schema does not compile, which the run side should have refused with UNSUPPORTED_SCHEMA: %w", err)
		}
	}

	in := tokens(len(req.Prompt))
	usage := func(out int) agentapi.Usage {
		if r != nil && r.usage != nil {
			return *r.usage
		}
		return agentapi.Usage{InputTokens: in, OutputTokens: tokens(out)}
	}

	if r != nil && r.delay > 0 && agentapi.Sleep(ctx, r.delay) != nil {
		return ended(ctx, usage(0)), nil
	}
	switch {
	case r != nil && r.fail != "":
		return agentapi.Result{Status: agentapi.StatusFailed, Failure: agentapi.FailureTaskFailed, Error: r.fail, Usage: usage(0)}, nil
	case r != nil && r.timeout:
		return agentapi.Result{Status: agentapi.StatusTimedOut, Failure: agentapi.FailureTimeout,
			Error: fmt.Sprintf("the child timed out (fake rule %d)", r.n), Usage: usage(0)}, nil
	case ans == nil && r != nil && r.hasReply:
		return agentapi.Result{Status: agentapi.StatusCompleted, Text: r.text, Usage: usage(len(r.text))}, nil
	case ans == nil:
		return agentapi.Result{Status: agentapi.StatusCompleted, Text: req.Prompt, Usage: usage(len(req.Prompt))}, nil
	case r != nil && r.hasReply:
		return structured(ans.schema, r, usage), nil
	}
	out, err := ans.value()
	if err != nil {
		return invalid(fmt.Sprintf("the fake provider cannot build an answer for this schema (%v); add a fake rule whose reply answers this prompt", err), usage(0)), nil
	}
	return agentapi.Result{Status: agentapi.StatusCompleted, Output: out, Usage: usage(len(out))}, nil
}

// structured is the outcome of a schema call answered by rule r.
func structured(sch *schema.Schema, r *rule, usage func(int) agentapi.Usage) agentapi.Result {
	if r.notJSON {
		return invalid(fmt.Sprintf("fake rule %d replies with a string that is not JSON text, so it cannot answer a schema call: write the reply as a JSON value", r.n), usage(len(r.text)))
	}
	if err := sch.Validate(r.output); err != nil {
		return invalid(fmt.Sprintf("fake rule %d: %v", r.n, err), usage(len(r.output)))
	}
	out := append(json.RawMessage(nil), r.output...)
	return agentapi.Result{Status: agentapi.StatusCompleted, Output: out, Usage: usage(len(out))}
}

func invalid(msg string, u agentapi.Usage) agentapi.Result {
	return agentapi.Result{Status: agentapi.StatusFailed, Failure: agentapi.FailureInvalidOutput, Error: msg, Usage: u}
}

// ended is the result of a child whose context ended before its outcome.
func ended(ctx context.Context, u agentapi.Usage) agentapi.Result {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return agentapi.Result{Status: agentapi.StatusTimedOut, Failure: agentapi.FailureTimeout,
			Error: "the child's deadline passed before it finished", Usage: u}
	}
	return agentapi.Result{Status: agentapi.StatusCancelled, Failure: agentapi.FailureCancelled,
		Error: "the child was cancelled before it finished", Usage: u}
}

// tokens is the fake token count of n bytes: ceil(n/4).
func tokens(n int) int64 { return int64(n+3) / 4 }
