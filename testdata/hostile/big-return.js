// hostile: a 100 MB return value
// expect: RESOURCE_LIMIT within 20s
// max-memory: 1GiB
const chunk = 'x'.repeat(1 << 20)
return Array.from({ length: 100 }, () => chunk)
