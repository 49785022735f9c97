// hostile: JSON.stringify of data nested a hundred thousand levels deep (goja recurses in Go)
// expect: SCRIPT_ERROR within 10s
let a = []
for (let i = 0; i < 1e5; i++) a = [a]
return JSON.stringify(a).length
