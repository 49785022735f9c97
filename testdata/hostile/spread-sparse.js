// hostile: spreads an array of 2^32-1 holes; goja loops over them natively, where no deadline reaches (a defect: 24 GB and 824 s in process)
// expect: RESOURCE_LIMIT within 5s
// timeout: 20s
const a = []
a.length = 2 ** 32 - 1
return [...a].length
