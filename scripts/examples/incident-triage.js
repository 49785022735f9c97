// DSH dialect with phases: gather evidence from every source in parallel(),
// then ask for a structured diagnosis. In the object form a schema call's
// envelope carries the validated object in `result`.
//
//   go run ./cmd/wfrun scripts/examples/incident-triage.js --meta @scripts/examples/incident-triage.meta.json --fake-rules scripts/examples/incident-triage.rules.json --events -
const incident = args?.incident ?? 'Checkout p99 latency rose from 300 ms to 4 s at 14:05 UTC'
const sources = ['deploy log', 'database metrics', 'payment provider status page', 'error tracker']

phase('Gather')
const evidence = await parallel(sources.map(source => () => agent({
  description: `read the ${source}`,
  prompt: `Incident: ${incident}\nRead the ${source} for the 30 minutes before the incident and report what changed, in one sentence.`,
})))
const found = evidence.filter(e => e.status === 'completed')
log(`evidence from ${found.length} of ${sources.length} sources`)

phase('Diagnose')
const DIAGNOSIS = {
  type: 'object',
  properties: {
    cause: { type: 'string' },
    confidence: { type: 'number', minimum: 0, maximum: 1 },
    action: { type: 'string' },
    evidence: { type: 'array', items: { type: 'string' } },
  },
  required: ['cause', 'confidence', 'action'],
}
const diagnosis = await agent({
  description: 'diagnose',
  prompt: `Incident: ${incident}\nFrom this evidence, name the most likely cause and the next action.\n` +
    found.map(e => `- ${e.label}: ${e.result}`).join('\n'),
  schema: DIAGNOSIS,
})
if (diagnosis.status !== 'completed') {
  return { incident, diagnosis: null, why: diagnosis.error }
}
log(`diagnosis: ${diagnosis.result.cause} (confidence ${diagnosis.result.confidence})`)

return {
  incident,
  diagnosis: diagnosis.result,
  unreadable: evidence.filter(e => e.status !== 'completed').map(e => `${e.label}: ${e.error}`),
}
