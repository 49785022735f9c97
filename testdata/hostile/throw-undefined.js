// hostile: throws undefined after an agent
// expect: SCRIPT_ERROR within 5s
await agent('first')
throw undefined
