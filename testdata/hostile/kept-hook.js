// hostile: keeps agent() and parallel() and calls them after the body returned
// expect: completed within 5s
const a = agent, p = parallel
Promise.resolve().then(() => Promise.resolve()).then(() => { a('late'); p([() => a('later')]) })
agent('forgotten').then(() => a('after a forgotten one'))
return 'returned early'
