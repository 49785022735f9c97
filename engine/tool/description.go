package tool

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// MaxDescriptionChars is the most the workflow tool's description may
// grow to, personas included; a test holds it to that.
const MaxDescriptionChars = 10000

// EssentialChars is how much of the workflow tool's description every
// client shows: Claude Code cuts an MCP tool's description there (its
// default CLAUDE_CODE_MAX_MCP_DESCRIPTION_LENGTH). Everything a model needs
// to write a correct script — what is absent, the one complete example, the
// result, and the personas by name — comes before it; the details follow.
const EssentialChars = 4096

// Persona is one sub-agent persona a host offers: its agentType name and
// its one-line description. Hosts fill it from their persona files.
type Persona struct {
	Name        string
	Description string
}

// maxPersonaChars bounds one persona's line in the descriptions.
const maxPersonaChars = 160

// workflowEssentials is the workflow tool's description up to the persona
// names: with them it fits in EssentialChars. Every fenced js block of the
// description is a complete script that a test runs through the tool as
// written.
const workflowEssentials = "Run a workflow: a short JavaScript program that hands tasks to sub-agents (fresh models with their own context and tools) and returns one JSON value. " +
	"Use it for many similar tasks, a panel of independent opinions, or stages that feed each other; loops and fan-out cost you no turns. For one delegated task use the agent tool.\n" +
	`
ESSENTIALS
- Plain JavaScript, not TypeScript, run as the body of an async function: top-level await works, and the value you return (as JSON) is the result. Begin with meta as a pure literal: export const meta = { name: 'audit-handlers', description: 'what it does' } (name: letters, digits, - _ .), or pass that object as the meta parameter.
- agent(prompt, opts?) starts one sub-agent and resolves to its final text, or with opts.schema (a JSON Schema whose root is an object) to the validated object; to null when it fails, times out or is cancelled: handle null. A sub-agent sees only its prompt: put every fact it needs there.
- parallel(items.map(x => () => agent(...))) runs the thunks at once and resolves to their values in order (a throw gives null). pipeline(items, stage1, stage2, ...) sends each item through the stages with no barrier; a stage gets (prev, item, index). phase(title) and log(...values) report progress. args is the args parameter. budget.remaining() is the tokens left.
- ABSENT ON PURPOSE: Date.now(), new Date() without an argument and Math.random(), because a run must replay identically: pass the time or a seed in args. No require or import, files, network, process, timers or eval: ask a sub-agent to do I/O. A script that uses them is refused before it runs, with every such line named.
- Misuse and limits end the whole run, even inside try/catch, with a code and the line: fix that line and call workflow again. A sub-agent's failure is only null; the run goes on.

EXAMPLE (args: {"change": "cache sessions in Redis"})
` + "```js" + `
export const meta = { name: 'review-panel', description: 'Reviewers vote on a change, then one writes the verdict' }
const VOTE = { type: 'object', properties: { approve: { type: 'boolean' }, reason: { type: 'string' } }, required: ['approve', 'reason'] }
const change = args?.change ?? 'cache sessions in Redis'
phase('Review')
const votes = await parallel(['security', 'operations', 'cost'].map(role => () =>
  agent(` + "`You are the ${role} reviewer. Should we ship: ${change}? Vote, with one reason.`" + `, { label: role, schema: VOTE })))
const cast = votes.filter(Boolean)
phase('Verdict')
const verdict = await agent(` + "`Write a two-sentence verdict on \"${change}\" from these votes: ${JSON.stringify(cast)}`" + `)
return { approved: cast.filter(v => v.approve).length * 2 > cast.length, votes: cast.length, verdict }
` + "```" + `

RESULT
Parameters: one of script, scriptPath (a .js file of the workspace) or name (a saved workflow); scriptPath wins over script, script over name. Then meta, args, maxTotalAgents, budgetTokens, timeoutMs, background, resumeFromRunId. To iterate, write the script to a file of the workspace and pass scriptPath: edit the file and call workflow again with the same scriptPath. You get the line workflow "NAME" completed (N agents, T tokens, D s), the script's file, then the value as JSON; a long value is cut, with a notice naming the resource that holds it whole. The run's last log lines end the result. A run that did not complete is an error naming its code, sentence and line, never partial output; where the host keeps runs, call again with resumeFromRunId and the fixed script, and the agents that had finished answer from the journal for free. background: true returns {runId} at once; workflow_wait, workflow_status and workflow_cancel follow it.
`

