// hostile: spreads an array of 2^32-1 holes; goja loops over them natively, where no deadline reaches
// expect: TIMEOUT within 20s
// timeout: 1s
// modes: process
const a = []
a.length = 2 ** 32 - 1
return [...a].length
