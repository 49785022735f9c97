// Four reviewers judge one change at the same time; a majority of the verdicts
// that came back decides. A reviewer that fails is counted as an abstention.
//
//   go run ./cmd/wfrun scripts/examples/review-panel.js --fake-rules scripts/examples/review-panel.rules.json
//   go run ./cmd/wfrun scripts/examples/review-panel.js --args '{"change":"Drop the Redis session cache"}'
export const meta = {
  name: 'review-panel',
  description: 'Four reviewers judge one change in parallel; the majority decides whether it ships',
  whenToUse: 'Before merging a risky change, to get independent verdicts instead of one opinion',
}

const change = args?.change ?? 'Replace the Redis session cache with an in-process LRU of 10,000 entries per API pod'

const VERDICT = {
  type: 'object',
  properties: {
    approve: { type: 'boolean' },
    risk: { type: 'string', enum: ['low', 'medium', 'high'] },
    reason: { type: 'string' },
  },
  required: ['approve', 'risk', 'reason'],
}

const reviewers = [
  { role: 'correctness', focus: 'behaviour that changes for users' },
  { role: 'operations', focus: 'deploys, memory and failure modes' },
  { role: 'security', focus: 'data that could leak or outlive a revocation' },
  { role: 'cost', focus: 'what it costs to run' },
]

const verdicts = await parallel(reviewers.map(r => () =>
  agent(`You are the ${r.role} reviewer. Judge this change, looking for ${r.focus}.\nChange: ${change}`,
    { label: `${r.role} review`, schema: VERDICT })))

const votes = verdicts.flatMap((v, i) => v ? [{ role: reviewers[i].role, ...v }] : [])
const approvals = votes.filter(v => v.approve).length
const ship = approvals * 2 > votes.length

const note = await agent(
  `Write a two-sentence decision note: the change "${change}" will ${ship ? 'ship' : 'not ship yet'}.\n` +
  votes.map(v => `- ${v.role} (${v.approve ? 'approve' : 'reject'}, ${v.risk} risk): ${v.reason}`).join('\n'),
  { label: 'decision note' })

return {
  change,
  decision: ship ? 'ship' : 'hold',
  approvals,
  rejections: votes.length - approvals,
  abstained: reviewers.filter((r, i) => verdicts[i] === null).map(r => r.role),
  highestRisk: ['high', 'medium', 'low'].find(level => votes.some(v => v.risk === level)) ?? null,
  note,
}