// workflowDetails follows the essentials and the persona names: the
// reference a model reads when it needs more.
const workflowDetails = `
DETAILS
agent() options: label (or description), phase, schema, model, effort (low, medium, high or xhigh; max means xhigh), agentType (or persona: a persona named below), tools (names that narrow the sub-agent's tools, never widen them: Read, Write, Edit, Glob, Grep, Bash, TodoWrite and the host's MCP tools, named mcp__SERVER__TOOL; a read-only host has no Write or Edit), maxTurns, timeoutMs, isolation ('worktree': the sub-agent works in a git worktree of its own, and its changes come back on a branch). A key set to undefined counts as absent. An unknown option, or one the provider cannot honour, ends the run with UNSUPPORTED_OPTION: it is never silently ignored.
Object form: agent({prompt, ...opts}) never resolves to null but to {result, status, agentId, label, usage, error?, failure?}: status is 'completed', 'failed', 'timed_out' or 'cancelled'; result is null unless completed; usage is {inputTokens, outputTokens, costUSD}; error is a sentence for a person, failure the kind: upstream_unavailable, rate_limited, context_length, timeout, invalid_output (the answer did not match the schema), max_turns, task_failed or cancelled.
parallel vs Promise.all: Promise.all works too, but one throw rejects all of it. Pass functions to parallel, not promises. Prefer pipeline to awaiting a whole stage before starting the next: a slow item no longer holds back the others; inside a pipeline pass phase as an agent() option rather than calling phase(). log() lines are progress: the caller sees the latest ones. console.log is log.
budget: {total, spent(), remaining()} in tokens; without budgetTokens total is null and remaining() is Infinity. The check comes before each agent starts, so a run can end a little over its budget (512 used of 500): check budget.remaining() before each new round.
workflow(name, args?) runs a saved workflow inline (the saved workflows are listed at the end); workflow({scriptPath: 'flows/x.js'}, args?) runs a .js file of the workspace. One level deep.
Schemas: wrap a list in a property: {type: 'object', properties: {items: {type: 'array', items: {type: 'string'}}}, required: ['items']}. An answer that does not match makes that sub-agent fail, so you get null.
Codes that end a run: INVALID_ARGUMENT (a wrong argument), UNSUPPORTED_OPTION, UNSUPPORTED_SCHEMA, AGENT_CAP (more agent() calls than maxTotalAgents, default 1000), ITEM_CAP (more than 4096 items in one parallel or pipeline), BUDGET_EXHAUSTED, NESTING, RESOURCE_LIMIT (recursion too deep, a result over 16 MiB of JSON, the script holding more than 256 MiB), SCRIPT_ERROR (an uncaught throw), SCRIPT_STALLED (awaiting something that never settles), TIMEOUT (the deadline: timeoutMs, default one hour). SCRIPT_PARSE and META_INVALID are found before anything runs. At most 16 sub-agents run at once by default; further calls wait their turn.
`

// agentManual is the agent tool's description before the persona list.
const agentManual = `Delegate one task to a sub-agent: a fresh model with its own context and tools that works until it has an answer. It sees nothing but the prompt, so include every fact, file name and constraint it needs. The result is its final text, or with schema (a JSON Schema with an object root) the validated object. A sub-agent that fails comes back as an error naming the failure: upstream_unavailable, rate_limited, context_length, timeout, invalid_output, max_turns, task_failed or cancelled. For many tasks, or steps that feed each other, write a workflow instead.`

// SavedWorkflow is one saved workflow a host offers by name: the workflow
// tool's name parameter and a script's workflow(name).
type SavedWorkflow struct {
	Name        string
	Description string
}

// maxSavedChars bounds the saved workflows' section at the end of the
// description, so that a folder of many workflows leaves room for the
// personas.
const maxSavedChars = 2000

// workflowDescription is the workflow tool's description for personas
// and saved workflows: the essentials, the personas and the saved
// workflows by name, the details, each persona with its description while
// there is room, and last each saved workflow with its description.
func workflowDescription(personas []Persona, saved []SavedWorkflow) string {
	list := make([]Persona, len(saved))
	for i, w := range saved {
		list[i] = Persona(w)
	}
	head := workflowEssentials + personaNames(personas, "PERSONAS (agentType; described at the end): ", EssentialChars-utf8.RuneCountInString(workflowEssentials))
	head += personaNames(list, "SAVED WORKFLOWS (name; described at the end): ", EssentialChars-utf8.RuneCountInString(head))
	body := head + workflowDetails
	room := MaxDescriptionChars - utf8.RuneCountInString(body)
	workflows := ""
	if len(list) > 0 {
		workflows = personaSection(list, "run one with the name parameter, or with workflow(name) in a script", min(maxSavedChars, room/2))
		workflows = strings.Replace(workflows, "SUB-AGENT PERSONAS", "SAVED WORKFLOWS", 1)
	}
	return body + personaSection(personas, "use them as the agentType option of agent()",
		room-utf8.RuneCountInString(workflows)) + workflows
}

// personaNames is the short list of the personas (or saved workflows)
// that fits in room characters after head: their names, or as many as fit
// and a count of the rest.
func personaNames(personas []Persona, head string, room int) string {
	if len(personas) == 0 {
		return ""
	}
	const tail = "\n"
	line := head + names(personas) + tail
	if utf8.RuneCountInString(line) <= room {
		return line
	}
	for n := len(personas) - 1; n > 0; n-- {
		line = head + names(personas[:n]) + fmt.Sprintf(" and %d more", len(personas)-n) + tail
		if utf8.RuneCountInString(line) <= room {
			return line
		}
	}
	return ""
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
