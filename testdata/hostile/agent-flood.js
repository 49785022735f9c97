// hostile: 100,000 agent() calls
// expect: AGENT_CAP within 10s
const calls = []
for (let i = 0; i < 100000; i++) calls.push(agent('task ' + i))
return (await Promise.all(calls)).length
