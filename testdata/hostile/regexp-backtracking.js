// hostile: catastrophic backtracking; the lookahead forces goja's backtracking engine
// expect: RESOURCE_LIMIT within 10s
return /^(?=a)(a+)+$/.test('a'.repeat(40) + 'b')
