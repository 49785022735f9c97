package setup

import (
	"flag"
	"fmt"
	"path/filepath"

	fv "github.com/wfrun/wfrun/internal/flagvalue"
)

// Flags are the sub-agent flags of wfrun, as given: the provider and its
// settings, the personas and saved workflows, the workspace and its
// sandbox. Bind defines them on a flag set; each field holds its flag's
// text, "" (or nil) when not given.
type Flags struct {
	Provider, Model, FakeRules      string   // --provider, --model, --fake-rules
	WorkflowsDirs                   []string // --workflows-dir
	BaseURL, MCPConfig, CommandSpec string   // --base-url, --mcp-config, --command-spec
	ACPAgents                       []string // --acp-agent
	ACPConfig, Transcripts, Prices  string   // --acp-config, --transcripts, --prices
	AgentsDirs                      []string // --agents-dir
	ModelMap, Workspace             string   // --model-map, --workspace
	SandboxFlags
}

// SandboxFlags say what the agents' commands may do.
type SandboxFlags struct {
	Sandbox        string   // --sandbox
	SandboxNetwork bool     // --sandbox-network
	SandboxHide    []string // --sandbox-hide
	LandlockOnly   bool     // --sandbox-landlock-only
}

// Bind defines the sub-agent flags on fs, with wfrun's help texts; every
// value is checked as it is parsed.
func (f *Flags) Bind(fs *flag.FlagSet) {
	fv.Text(fs, &f.Provider, "provider", "the provider, by `NAME`, that runs every agent (see wfrun providers). Default: openai when OPENAI_API_KEY, OPENAI_BASE_URL or --base-url is set, else the offline fake provider, with a notice on stderr")
	fv.Text(fs, &f.Model, "model", "the default model, by `NAME`, of the run's agents, in place of the meta's model (a phase's or a call's own model still wins)")
	fv.Text(fs, &f.FakeRules, "fake-rules", "canned outcomes for the fake provider in `FILE` (implies --provider fake unless a provider is named), first match wins:\n"+
		`  {"rules": [{"match": "^Audit", "reply": "…", "delayMs": 50,`+"\n"+
		`              "fail": "…", "timeout": false,`+"\n"+
		`              "usage": {"inputTokens": 10, "outputTokens": 5}}]}`)
	BindWorkflowsDir(fs, &f.WorkflowsDirs)
	fv.Text(fs, &f.BaseURL, "base-url", "the OpenAI-compatible `URL` of the openai provider (default OPENAI_BASE_URL, else api.openai.com with OPENAI_API_KEY); its default model is --model or WFRUN_MODEL")
	fv.Text(fs, &f.MCPConfig, "mcp-config", "MCP servers in `FILE` whose tools the openai provider's agents may use, as mcp__SERVER__TOOL:\n"+
		`  {"mcpServers": {"NAME": {"command": "…", "args": […]}`+"\n"+
		`                | {"url": "http://…"}}}`)
	fv.Text(fs, &f.CommandSpec, "command-spec", "register an external agent CLI as a provider, its spec in `FILE` (named by its \"name\", default \"command\"; docs/providers.md)")
	fv.List(fs, &f.ACPAgents, "acp-agent", "register `'NAME=CMD ARGS…'`, an agent that speaks the Agent Client Protocol on its stdio, as the provider acp:NAME; repeatable:\n"+
		"  --acp-agent 'claude=npx -y @zed-industries/claude-code-acp'", nil)
	fv.Text(fs, &f.ACPConfig, "acp-config", "the ACP agents of `FILE`, each a provider acp:NAME:\n"+
		`  {"agents": {"NAME": {"command": "…", "args": […],`+"\n"+
		`                       "env": {…}, "passEnv": […]}}}`)
	fv.Text(fs, &f.Transcripts, "transcripts", "write each openai agent's conversation to `DIR`/AGENT_ID.jsonl")
	fv.Text(fs, &f.Prices, "prices", "USD per million tokens by model, in `FILE`, over the built-in table:\n"+
		`  {"my-model": {"input": 0.5, "output": 1.5}}`)
	BindAgentsDir(fs, &f.AgentsDirs)
	fv.Text(fs, &f.ModelMap, "model-map", "what model aliases mean at the endpoint, `MAP|@FILE`:\n"+
		"  --model-map haiku=gpt-4o-mini,sonnet=gpt-4.1,opus=o3\n"+
		`or a JSON file {"sonnet": {"model": "…", "contextWindow": N}}; an unmapped alias falls back to the run's model, with a note`)
	BindWorkspace(fs, &f.Workspace)
	f.SandboxFlags.Bind(fs)
}

