// hostile: returns data nested a hundred thousand levels deep
// expect: RESOURCE_LIMIT within 10s
let o = {}
for (let i = 0; i < 1e5; i++) o = { o }
return o
