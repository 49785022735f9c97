export const meta = { name: 'live-notes', description: 'slow notes one after another, so that a page can watch them arrive' }

phase('Notes')
const notes = []
for (let i = 1; i <= args.count; i++) {
  notes.push(await agent(`Slow note ${i}.`, { label: `note ${i}` }))
}
return { notes }
