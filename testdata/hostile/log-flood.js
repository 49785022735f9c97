// hostile: a million log() calls
// expect: completed within 30s
for (let i = 0; i < 1e6; i++) log('line', i)
return 'flooded'
