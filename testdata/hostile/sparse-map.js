// hostile: map over an array of 2^32-1 holes asks goja for 64 GB of slots
// expect: RESOURCE_LIMIT within 5s
return new Array(2 ** 32 - 1).map(x => x).length
