// hostile: recursion through a builtin (Array.prototype.map calls back into the script)
// expect: RESOURCE_LIMIT within 5s
function f(a) { return [a].map(f) }
return f(1)
