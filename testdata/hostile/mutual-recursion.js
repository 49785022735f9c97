// hostile: mutual recursion, caught and retried
// expect: RESOURCE_LIMIT within 5s
const even = n => n === 0 || odd(n - 1)
const odd = n => n !== 0 && even(n - 1)
try { return even(1e7) } catch (e) { return even(1e7) }
