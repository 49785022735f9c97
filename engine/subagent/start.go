package subagent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/wfrun/wfrun/agentapi"
	"github.com/wfrun/wfrun/agentapi/schema"
	"github.com/wfrun/wfrun/engine/journal"
	"github.com/wfrun/wfrun/engine/ledger"
	"github.com/wfrun/wfrun/internal/human"
	"github.com/wfrun/wfrun/internal/wferr"
)

// The files of a child's folder.
const (
	RequestFile = "request.json" // the StartRequest, with the provider it runs on
)

// StartRequest is a child as its parent asks for it. Its JSON form is the
// subagent_start tool's input (without Provider) and the request.json of
// the child's folder.
type StartRequest struct {
	// Prompt is the task: the child's first message, and its first turn.
	Prompt string `json:"prompt"`
	// Label names the child in listings; "" means the prompt's first line.
	Label string `json:"label,omitempty"`
	// AgentType names the persona to run the child as.
	AgentType string `json:"agentType,omitempty"`
	// Schema, an object-rooted JSON Schema, is what every turn's answer
	// must satisfy.
	Schema json.RawMessage `json:"schema,omitempty"`
	Model  string          `json:"model,omitempty"`
	// Tools narrows the child's tools, never widens them.
	Tools []string `json:"tools,omitempty"`
	// Isolation is the provider's ("worktree": a git worktree of its own,
	// kept for the child's whole life).
	Isolation string `json:"isolation,omitempty"`
	// Provider runs the child; "" means Options.Provider. It is fixed for
	// the child's life.
	Provider string `json:"provider,omitempty"`
}

// options lists the options r uses, by their agent() names, for
// agentapi.CheckOptions.
func (r StartRequest) options() []string {
	var used []string
	if len(bytes.TrimSpace(r.Schema)) > 0 {
		used = append(used, "schema")
	}
	if r.Tools != nil {
		used = append(used, "tools")
	}
	if r.AgentType != "" {
		used = append(used, "agentType")
	}
	if r.Model != "" {
		used = append(used, "model")
	}
	if r.Isolation != "" {
		used = append(used, "isolation")
	}
	return used
}

// agentRequest is the provider's request for child id.
func (r StartRequest) agentRequest(id, owner string) agentapi.Request {
	return agentapi.Request{AgentID: id, Parent: owner, Label: r.Label, Schema: r.Schema, Model: r.Model,
		Persona: r.AgentType, Tools: r.Tools, Isolation: r.Isolation}
}

// Start starts a child of caller with req's task as its first turn, which
// runs in the background, and returns its entry at once. It is refused,
// with a sentence, when the caller is a child at the depth limit, the
// owner has as many live children as it may, the provider cannot run
// continuable children or honour an option, or the provider cannot set the
// child up (its worktree, its tools). ctx bounds the setting up only.
func (m *Manager) Start(ctx context.Context, caller Caller, req StartRequest) (Entry, error) {
	if err := m.refuseClosed(); err != nil {
		return Entry{}, err
	}
	if strings.TrimSpace(req.Prompt) == "" {
		return Entry{}, wferr.New(wferr.InvalidRequest, "a sub-agent needs a prompt: the whole task, in words, with every fact it needs")
	}
	depth, err := m.depthOf(caller)
	if err != nil {
		return Entry{}, err
	}
	if depth > m.opts.DepthLimit {
		return Entry{}, wferr.New(wferr.Nesting,
			"%s is at depth %d, the depth limit: a sub-agent that deep cannot start sub-agents of its own; do the work yourself, or report back to your parent and let it start one", caller.Child, depth-1)
	}
	if err := m.refuseTooMany(caller.Owner); err != nil {
		return Entry{}, err
	}
	if req.Provider == "" {
		req.Provider = m.opts.Provider
	}
	if req.Label == "" {
		req.Label = defaultLabel(req.Prompt)
	}
	prov, err := m.conversational(req.Provider)
	if err != nil {
		return Entry{}, err
	}
	if err := checkRequest(prov, req); err != nil {
		return Entry{}, err
	}

	id := newChildID()
	dir := filepath.Join(m.opts.Dir, id)
	folder, err := journal.At(dir)
	if err != nil {
		return Entry{}, wferr.Wrap(wferr.AgentStart, err, "cannot create the sub-agent's folder: %v; make %s writable", err, m.opts.Dir)
	}
	if err := folder.WriteJSON(RequestFile, req); err != nil {
		_ = os.RemoveAll(dir)
		return Entry{}, wferr.Wrap(wferr.AgentStart, err, "cannot save the sub-agent's request: %v", err)
	}
	conv, err := prov.Converse(ctx, agentapi.ConversationRequest{Request: req.agentRequest(id, caller.Owner),
		Tools: m.childTools(caller.Owner, id, depth), Dir: dir})
	if err != nil {
		_ = os.RemoveAll(dir)
		return Entry{}, providerError(req.Provider, err)
	}
	stored, _ := json.Marshal(req)
	row, err := m.led.CreateSubagent(ctx, ledger.Subagent{ID: id, Owner: caller.Owner, Parent: caller.Child, Depth: depth,
		Provider: req.Provider, Label: req.Label, Persona: req.AgentType, Model: req.Model, Request: stored, Dir: dir}, m.holder, req.Prompt)
	if err != nil {
		conv.Close(context.WithoutCancel(ctx), false)
		_ = os.RemoveAll(dir)
		return Entry{}, wferr.Wrap(wferr.ResourceLimit, err, "the sub-agent could not be recorded in the ledger (%v); nothing was started", err)
	}
	c := newChild(row, conv)
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		conv.Close(context.WithoutCancel(ctx), true)
		_ = m.led.ReleaseSubagent(context.WithoutCancel(ctx), id, m.holder)
		return Entry{}, wferr.New(wferr.Cancelled, "the sub-agent manager closed while the sub-agent was being started; it is ready, and a message wakes it")
	}
	m.children[id] = c
	m.mu.Unlock()
	m.kick(c)
	return m.entry(row), nil
}

