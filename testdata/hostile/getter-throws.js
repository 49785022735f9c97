// hostile: a getter in the returned value throws
// expect: SCRIPT_ERROR within 5s
return { ok: 1, get bad() { throw new Error('a getter that throws') } }
