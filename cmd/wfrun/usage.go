package main

import (
	"fmt"
	"runtime/debug"
)

// usage is the text of `wfrun --help` (golden file: testdata/help.golden).
const usage = `wfrun runs JavaScript workflow scripts: a script hands tasks to sub-agents
with agent(), fans out with parallel() and pipeline(), and returns one JSON
value, which wfrun prints as the run's result.

Usage:
  wfrun SCRIPT.js [flags]         run a script; print its result JSON on stdout
  wfrun [run] NAME [flags]        run the saved workflow NAME (when no file NAME exists)
  wfrun check SCRIPT.js [flags]   run every pre-check and execute nothing
  wfrun providers                 list the sub-agent providers and what they support
  wfrun doctor [--sandbox-network] [--sandbox-landlock-only]
                                  the sandbox layers this machine gives (Landlock,
                                  namespaces); exit 1 when sandboxed commands would
                                  be refused
  wfrun agents [--agents-dir DIR]... [--workspace DIR] [--json]
                                  list the personas (agentType) found and the
                                  persona files that failed to load
  wfrun workflows [--workflows-dir DIR]... [--workspace DIR] [--json]
                                  list the saved workflows (workflow(name), wfrun NAME)
                                  and the files that failed to load
  wfrun tool                      print the tools' definitions (workflow, agent, the
                                  background and sub-agent tools) as JSON
  wfrun mcp [flags]               serve the tools to MCP clients (stdio, or --http)
  wfrun agent "TASK" [flags]      a parent model (openai provider) that does TASK with
                                  the workflow, agent and sub-agent tools; prints its answer
  wfrun ralph "OBJECTIVE" [--max-rounds N] [flags]
                                  the Ralph loop: a fresh agent per round, each handing
                                  off to the next, until the objective is complete or
                                  blocked; prints the ending and the last handoff

Durable runs (docs/durability.md):
  wfrun resume RUNID [flags]      a new run of RUNID's saved request that replays the
                                  agents RUNID finished, for free, and runs the rest
  wfrun runs [--status S] [--name NAME] [--json]
                                  the runs of the ledger: id, name, status, agents,
                                  tokens, cost, age (S: running, completed, failed,
                                  cancelled, abandoned)
  wfrun show RUNID [--json]       a run, its lineage, its agents by phase (status,
                                  duration, tokens) and its timeline
  wfrun stop RUNID [--reason TEXT]
                                  cancel a live run, in whichever process runs it
  wfrun retry RUNID [flags]       a failed, cancelled or abandoned run again: a new
                                  run resumed from it, its child in the lineage
  wfrun continue RUNID [flags]    an abandoned run (its process died) resumed in place
  wfrun note RUNID TEXT           a note on the run's timeline; its status stays
  wfrun ui [--addr HOST:PORT]     a local web page over the ledger: the runs, each
                                  run's timeline and agents, live, and the verbs as
                                  buttons (docs/ui.md; default 127.0.0.1:7777)

Runs on Temporal (docs/scale-out.md):
  wfrun temporal dev [--port N] [--db FILE] [--tls DIR]
                                  a Temporal server on this machine (runs the
                                  wfrun-temporal program, built from engine/temporal/server)
  wfrun worker --temporal HOST:PORT [--task-queue Q] [flags]
                                  run workflows and their agents for the task queue, with
                                  the provider flags below, until Ctrl-C
  wfrun SCRIPT.js --temporal HOST:PORT [flags]
                                  run the script on Temporal: submitted, followed, and
                                  printed as the same result JSON
  wfrun mcp --temporal HOST:PORT [flags]
                                  the MCP server, its workflow tool's runs on Temporal
  wfrun runs --temporal HOST:PORT [--parent P] [--status S] [--name NAME] [--json]
                                  the runs of the namespace, by their search attributes

  wfrun --help | --version

Flags may come before or after SCRIPT.js. SCRIPT.js may be - to read the
script from stdin. A flag's value may follow it (--timeout 5m) or an equals
sign (--timeout=5m).

Input:
  --args JSON|@FILE      the script's args global, as JSON:
                           --args '{"topic":"vector databases"}'  or  --args @args.json
                         (@- reads it from stdin)
  --meta JSON|@FILE      the workflow's meta, for scripts without export const meta:
                           --meta '{"name":"research","description":"research then write"}'
                         A script with no meta anywhere is named after its file,
                         and a notice on stderr says so.
  --request FILE|-       a JSON WorkflowStartRequest (script, meta, args,
                         subagentProvider, maxTotalAgents, parent, model,
                         concurrency, timeoutMs, agentTimeoutMs, budgetTokens); flags given
                         explicitly override its fields, and SCRIPT.js its script
  --parent NAME          the agent that owns the run's children (default "cli")

Sub-agents:
  --provider NAME        the provider that runs every agent (see wfrun providers).
                         Default: openai when OPENAI_API_KEY, OPENAI_BASE_URL or
                         --base-url is set, else the offline fake provider, with a
                         notice on stderr
  --model NAME           the default model of the run's agents, in place of the
                         meta's model (a phase's or a call's own model still wins)
  --fake-rules FILE      canned outcomes for the fake provider (implies --provider
                         fake unless a provider is named), first match wins:
                           {"rules": [{"match": "^Audit", "reply": "…", "delayMs": 50,
                                       "fail": "…", "timeout": false,
                                       "usage": {"inputTokens": 10, "outputTokens": 5}}]}
  --workflows-dir DIR    where workflow(name) finds saved workflows (NAME.js) first;
                         repeatable. Then WORKSPACE/.claude/workflows,
                         WORKSPACE/.wfrun/workflows and ~/.claude/workflows
  --base-url URL         the OpenAI-compatible endpoint of the openai provider
                         (default OPENAI_BASE_URL, else api.openai.com with
                         OPENAI_API_KEY); its default model is --model or WFRUN_MODEL
  --mcp-config FILE      MCP servers whose tools the openai provider's agents may
                         use, as mcp__SERVER__TOOL: {"mcpServers": {"NAME":
                         {"command": "…", "args": […]} | {"url": "http://…"}}}
  --command-spec FILE    register an external agent CLI as a provider (named by
                         the spec's "name", default "command"); see docs/providers.md
  --acp-agent 'NAME=CMD ARGS…'
                         register an agent that speaks the Agent Client Protocol
                         on its stdio as the provider acp:NAME (repeatable):
                           --acp-agent 'claude=npx -y @zed-industries/claude-code-acp'
  --acp-config FILE      ACP agents from a file, each a provider acp:NAME:
                           {"agents": {"NAME": {"command": "…", "args": […],
                                                "env": {…}, "passEnv": […]}}}
  --transcripts DIR      write each openai agent's conversation to DIR/AGENT_ID.jsonl
  --prices FILE          USD per million tokens by model, over the built-in table:
                           {"my-model": {"input": 0.5, "output": 1.5}}
  --agents-dir DIR       a folder of persona files (Claude Code agent definitions,
                         NAME.md) that agentType may name; repeatable, searched
                         before WORKSPACE/.claude/agents, WORKSPACE/.wfrun/agents
                         and ~/.claude/agents
  --model-map MAP|@FILE  what model aliases mean at the endpoint:
                           --model-map haiku=gpt-4o-mini,sonnet=gpt-4.1,opus=o3
                         or a JSON file {"sonnet": {"model": "…", "contextWindow": N}};
                         an unmapped alias falls back to the run's model, with a note
  --workspace DIR        the folder the agents work in (default the current folder):
                         their tools (Read, Write, Edit, Glob, Grep, Bash) reach no
                         path outside it, and isolation: 'worktree' makes a git
                         worktree of it for the agent
  --sandbox MODE         what the agents' tools may do, enforced by the kernel
                         (namespaces and Landlock) for every command they run:
                           read-only           read anywhere, write nowhere
                           workspace-write     write only in the workspace and a
                                               temp folder (the default)
                           danger-full-access  no OS sandbox at all: commands run
                                               with all of your rights
                         A persona may narrow it (permissionMode: plan), never widen it
  --sandbox-network      let sandboxed commands open TCP connections (default: refused)
  --sandbox-hide PATH    a folder (absolute path) every sandboxed command sees empty;
                         repeatable
  --sandbox-landlock-only
                         on a machine without user namespaces, run sandboxed
                         commands under Landlock alone (weaker: no PID namespace,
                         no protected paths) instead of refusing them

Limits:
  --max-agents N         at most N agent() calls in the run (default 1000; a
                         request can lower the ceiling, never raise it)
  --concurrency N        at most N agents running at once (default 16)
  --timeout DURATION     the run's deadline as a Go duration: 90s, 5m, 1h30m
                         (default 1h); past it the run ends with TIMEOUT
  --agent-timeout DURATION
                         each agent's deadline (default none)
  --budget-tokens N      the run's token budget; agent() past it is BUDGET_EXHAUSTED
  --max-memory SIZE      the run's memory budget (default 256MiB; 512MiB, 1GiB, or
                         bytes): builtins that would allocate past it, and a script
                         that grows the heap past it, end the run with RESOURCE_LIMIT
  --max-run-folder SIZE  the size budget of a kept run's folder, its events.jsonl and
                         journal.jsonl together (default 256MiB); a run that would
                         write past it ends with RESOURCE_LIMIT, and can be resumed
                         with a larger budget
  --isolate MODE         process (the default): run the script in a child process of its
                         own, with an OS memory limit and no file system, so that a
                         script that crashes or exhausts its VM ends only its run (a
                         few ms per run); none: in wfrun's process. A resumed, retried
                         or continued run keeps none if it was started with it

Output:
  --events FILE|-        write every event as a JSON line to FILE (- = stderr):
                         run.start, phase, log, agent.start, agent.end, run.end
  --otlp-endpoint URL    export the run as OpenTelemetry traces over OTLP/HTTP to
                         a collector (http://localhost:4318); without it, traces
                         go where OTEL_EXPORTER_OTLP_ENDPOINT says, and nowhere
                         when that is unset (docs/observability.md)
  On a terminal, stderr shows a live progress line (phase, agents, tokens,
  elapsed time) unless --events - writes there. stdout carries only the result.

Runs folder:
  --runs-dir DIR         where runs are kept: a folder per run (request, script,
                         events, journal, result) and the run ledger DIR/ledger.db
                         (default $WFRUN_RUNS_DIR, else .wfrun/runs). The runs'
                         keys are in $WFRUN_STATE_DIR (else ~/.local/state/wfrun),
                         never in DIR. Every agent is journaled before the
                         script sees it; resume, retry and continue replay them.
                         resume takes --args; resume, retry and continue take the
                         provider and limit flags, which override the saved request
  --max-rounds N         wfrun ralph: at most N rounds (default 10); with
                         --budget-tokens, the loop ends budget-limited
  --addr HOST:PORT       wfrun ui: where the page listens (default 127.0.0.1:7777);
                         any address but loopback needs --auth-token, which every
                         request then carries (a ?token=TOKEN login sets a cookie).
                         Its retry and continue buttons run the run in wfrun ui's
                         process, with the provider and limit flags it was given

Temporal:
  --temporal HOST:PORT   the frontend of the Temporal server (wfrun temporal dev:
                         127.0.0.1:7233)
  --namespace NAME       the Temporal namespace (default "default")
  --task-queue NAME      where runs and their agents are queued (default "wfrun");
                         a client and its workers must name the same one
  --payloads DIR         where payloads over 4 KiB are kept, a reference in the
                         history (default ~/.wfrun/temporal-payloads); every worker
                         and client of a task queue must share it
  --address, --api-key, --tls, --tls-cert-path, --tls-key-path, --tls-ca-path,
  --tls-server-name, --profile, --config-file
                         the connection, as the Temporal CLI's flags, over its
                         temporal.toml profile and TEMPORAL_* variables;
                         --temporal config takes the address from those
  worker refuses --args, --meta, --request, --parent and --runs-dir: each run brings
  its request; --events there writes every event of the runs it works on. A run with
  --temporal leaves the providers' flags (--fake-rules, --base-url, --workspace, …) to
  the workers; --provider and --model still choose among theirs.

MCP server and parent agent (docs/tool.md):
  --http ADDR            wfrun mcp: serve streamable HTTP on ADDR (127.0.0.1:8765)
                         instead of stdio; any address but loopback needs a token
  --auth-token TOKEN     wfrun mcp --http and wfrun ui: every request must carry
                         Authorization: Bearer TOKEN, or gets 401 (default
                         $WFRUN_AUTH_TOKEN, which keeps it out of the process list)
  --print-script         wfrun agent: show each script the model writes on stderr
  mcp and agent take the provider flags above and --otlp-endpoint, and the
  limit flags become the defaults of every run the model starts. They refuse
  --args, --meta, --request and --parent: the model passes those with each call.

agents searches --agents-dir (repeatable, first), then WORKSPACE/.claude/agents,
WORKSPACE/.wfrun/agents (WORKSPACE: --workspace, default the current folder) and
~/.claude/agents; the first file to define a name wins. It exits 1 when a file
failed to load, after printing the listing. workflows searches saved workflows
the same way: --workflows-dir, WORKSPACE/.claude/workflows,
WORKSPACE/.wfrun/workflows, ~/.claude/workflows.

check takes the same flags except --events and --otlp-endpoint, and prints
  {"ok":true,"meta":{…},"warnings":[…]}  or  {"ok":false,"errorCode":…,"error":…}

Exit status:
  0    the run completed (check: every pre-check passed)
  1    the run failed or a pre-check failed; the JSON result says why in
       errorCode and error (and errorLine for a script error)
  2    bad invocation: unknown flag, missing script, unreadable file; a message
       on stderr and no JSON
  130  cancelled by SIGINT or SIGTERM; the JSON result is still printed, with
       every running agent cancelled. A second signal exits at once.

Examples:
  wfrun research.js --args '{"topic":"vector databases"}'
  wfrun audit.js --fake-rules audit.rules.json --events events.jsonl
  wfrun notes.js --meta @meta.json --args @args.json --timeout 10m --concurrency 4
  wfrun check research.js --meta '{"name":"research","description":"research then write"}'
  wfrun --request request.json --provider fake
  wfrun mcp --http 127.0.0.1:8765
  wfrun agent "Review docs/ for stale examples" --print-script
  wfrun runs --status failed
  wfrun ui --addr 127.0.0.1:7777
  wfrun resume wf_3f2a9c0d1e4b5a67 --budget-tokens 400000
  wfrun ralph "Make go test ./... pass" --max-rounds 20 --workspace ~/src/app
  wfrun temporal dev --port 7233 --db .wfrun/temporal.db
  wfrun worker --temporal 127.0.0.1:7233 --provider openai
  wfrun research.js --temporal 127.0.0.1:7233 --args '{"topic":"vector databases"}'
`

// shortUsage is printed when wfrun is run without arguments.
const shortUsage = `usage: wfrun SCRIPT.js [flags]
       wfrun [run] NAME [flags]
       wfrun check SCRIPT.js [flags]
       wfrun providers | tool | doctor
       wfrun agents [--agents-dir DIR]... [--workspace DIR] [--json]
       wfrun workflows [--workflows-dir DIR]... [--workspace DIR] [--json]
       wfrun mcp [flags]
       wfrun agent "TASK" [flags]
       wfrun ralph "OBJECTIVE" [--max-rounds N] [flags]
       wfrun resume | retry | continue RUNID [flags]
       wfrun runs [--status S] [--name NAME] [--json]
       wfrun show RUNID [--json] | stop RUNID | note RUNID TEXT
       wfrun temporal dev | worker --temporal HOST:PORT [flags]
Run 'wfrun --help' for the flags, examples and exit codes.
`

func help(e env) int {
	fmt.Fprint(e.stdout, usage)
	return exitCompleted
}

// version is the module version and VCS revision the binary was built from.
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown)"
	}
	v := info.Main.Version
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			v += " " + s.Value[:12]
		}
	}
	return v
}
