// hostile: the returned value's toJSON never returns (a defect: it held the run past its deadline)
// expect: TIMEOUT within 10s
// timeout: 500ms
return { toJSON() { while (true) {} } }
