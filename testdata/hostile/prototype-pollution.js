// hostile: pollutes the builtins; neither the host nor the other runs may see it
// expect: completed within 5s
Object.prototype.polluted = 'yes'
Array.prototype.map = function () { return ['hijacked'] }
Array.prototype.push = function () { throw new Error('push hijacked') }
JSON.stringify = () => '"hijacked"'
Promise.prototype.then = function () { throw new Error('then hijacked') }
Object.defineProperty(Object.prototype, 'toJSON', { value: undefined, writable: true, configurable: true })
return { ok: true }
