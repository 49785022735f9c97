// hostile: typed arrays sized past the budget, from a length and from an array-like
// expect: RESOURCE_LIMIT within 5s
const a = new Float64Array(1e9)
return a.length
