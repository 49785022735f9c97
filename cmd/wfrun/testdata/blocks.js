export const meta = { name: 'blocks', description: 'a quick agent, then one that waits' }

const first = await agent('quick first')
return { first, second: await agent('blocks until killed, after ' + first) }
