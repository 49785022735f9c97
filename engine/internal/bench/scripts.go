package main

import "strconv"

// The workload scripts. Both sides run the same text: the Node worker turns
// the meta export into a constant and runs the rest as an async function.

const trivialScript = `export const meta = { name: 'trivial', description: 'one agent' }
return { answer: await agent('say hi') }`

const fourScript = `export const meta = { name: 'four', description: 'four agents at once' }
const r = await Promise.all(['a', 'b', 'c', 'd'].map(x => agent('task ' + x)))
return r.length`

// fanOutScript fans out to n children at once.
func fanOutScript(n int) string {
	return `export const meta = { name: 'fan', description: 'fan out' }
const r = await Promise.all(Array.from({ length: ` + strconv.Itoa(n) + ` }, (_, i) => agent('item ' + i)))
return r.length`
}
