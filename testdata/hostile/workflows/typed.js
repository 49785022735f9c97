export const meta = { name: 'typed', description: 'TypeScript, refused before it runs' }
const n: number = 1
return n
