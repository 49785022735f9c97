// hostile: builds a Set from an array of 2^32-1 holes; goja's constructor walks them natively, where no deadline reaches
// expect: RESOURCE_LIMIT within 5s
// timeout: 20s
const a = []
a.length = 2 ** 32 - 1
return new Set(a).size