// depthOf is the depth a child of caller would have.
func (m *Manager) depthOf(caller Caller) (int, error) {
	if caller.Child == "" {
		return 1, nil
	}
	s, err := m.led.GetSubagent(context.Background(), caller.Child)
	if err != nil || s.Owner != caller.Owner {
		return 0, wferr.New(wferr.InvalidRequest, "the calling sub-agent %s is not known here", caller.Child)
	}
	return s.Depth + 1, nil
}

// refuseTooMany refuses a start past the owner's limit of live children.
func (m *Manager) refuseTooMany(owner string) error {
	all, err := m.led.Subagents(context.Background(), owner)
	if err != nil {
		return wferr.Wrap(wferr.Internal, err, "cannot read the sub-agents from the ledger: %v", err)
	}
	live := 0
	for _, s := range all {
		if !s.Status.Ended() {
			live++
		}
	}
	if live >= m.opts.MaxChildren {
		return wferr.New(wferr.ResourceLimit,
			"%q already has %d sub-agents that have not been closed, the most it may have: close the ones you no longer need (subagent_close) before starting another", owner, live)
	}
	return nil
}

// conversational returns the provider called name, which must keep
// conversations and hold its children to the depth limit.
func (m *Manager) conversational(name string) (agentapi.Conversational, error) {
	p, ok := m.eng.Provider(name)
	if !ok {
		return nil, wferr.New(wferr.InvalidRequest, "the provider %q is not registered (registered: %s)", name, strings.Join(m.eng.Providers(), ", "))
	}
	cp, ok := p.(agentapi.Conversational)
	if !ok {
		return nil, wferr.New(wferr.UnsupportedOption,
			"the %q provider cannot run continuable sub-agents: its children do not outlive one answer. Use the agent tool for a one-shot sub-agent, or run wfrun with a provider that keeps conversations (openai)", name)
	}
	if !p.Capabilities().DepthLimit {
		return nil, wferr.New(wferr.UnsupportedOption,
			"the %q provider cannot hold its children to a depth limit (its capability depthLimit is false): they could start agents wfrun does not count, so it cannot run continuable sub-agents", name)
	}
	return cp, nil
}

// checkRequest refuses what the provider cannot honour before anything
// is set up.
func checkRequest(p agentapi.Provider, req StartRequest) error {
	if err := agentapi.CheckOptions(p.Name(), p.Capabilities(), req.options()); err != nil {
		return wferr.Wrap(wferr.UnsupportedOption, err, "%v", err)
	}
	if len(bytes.TrimSpace(req.Schema)) > 0 {
		if _, err := schema.Compile(req.Schema); err != nil {
			return wferr.Wrap(wferr.UnsupportedSchema, err, "the sub-agent's schema cannot be used: %v", err)
		}
	}
	if req.AgentType != "" {
		if pc, ok := p.(agentapi.PersonaChecker); ok {
			if err := pc.CheckPersona(req.AgentType); err != nil {
				return wferr.Wrap(wferr.UnsupportedOption, err, "%v", err)
			}
		}
	}
	return nil
}

// providerError renders an error of a provider that set a child up or ran
// its turn: its own code when it has one, else AGENT_START.
func providerError(name string, err error) error {
	var we *wferr.Error
	if errors.As(err, &we) {
		return err
	}
	return wferr.Wrap(wferr.AgentStart, err, "the %q provider could not set the sub-agent up: %v", name, err)
}

// childTools are the tools of a child at depth, bound to it as the parent
// of the children it starts: none at the depth limit.
func (m *Manager) childTools(owner, id string, depth int) agentapi.Toolbox {
	if m.opts.ChildTools == nil || depth >= m.opts.DepthLimit {
		return nil
	}
	return m.opts.ChildTools(Caller{Owner: owner, Child: id})
}

// defaultLabel is the prompt's first non-empty line, at most 48
// characters, as a workflow child's.
func defaultLabel(prompt string) string {
	if label := human.FirstLine(prompt, 48); label != "" {
		return label
	}
	return "sub-agent"
}
