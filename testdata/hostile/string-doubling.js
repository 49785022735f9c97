// hostile: doubles a string until memory runs out (a defect: nothing stopped it)
// expect: RESOURCE_LIMIT within 30s
// max-memory: 64MiB
let s = 'ab'
while (true) s += s
