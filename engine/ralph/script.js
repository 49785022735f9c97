export const meta = {
  name: 'ralph',
  description: 'The Ralph loop: fresh rounds work toward one objective, each handing off to the next, until it is complete or blocked',
  phases: [{ title: 'Rounds', detail: 'one fresh agent per round, seeing only the objective and the last handoff' }],
}

const HANDOFF = {
  type: 'object',
  properties: {
    status: { type: 'string', enum: ['continue', 'complete', 'blocked'] },
    summary: { type: 'string' },
    evidence: { type: 'array', items: { type: 'string' } },
    nextSteps: { type: 'array', items: { type: 'string' } },
    blocker: { type: 'string' },
  },
  required: ['status', 'summary', 'evidence', 'nextSteps'],
  // A finished handoff: what a round that met the objective answers (and
  // what the offline fake provider answers, so that a dry run completes).
  examples: [{ status: 'complete', summary: 'The objective is met.', evidence: ['what shows it: a file, a command and its output'], nextSteps: [] }],
}

// broken says which rule a handoff breaks, or null.
function broken(h) {
  const size = JSON.stringify(h).length
  if (size > args.maxHandoffChars) return `the handoff is ${size} characters of JSON, over the limit of ${args.maxHandoffChars}; it is not truncated`
  const blocker = (h.blocker || '').trim()
  switch (h.status) {
    case 'continue':
      if (h.nextSteps.length === 0) return 'a continue handoff needs next steps'
      if (blocker) return 'a continue handoff has no blocker: answer blocked instead'
      return null
    case 'complete':
      if (h.evidence.length === 0) return 'a complete handoff needs evidence that the objective is met'
      if (h.nextSteps.length > 0) return 'a complete handoff has no next steps: answer continue instead'
      return null
    case 'blocked':
      return blocker ? null : 'a blocked handoff needs the blocker: what stops the work'
  }
  return `unknown status ${JSON.stringify(h.status)}`
}

function prompt(round, last) {
  const handoff = last === null
    ? 'This is the first round: there is no handoff yet.'
    : `The handoff of round ${round - 1}:\n${JSON.stringify(last, null, 2)}`
  return `You are round ${round} of a Ralph loop: a fresh agent that works toward one objective in a shared workspace, sees only the objective and the last round's handoff, and hands off to the next round.

Objective:
${args.objective}

${handoff}

Do as much real work toward the objective as you can in this round, in the workspace. Then answer with your handoff:
- status "complete" when the objective is met: evidence lists what shows it (files, commands and their output), nextSteps is empty;
- status "continue" when work remains: nextSteps says what the next round should do first, and there is no blocker;
- status "blocked" when the work cannot go on: blocker says what stops it and what would unblock it.
summary says what this round did. Keep the handoff under ${args.maxHandoffChars} characters of JSON.`
}

let last = null
for (let round = 1; round <= args.maxRounds; round++) {
  if (budget.remaining() <= 0) {
    return { ending: 'budget-limited', reason: `the token budget of ${budget.total} is spent`, rounds: round - 1, handoff: last }
  }
  phase('Rounds')
  const r = await agent({ prompt: prompt(round, last), schema: HANDOFF, label: `round ${round}` })
  if (r.status !== 'completed') {
    return { ending: 'round-failed', round, reason: `the round's agent ${r.status}: ${r.error}`, rounds: round - 1, handoff: last }
  }
  const why = broken(r.result)
  if (why !== null) {
    return { ending: 'round-failed', round, reason: why, rounds: round - 1, handoff: last }
  }
  last = r.result
  log(`round ${round}: ${last.status}: ${last.summary}`)
  if (last.status !== 'continue') {
    return { ending: last.status, rounds: round, handoff: last }
  }
}
return { ending: 'budget-limited', reason: `the round cap of ${args.maxRounds} is reached`, rounds: args.maxRounds, handoff: last }
