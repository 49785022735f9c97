// hostile: pushes into an array forever
// expect: RESOURCE_LIMIT within 30s
// max-memory: 64MiB
const a = []
while (true) a.push({ i: a.length, s: 'item ' + a.length })
