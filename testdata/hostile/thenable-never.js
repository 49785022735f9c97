// hostile: awaits a thenable that never calls back
// expect: SCRIPT_STALLED within 5s
await { then() {} }
return 'never'
