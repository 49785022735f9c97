// A loop that spends a token budget with care: each round asks a fresh agent
// for edge cases not found yet, and the loop stops when a round finds nothing
// new or when the budget left would not cover another round like the last.
// Without a budget, budget.total is null and budget.remaining() is Infinity.
//
//   go run ./cmd/wfrun scripts/examples/edge-case-hunt.js --fake-rules scripts/examples/edge-case-hunt.rules.json --budget-tokens 4000
export const meta = {
  name: 'edge-case-hunt',
  description: 'Hunt for edge cases round by round until a round finds nothing new or the token budget runs low',
}

const target = args?.target ?? 'ISO-8601 date parsing'
const maxRounds = args?.maxRounds ?? 8
const FOUND = {
  type: 'object',
  properties: { cases: { type: 'array', items: { type: 'string' } } },
  required: ['cases'],
}

const cases = []
let round = 0
let lastCost = 0
let stoppedBy = 'maxRounds'
while (round < maxRounds) {
  if (budget.remaining() < lastCost * 1.5) {
    log(`stopping: ${budget.remaining()} tokens left and the last round cost ${lastCost}`)
    stoppedBy = 'budget'
    break
  }
  round++
  const before = budget.spent()
  const reply = await agent(
    `Round ${round}. List edge cases of ${target} that are not in this list:\n` +
    (cases.length ? cases.map(c => `- ${c}`).join('\n') : '(none yet)'),
    { label: `round ${round}`, schema: FOUND })
  lastCost = budget.spent() - before
  const fresh = (reply?.cases ?? []).filter(c => !cases.includes(c))
  cases.push(...fresh)
  log(`round ${round}: ${fresh.length} new, ${budget.spent()} tokens spent`)
  if (fresh.length === 0) {
    stoppedBy = 'nothing new'
    break
  }
}

return { target, rounds: round, stoppedBy, tokens: { total: budget.total, spent: budget.spent() }, cases }