// Bind defines the sandbox flags on fs.
func (f *SandboxFlags) Bind(fs *flag.FlagSet) {
	fv.Text(fs, &f.Sandbox, "sandbox", "what the agents' tools may do, enforced by the kernel (namespaces and Landlock) for every command they run; the `MODE` is\n"+
		"  read-only           read anywhere, write nowhere\n"+
		"  workspace-write     write in the workspace and a temp\n"+
		"                      folder (the default)\n"+
		"  danger-full-access  no OS sandbox at all: commands\n"+
		"                      run with all of your rights\n"+
		"A persona may narrow it (permissionMode: plan), never widen it")
	BindSandboxNetwork(fs, &f.SandboxNetwork)
	fv.List(fs, &f.SandboxHide, "sandbox-hide", "a folder, its absolute `PATH`, that every sandboxed command sees empty; repeatable (wfrun's state folder is always hidden)", func(v string) error {
		if !filepath.IsAbs(v) {
			return fmt.Errorf("--sandbox-hide %q is not an absolute path; give the folder to hide from sandboxed commands as an absolute path", v)
		}
		return nil
	})
	BindLandlockOnly(fs, &f.LandlockOnly)
}

// BindWorkflowsDir defines --workflows-dir, for a command that takes it
// without the other sub-agent flags.
func BindWorkflowsDir(fs *flag.FlagSet, p *[]string) {
	fv.List(fs, p, "workflows-dir", "a `DIR` where workflow(name) finds saved workflows (NAME.js) first; repeatable. Then WORKSPACE/.claude/workflows, WORKSPACE/.wfrun/workflows and ~/.claude/workflows", nil)
}

// BindAgentsDir defines --agents-dir.
func BindAgentsDir(fs *flag.FlagSet, p *[]string) {
	fv.List(fs, p, "agents-dir", "a `DIR` of persona files (Claude Code agent definitions, NAME.md) that agentType may name; repeatable, searched before WORKSPACE/.claude/agents, WORKSPACE/.wfrun/agents and ~/.claude/agents; the first file to define a name wins", nil)
}

// BindWorkspace defines --workspace.
func BindWorkspace(fs *flag.FlagSet, p *string) {
	fv.Text(fs, p, "workspace", "the `DIR` the agents work in (default the current folder): their tools (Read, Write, Edit, Glob, Grep, Bash) reach no path outside it, and isolation: 'worktree' makes a git worktree of it for the agent")
}

// BindSandboxNetwork defines --sandbox-network.
func BindSandboxNetwork(fs *flag.FlagSet, p *bool) {
	fs.BoolVar(p, "sandbox-network", false, "let sandboxed commands open TCP connections (default: refused)")
}

// BindLandlockOnly defines --sandbox-landlock-only.
func BindLandlockOnly(fs *flag.FlagSet, p *bool) {
	fs.BoolVar(p, "sandbox-landlock-only", false, "on a machine without user namespaces, run sandboxed commands under Landlock alone (weaker: no PID namespace, no protected paths) instead of refusing them")
}

// RemoteFlags refuses, among given (the names of the flags given), the
// first flag that a run on Temporal does not take, because the cluster's
// workers execute it: --runs-dir, --otlp-endpoint and --isolate, then the
// sub-agent flags (Flags) but --provider and --model, which still pick one
// of the workers' providers. It returns nil when none was given.
func RemoteFlags(given map[string]bool) error {
	for _, name := range []string{"runs-dir", "otlp-endpoint", "isolate"} {
		if given[name] {
			return fmt.Errorf("--%s does not apply to a run on Temporal, which the cluster's workers execute (and replay from its history); drop it or --temporal", name)
		}
	}
	workers := flag.NewFlagSet("", flag.ContinueOnError)
	new(Flags).Bind(workers)
	var refused error
	workers.VisitAll(func(f *flag.Flag) {
		if given[f.Name] && f.Name != "provider" && f.Name != "model" && refused == nil {
			refused = fmt.Errorf("--%s configures the providers, and on Temporal the workers run them: give it to wfrun worker (--provider still picks one of theirs)", f.Name)
		}
	})
	return refused
}
