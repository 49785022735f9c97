export const meta = {
  name: 'release-review',
  description: 'Reviewers read a change in parallel, a checker verifies each finding, and a writer sums up',
  whenToUse: 'Before shipping a change that touches several subsystems',
  phases: [
    { title: 'Review', detail: 'one reviewer per area, three at a time' },
    { title: 'Verify', detail: 'each finding checked on its own' },
    { title: 'Report' },
  ],
}

const FINDING = {
  type: 'object',
  properties: { area: { type: 'string' }, risk: { type: 'string', enum: ['low', 'medium', 'high'] }, finding: { type: 'string' } },
  required: ['area', 'risk', 'finding'],
}

phase('Review')
const areas = args.areas
const findings = await parallel(areas.map(area => () =>
  agent(`Review the ${area} of: ${args.change}`, { label: `${area} review`, schema: FINDING, agentType: 'reviewer' })))

phase('Verify')
const verified = await pipeline(findings.filter(Boolean),
  f => agent(`Verify the finding about ${f.area}: ${f.finding}`, { label: `verify ${f.area}` }))

phase('Report')
const report = await agent(`Write the report from ${verified.filter(Boolean).length} verified findings.`, { label: 'report' })
return { findings: findings.filter(Boolean), verified: verified.length, report }
