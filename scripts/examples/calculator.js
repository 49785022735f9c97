// One agent answers with a schema after using a tool. Offline, the fake
// provider plays the agent; against a real model, run it with an MCP server
// that has an add tool:
//   wfrun scripts/examples/calculator.js --provider openai --mcp-config mcp.json
export const meta = {
  name: 'calculator',
  description: 'An agent adds two numbers with the add tool and answers in a schema',
}

const SUM = { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] }
const a = args?.a ?? 2
const b = args?.b ?? 3

const answer = await agent(`What is ${a}+${b}? Use the add tool, then answer with the sum.`,
  { label: 'add', schema: SUM, tools: ['mcp__calc__add'] })
log(`the agent says ${a}+${b} = ${answer?.sum}`)
return { a, b, sum: answer?.sum ?? null, correct: answer?.sum === a + b }
