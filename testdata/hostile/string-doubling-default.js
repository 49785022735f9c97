// hostile: doubles a string under the default memory budget (a defect: the heap reached 1.8 GiB and the run ended after 41.5 s)
// expect: RESOURCE_LIMIT within 10s
// timeout: 20s
let s = 'ab'
while (true) s += s
