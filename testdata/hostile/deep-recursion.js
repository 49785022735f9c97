// hostile: unbounded recursion
// expect: RESOURCE_LIMIT within 5s
function f(n) { return f(n + 1) + 1 }
return f(0)
