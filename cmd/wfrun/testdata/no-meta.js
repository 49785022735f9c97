// DSH dialect: no meta in the script.
const r = await agent({ prompt: 'Summarise nothing', description: 'summarise' })
return { status: r.status }
