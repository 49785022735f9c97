// hostile: a getter in the returned value loops
// expect: TIMEOUT within 10s
// timeout: 500ms
return [1, { get bad() { for (;;) {} } }]
