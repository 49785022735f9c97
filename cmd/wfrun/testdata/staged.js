export const meta = { name: 'staged', description: 'notes in parallel, then a summary of them' }

phase('Notes')
const notes = await parallel(args.topics.map(t => () => agent(`Note on ${t}.`, { label: t })))
phase('Summary')
const summary = await agent(`Summarize: ${notes.join(' | ')}`)
return { notes, summary }
