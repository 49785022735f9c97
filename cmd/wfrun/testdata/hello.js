export const meta = { name: 'hello', description: 'asks one agent and returns its answer with the args' }

const answer = await agent(`Say hello to ${args?.who ?? 'nobody'}`, { label: 'greet' })
return { answer, who: args?.who ?? null }
