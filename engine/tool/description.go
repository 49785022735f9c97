package tool

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// MaxDescriptionChars is the most the workflow tool's description may
// grow to, personas included; a test holds it to that.
const MaxDescriptionChars = 8000

// Persona is one sub-agent persona a host offers: its agentType name and
// its one-line description. Hosts fill it from their persona files.
type Persona struct {
	Name        string
	Description string
}

// maxPersonaChars bounds one persona's line in the descriptions.
const maxPersonaChars = 160

// workflowManual is the workflow tool's description before the persona
// list. Every fenced js block in it is a complete script that a test
// runs through the tool as written.
const workflowManual = "Run a workflow: a short JavaScript program that hands tasks to sub-agents and returns one JSON value. " +
	"You write the script; wfrun runs it in a sandbox, starts every sub-agent (a fresh model with its own context and tools) and gives you the result.\n" +
	`
WHEN TO USE IT
- Many similar tasks (one agent per file, item or angle), independent opinions (a panel that votes), or stages that feed each other (find, then verify each finding). Loops, fan-out and filtering run in the script, so they cost you no turns and no context.
- One delegated task is not a workflow: use the agent tool. Do small work yourself.

THE SCRIPT
Plain JavaScript, not TypeScript. The body runs as an async function: top-level await and return work, and the returned value, as JSON, is the result. Begin with meta as a pure literal (no variables, calls or spreads):
  export const meta = { name: 'audit-handlers', description: 'Audit each handler, then verify the findings' }
or pass that object as the meta parameter instead. name: 1-64 letters, digits, '-', '_', '.'; description: required. Optional: whenToUse, model, phases: [{title, detail?, model?}]. No meta anywhere is META_INVALID.

GLOBALS
- agent(prompt, opts?) starts one sub-agent. It resolves to the final text, or with opts.schema to the validated object, and to null when the sub-agent fails, times out or is cancelled: handle null (list.filter(Boolean), answer ?? fallback). A sub-agent sees only its prompt, so put every fact it needs there.
  Options: label, phase, schema, model, effort, agentType, tools (names; narrows, never widens), maxTurns, timeoutMs, isolation. A key set to undefined counts as absent. An unknown option, or one the provider cannot honour, ends the run (UNSUPPORTED_OPTION): it is never silently ignored.
  Object form: agent({prompt, ...opts}) resolves to {result, status, agentId, label, usage, error?, failure?}, never null; result is null unless status is 'completed'.
- parallel(thunks) calls zero-argument functions at once and resolves to their values in order; a thunk that throws gives null. Pass functions, not promises: parallel(items.map(x => () => agent(...))). Promise.all works too, but one throw rejects all of it.
- pipeline(items, ...stages) sends each item through the stages on its own, with no barrier between stages. A stage gets (prev, item, index); stage one's prev is the item. A stage that throws drops that item to null. Prefer it to awaiting a whole stage before starting the next: a slow item no longer holds back the others. Inside a pipeline pass phase as an agent() option rather than calling phase().
- phase(title) starts a phase (progress, and the default phase of later agents). log(...values) writes a progress line; console.log is the same.
- args is the args parameter, verbatim (undefined when absent): const topic = args?.topic ?? 'a default'.
- budget: {total, spent(), remaining()} in tokens; total is null without budgetTokens. Check budget.remaining() before each new round of work.
- workflow(name, args?) runs a saved workflow inline, if the host has a workflows folder; one level deep.

SCHEMAS
schema is a JSON Schema whose root is an object; wrap a list in a property: {type: 'object', properties: {items: {type: 'array', items: {type: 'string'}}}, required: ['items']}. Every answer is validated; one that does not match makes that sub-agent fail, so you get null.

FATAL ERRORS AND FAILURES
A sub-agent's failure is data (null); the run goes on. Misuse and tripped limits end the whole run, even inside try/catch, with a code: INVALID_ARGUMENT (a wrong argument), UNSUPPORTED_OPTION, UNSUPPORTED_SCHEMA, AGENT_CAP (more agent() calls than maxTotalAgents, default 1000), ITEM_CAP (more than 4096 items in one parallel or pipeline), BUDGET_EXHAUSTED, NESTING, RESOURCE_LIMIT (recursion too deep, a result over 16 MiB of JSON, the script holding more than 256 MiB). An uncaught throw is SCRIPT_ERROR; awaiting something that never settles is SCRIPT_STALLED; the deadline (timeoutMs, default one hour) is TIMEOUT. Syntax errors (SCRIPT_PARSE) and meta errors (META_INVALID) are found before anything runs. The error names the code, the cause and the line: fix that line and call workflow again. A failed run returns no value, never partial output. By default at most 16 sub-agents run at once; further calls wait their turn.

ABSENT ON PURPOSE
No require or import, no files, network, process or environment: ask a sub-agent to do I/O, or pass data in args. No timers: await agent results. Date.now(), new Date() and Math.random() throw, because a run must replay identically: pass the time or a seed in args (new Date(args.now) works). No eval or new Function.

EXAMPLE (args: {"change": "cache sessions in Redis"})
` + "```js" + `
export const meta = { name: 'review-panel', description: 'Three reviewers vote on a change, then one writes the verdict' }
const VOTE = { type: 'object', properties: { approve: { type: 'boolean' }, reason: { type: 'string' } }, required: ['approve', 'reason'] }
const change = args?.change ?? 'cache sessions in Redis'
phase('Review')
const votes = await parallel(['security', 'operations', 'cost'].map(role => () =>
  agent(` + "`You are the ${role} reviewer. Should we ship this change: ${change}? Answer with your vote and one reason.`" + `, { label: role, schema: VOTE })))
const cast = votes.filter(Boolean)
phase('Verdict')
const verdict = await agent(` + "`Write a two-sentence verdict on \"${change}\" from these votes: ${JSON.stringify(cast)}`" + `)
return { approved: cast.filter(v => v.approve).length * 2 > cast.length, votes: cast.length, verdict }
` + "```" + `

PARAMETERS AND RESULT
script (required), meta, args, maxTotalAgents, budgetTokens, timeoutMs, background, resumeFromRunId. The result is the line: workflow "NAME" completed (N agents, T tokens, D s), then the value as JSON; a long value is cut, with a notice that names where the whole value is. A run that did not complete is an error naming its code, sentence and line. When the host keeps runs, the error says so: call workflow again with resumeFromRunId and the script (fixed, if it was wrong), and the unchanged agent() calls that had finished return their journaled answers at no cost; the first changed, failed or unfinished call and all after it run again. With background: true you get {runId} at once; then workflow_wait returns the result, workflow_status the progress, workflow_cancel stops it and workflow_list shows your runs.
`

