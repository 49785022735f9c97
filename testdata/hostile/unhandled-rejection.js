// hostile: rejections nobody handles, beside a completed result
// expect: completed within 5s
Promise.reject(new Error('nobody listens'))
agent('x').then(() => { throw new Error('a continuation throws') })
return 'fine'
