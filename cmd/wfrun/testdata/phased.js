export const meta = { name: 'phased', description: 'one phase, three agents' }

phase('Gather')
const notes = await parallel([1, 2, 3].map(n => () => agent(`note ${n}`)))
return notes.length