// agentManual is the agent tool's description before the persona list.
const agentManual = `Delegate one task to a sub-agent: a fresh model with its own context and tools that works until it has an answer. It sees nothing but the prompt, so include every fact, file name and constraint it needs. The result is its final text, or with schema (a JSON Schema with an object root) the validated object. A sub-agent that fails comes back as an error naming the failure: upstream_unavailable, rate_limited, context_length, timeout, invalid_output, max_turns, task_failed or cancelled. For many tasks, or steps that feed each other, write a workflow instead.`

// workflowDescription is the workflow tool's description for personas.
func workflowDescription(personas []Persona) string {
	return workflowManual + personaSection(personas, "use them as the agentType option of agent()",
		MaxDescriptionChars-utf8.RuneCountInString(workflowManual))
}

// agentDescription is the agent tool's description for personas.
func agentDescription(personas []Persona) string {
	return agentManual + "\n" + personaSection(personas, "pass one as agentType",
		MaxDescriptionChars-utf8.RuneCountInString(agentManual)-1)
}

// personaSection lists the personas in at most room characters: each
// with its description while they fit, then the names of the rest.
func personaSection(personas []Persona, use string, room int) string {
	if len(personas) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\nSUB-AGENT PERSONAS (%s)\n", use)
	for i, p := range personas {
		d := strings.Join(strings.Fields(p.Description), " ")
		if r := []rune(d); len(r) > maxPersonaChars {
			d = string(r[:maxPersonaChars-1]) + "…"
		}
		line := "- " + p.Name + "\n"
		if d != "" {
			line = "- " + p.Name + ": " + d + "\n"
		}
		rest := names(personas[i+1:])
		if n := utf8.RuneCountInString(b.String() + line); n > room || (rest != "" && n+len(rest)+20 > room) {
			b.WriteString("- also: " + names(personas[i:]) + "\n")
			break
		}
		b.WriteString(line)
	}
	out := b.String()
	if r := []rune(out); len(r) > room {
		out = string(r[:room-2]) + "…\n"
	}
	return out
}

// names joins the personas' names with commas.
func names(personas []Persona) string {
	ns := make([]string, len(personas))
	for i, p := range personas {
		ns[i] = p.Name
	}
	return strings.Join(ns, ", ")
}

const statusDescription = `The progress of a workflow run started with background: true: its meta, status (running, completed, cancelled or error), current phase, agents running, done and failed, tokens used and time elapsed. It returns at once; to wait for the result use workflow_wait.`

const waitDescription = `Wait for a workflow run started with background: true. It returns the run's result as the workflow tool would (the value, or an error naming the code and line) as soon as the run has finished, or the run's progress when timeoutMs passes first (default 30000, at most 600000); the run goes on, so call it again.`

const cancelDescription = `Cancel a workflow run started with background: true: no new sub-agent starts, the running ones are cancelled, and the run ends as cancelled. It returns the run's final status. A run that has already finished is left as it is.`

const listDescription = `List your recent workflow runs, foreground and background, newest first, each with its id, name, status, agents and tokens. Finished runs are kept for a while (by default an hour, and the last 100); when the host keeps a run ledger, runs of earlier sessions are listed too, abandoned ones (their process died) included.`

const ralphDescription = `Run the Ralph loop on one objective: a fresh sub-agent per round works toward it in the shared workspace, sees only the objective and the last round's handoff, and hands off {status: continue|complete|blocked, summary, evidence[], nextSteps[], blocker}. The loop ends complete (evidence, no next steps), blocked (a blocker), budget-limited (maxRounds, default 10, or budgetTokens) or round-failed (a round's agent failed or its handoff broke the rules: continue needs next steps and no blocker, complete needs evidence and no next steps, blocked needs the blocker, and an oversized handoff fails). The result is the ending, the rounds and the last good handoff. Use it for open-ended work whose steps you cannot write down in advance but whose done you can state; give an objective that says how to tell it is done. A stopped loop resumes at its next round with resumeFromRunId.`
