// hostile: a thenable resolved after the body returned loops in its then
// expect: TIMEOUT within 10s
// timeout: 500ms
return { then(resolve) { while (true) {} } }
