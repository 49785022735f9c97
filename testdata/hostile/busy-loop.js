// hostile: a loop that never yields
// expect: TIMEOUT within 10s
// timeout: 500ms
while (true) {}
