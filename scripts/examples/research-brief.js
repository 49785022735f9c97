// DSH dialect: meta comes from the request (--meta), and agent() takes one
// object and always resolves to an envelope {result, status, agentId, label,
// usage} — with error and failure set when the child did not complete.
//
//   go run ./cmd/wfrun scripts/examples/research-brief.js --meta @scripts/examples/research-brief.meta.json --fake-rules scripts/examples/research-brief.rules.json
const topic = args?.topic ?? 'WebAssembly outside the browser'
const angles = ['history', 'runtimes in production', 'open problems', 'competing approaches']

const notes = await Promise.all(angles.map(angle => agent({
  description: `research ${angle}`,
  prompt: `Research the ${angle} of ${topic}. Reply with three dense bullet points and their sources.`,
})))

const usable = notes.filter(n => n.status === 'completed')
for (const n of notes) {
  if (n.status !== 'completed') log(`${n.label}: ${n.status} (${n.failure}): ${n.error}`)
}

const writer = await agent({
  description: 'write the brief',
  prompt: `Write a short brief on ${topic} from these notes:\n\n${usable.map(n => n.result).join('\n\n')}`,
})

const all = [...notes, writer]
return {
  topic,
  brief: writer.status === 'completed' ? writer.result : null,
  angles: usable.map(n => n.label),
  missing: notes.filter(n => n.status !== 'completed').map(n => ({ label: n.label, status: n.status, failure: n.failure })),
  tokens: all.reduce((sum, n) => sum + n.usage.inputTokens + n.usage.outputTokens, 0),
}
