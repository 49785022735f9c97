export const meta = { name: 'stdio', description: 'x' }
return await agent('over stdio')