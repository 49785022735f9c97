export const meta = { name: 'review', description: 'One persona reads one real file and reports in a schema' }

const FINDINGS = {
  type: 'object',
  properties: { findings: { type: 'array', items: { type: 'object',
    properties: { line: { type: 'integer' }, issue: { type: 'string' } }, required: ['line', 'issue'] } } },
  required: ['findings'],
}
const report = await agent('Review api/users.go for handlers that change state without an authorization check.',
  { agentType: 'reviewer', schema: FINDINGS })
return { findings: report?.findings ?? null }
